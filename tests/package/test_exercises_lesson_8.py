"""Tests of the exercises of lesson 8: the worked answers pass, typical mistakes are named."""

import math

from embedding_course import rope_scaling, rotary
from embedding_course.exercises import rotary as ex


def test_wavelength_answer_and_mistakes():
    theta = ex.WAVE_BASE ** (-2 * ex.WAVE_PAIR / ex.WAVE_DIM)
    assert ex.check_wavelength(2 * math.pi / theta)
    assert "2π/θᵢ" in str(ex.check_wavelength(theta))
    assert "multiply by 2π" in str(ex.check_wavelength(1 / theta))
    assert "2i/d, not i/d" in str(
        ex.check_wavelength(2 * math.pi * ex.WAVE_BASE ** (ex.WAVE_PAIR / ex.WAVE_DIM))
    )
    assert "counts pairs" in str(
        ex.check_wavelength(2 * math.pi * ex.WAVE_BASE ** (4 * ex.WAVE_PAIR / ex.WAVE_DIM))
    )
    assert "No answer yet" in str(ex.check_wavelength(None))
    assert not ex.check_wavelength(12.0)


def test_ntk_base_answer_and_mistakes():
    d, s, base = ex.NTK_DIM, ex.NTK_FACTOR, ex.NTK_BASE
    assert ex.check_ntk_base(base * s ** (d / (d - 2)))
    assert "d/(d − 2)" in str(ex.check_ntk_base(base * s))
    assert "upside down" in str(ex.check_ntk_base(base * s ** ((d - 2) / d)))
    assert "larger base" in str(ex.check_ntk_base(base / s))


def test_llama_class_is_computed_and_wrong_classes_are_explained():
    wave = rotary.wavelength(ex.LLAMA_PAIR, ex.LLAMA_DIM, ex.LLAMA_BASE)
    assert 8192 / 4 < wave < 8192  # the chosen pair is a blended one
    assert ex.check_llama_class(["blended"])
    assert "below 2,048" in str(ex.check_llama_class(["kept"]))
    assert "above 8,192" in str(ex.check_llama_class(["divided"]))
    assert "choose from: kept, blended, divided" in str(ex.check_llama_class(["stretched"]))
    assert rope_scaling.llama3_class(wave) == "blended"


def test_layout_curves_have_the_shapes_the_exercise_describes():
    curves = ex.layout_error_curves()
    assert curves["B"][0] == 0 and min(curves["B"][1:]) > 0  # the layout bug
    assert max(curves["C"]) == 0  # the right conversion
    assert curves["A"][0] > 0  # positions counted from 1
    assert ex.check_layout_bug(["B"])
    assert "shifted position count" in str(ex.check_layout_bug(["A"]))
    assert "conversion done right" in str(ex.check_layout_bug(["C"]))
