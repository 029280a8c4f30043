"""Tests of rope_scaling.py, and its comparison with Hugging Face transformers' own RoPE functions."""

import math

import numpy as np
import pytest
import torch

from embedding_course import rope_scaling
from embedding_course.positional import inverse_frequencies

CONFIGS = [  # (head_dim, base, factor, original_len)
    (128, 10000.0, 4.0, 4096),
    (128, 500000.0, 8.0, 8192),
    (64, 1000000.0, 2.0, 2048),
    (8, 10000.0, 4.0, 8),  # lesson 7's tiny model
]


def hf(rope_type, head_dim, base, factor, original_len, seq_len=None, **extra):
    """transformers' inverse frequencies (float32) and attention factor for one config."""
    parameters = {"rope_type": rope_type, "rope_theta": base, "factor": factor, **extra}
    max_positions = original_len
    if rope_type in ("yarn", "llama3"):
        parameters["original_max_position_embeddings"] = original_len
        max_positions = int(original_len * factor)
    # transformers is a test-only dependency, pinned in requirements.txt; imported here, where it
    # is used, because its import takes seconds on every test worker that collects this file
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = LlamaConfig(
        hidden_size=head_dim * 2,
        num_attention_heads=2,
        head_dim=head_dim,
        max_position_embeddings=max_positions,
        rope_parameters=parameters,
    )
    inv_freq, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
    return inv_freq.double(), attention_factor


def close(ours, theirs):
    # transformers works in float32: agree to float32's resolution, relative to each frequency
    assert torch.allclose(ours, theirs, rtol=2e-6, atol=0), float((ours - theirs).abs().max())


@pytest.mark.parametrize("head_dim, base, factor, original_len", CONFIGS)
def test_linear_matches_transformers(head_dim, base, factor, original_len):
    theirs, attention = hf("linear", head_dim, base, factor, original_len)
    close(rope_scaling.linear_frequencies(head_dim, base, factor), theirs)
    assert attention == 1.0


@pytest.mark.parametrize("head_dim, base, factor, original_len", CONFIGS)
@pytest.mark.parametrize("times", [0.5, 1.0, 2.5, 4.0])
def test_dynamic_matches_transformers(head_dim, base, factor, original_len, times):
    seq_len = max(1, int(original_len * times))
    theirs, _ = hf("dynamic", head_dim, base, factor, original_len, seq_len=seq_len)
    close(rope_scaling.dynamic_frequencies(head_dim, base, factor, seq_len, original_len), theirs)


@pytest.mark.parametrize("head_dim, base, factor, original_len", CONFIGS)
def test_ntk_is_dynamic_with_factor_one_at_the_target_length(head_dim, base, factor, original_len):
    theirs, _ = hf("dynamic", head_dim, base, 1.0, original_len, seq_len=int(original_len * factor))
    close(rope_scaling.ntk_frequencies(head_dim, base, factor), theirs)


@pytest.mark.parametrize("head_dim, base, factor, original_len", CONFIGS)
def test_yarn_matches_transformers(head_dim, base, factor, original_len):
    theirs, attention = hf("yarn", head_dim, base, factor, original_len)
    ours, our_attention = rope_scaling.yarn_frequencies(head_dim, base, factor, original_len)
    close(ours, theirs)
    assert our_attention == pytest.approx(attention, rel=1e-12)
    assert our_attention == pytest.approx(0.1 * math.log(factor) + 1)


@pytest.mark.parametrize("head_dim, base, factor, original_len", CONFIGS)
def test_llama3_matches_transformers(head_dim, base, factor, original_len):
    theirs, attention = hf(
        "llama3", head_dim, base, factor, original_len, low_freq_factor=1.0, high_freq_factor=4.0
    )
    close(rope_scaling.llama3_frequencies(head_dim, base, factor, 1.0, 4.0, original_len), theirs)
    assert attention == 1.0


def test_method_properties():
    dim, base, s = 128, 10000.0, 4.0
    original = inverse_frequencies(dim, base)
    ntk = rope_scaling.ntk_frequencies(dim, base, s)
    assert float(ntk[0]) == float(original[0])
    assert float(ntk[-1]) == pytest.approx(float(original[-1]) / s, rel=1e-12)
    assert rope_scaling.classify_pairs(original, rope_scaling.linear_frequencies(dim, base, s), s) == {
        "unchanged": 0,
        "divided": 64,
        "between": 0,
    }
    assert rope_scaling.classify_pairs(original, ntk, s) == {"unchanged": 1, "divided": 1, "between": 62}
    assert rope_scaling.ntk_base(10000.0, 4.0, 128) == pytest.approx(10000 * 4 ** (128 / 126))
    # dynamic: unchanged up to the trained length, NTK-aware with factor s at s times it... when factor 1
    assert torch.equal(rope_scaling.dynamic_frequencies(dim, base, 8.0, 100, 4096), original)


def test_llama31_counts_and_classes():
    dim, base = 128, 500000.0
    settings = rope_scaling.LLAMA31
    original = inverse_frequencies(dim, base)
    scaled = rope_scaling.llama3_frequencies(
        dim, base, settings["factor"], original_len=settings["original_len"]
    )
    counts = rope_scaling.classify_pairs(original, scaled, settings["factor"])
    wavelengths = 2 * math.pi / original
    classes = [rope_scaling.llama3_class(float(w)) for w in wavelengths]
    assert counts["unchanged"] == classes.count("kept")
    assert counts["divided"] == classes.count("divided")
    assert counts["between"] == classes.count("blended")
    assert sum(counts.values()) == 64 and min(counts.values()) > 0
    assert rope_scaling.llama3_class(2047.0) == "kept" and rope_scaling.llama3_class(9000.0) == "divided"


def test_yarn_ramp_keeps_fast_pairs_and_divides_slow_ones():
    dim, base, s, length = 128, 10000.0, 16.0, 4096
    original = inverse_frequencies(dim, base)
    scaled, _ = rope_scaling.yarn_frequencies(dim, base, s, length)
    turns = length / (2 * math.pi / original)
    assert torch.equal(scaled[turns > 32 * 1.5], original[turns > 32 * 1.5])
    assert torch.allclose(scaled[turns < 0.5], original[turns < 0.5] / s, rtol=1e-12)
    ramp = rope_scaling.yarn_ramp(dim, base, length)
    assert bool((ramp.diff() >= 0).all())


def test_scaling_hook_and_errors():
    hook = rope_scaling.scaling_hook("yarn", 8, 10000.0, 4.0, 8)
    inv_freq, attention = hook(32)
    assert inv_freq.shape == (4,) and attention == pytest.approx(0.1 * math.log(4) + 1)
    with pytest.raises(ValueError, match="method"):
        rope_scaling.scaled_frequencies("ntk-by-parts", 8, 10000.0, 2.0, 8)
    with pytest.raises(ValueError, match="factor"):
        rope_scaling.linear_frequencies(8, 10000.0, 0)
    with pytest.raises(ValueError, match="dim"):
        rope_scaling.ntk_base(10000.0, 2.0, 7)


NUMBER = " must be a finite number "
ORIGINAL_LEN = "^original_len must be a whole number >= 1"


@pytest.mark.parametrize(("call", "message"), [
    # each raised a math domain error, a ZeroDivisionError or a torch or NumPy error before
    (lambda: rope_scaling.yarn_correction_range(64, 1e4, 0), ORIGINAL_LEN),
    (lambda: rope_scaling.yarn_correction_range(64, 1e4, 2048, beta_fast=0), "^beta_fast" + NUMBER + "> 1"),
    (lambda: rope_scaling.yarn_ramp(64, 1e4, 2048, beta_slow=-1.0), "^beta_slow" + NUMBER + "> 0"),
    (lambda: rope_scaling.yarn_frequencies(64, 1e4, 4.0, 2048, beta_fast=0), "^beta_fast" + NUMBER),
    (lambda: rope_scaling.yarn_correction_range(63, 1e4, 2048), "^dim must be even, got 63"),
    (lambda: rope_scaling.fitted_score(far_factor=1), "^far_factor" + NUMBER + "> 1, got 1"),
    (lambda: rope_scaling.fitted_score(length=10, far_factor=1.05), r"^far_factor \* length must reach past"),
    (lambda: rope_scaling.fitted_score(dim=7), "^dim must be even, got 7"),
    (lambda: rope_scaling.classify_pairs(torch.ones(3), torch.ones(3), factor=0), "^factor" + NUMBER + "> 0"),
    (lambda: rope_scaling.llama3_frequencies(8, 1e4, 4.0, True), "^low_freq_factor" + NUMBER + "> 0"),
    (lambda: rope_scaling.llama3_frequencies(8, 1e4, 4.0, 1.0, 0.5), "^high_freq_factor" + NUMBER + "> 1"),
    (lambda: rope_scaling.llama3_frequencies(8, 1e4, original_len=0), ORIGINAL_LEN),
    (lambda: rope_scaling.llama3_class(100.0, low_freq_factor=0), "^low_freq_factor" + NUMBER + "> 0"),
])
def test_arguments_are_checked_before_the_maths(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_max_abs_differences_are_small():
    """The table lesson 8 could quote: the largest gap per method over every config."""
    gaps = {}
    for head_dim, base, factor, length in CONFIGS:
        pairs = {
            "linear": (
                rope_scaling.linear_frequencies(head_dim, base, factor),
                hf("linear", head_dim, base, factor, length)[0],
            ),
            "dynamic": (
                rope_scaling.dynamic_frequencies(head_dim, base, factor, 3 * length, length),
                hf("dynamic", head_dim, base, factor, length, seq_len=3 * length)[0],
            ),
            "yarn": (
                rope_scaling.yarn_frequencies(head_dim, base, factor, length)[0],
                hf("yarn", head_dim, base, factor, length)[0],
            ),
            "llama3": (
                rope_scaling.llama3_frequencies(head_dim, base, factor, original_len=length),
                hf("llama3", head_dim, base, factor, length, low_freq_factor=1.0, high_freq_factor=4.0)[0],
            ),
        }
        for method, (ours, theirs) in pairs.items():
            gaps[method] = max(gaps.get(method, 0.0), float((ours - theirs).abs().max()))
    assert all(gap < 1e-6 for gap in gaps.values()), gaps
    assert np.isfinite(list(gaps.values())).all()


def test_yarn_keeps_pair_0_of_lesson_8s_head_because_its_ramp_starts_no_earlier():
    """Lesson 8: no pair turns 32 times in training, the ramp's start is clamped to pair 0."""
    from embedding_course.length_generalisation import PAGE_SETTINGS
    from embedding_course.rope_extension import BASE

    dim, length = PAGE_SETTINGS.d_model // PAGE_SETTINGS.n_heads, PAGE_SETTINGS.train_len
    turns = length / (2 * math.pi / inverse_frequencies(dim, BASE))  # (dim/2,)
    assert turns.max() < 32  # no pair turns 32 times: the ramp would start before pair 0
    for truncate in (True, False):
        assert rope_scaling.yarn_correction_range(dim, BASE, length, truncate=truncate)[0] == 0
        assert rope_scaling.yarn_ramp(dim, BASE, length, truncate=truncate)[0] == 0  # pair 0 kept
    # The paper's ramp, linear in the number of turns, divides pair 0 almost as PI does.
    s = PAGE_SETTINGS.test_factor
    gamma = min(max((float(turns[0]) - 1) / (32 - 1), 0.0), 1.0)  # 1 keeps the pair
    paper = (1 - gamma) / s + gamma  # pair 0's frequency over its own
    assert 1 / s < paper < 1.05 / s


def test_llama31_blend_is_yarns_paper_ramp_with_alpha_1_and_beta_4():
    dim, base = 128, 500000.0
    settings = rope_scaling.LLAMA31
    factor, length = settings["factor"], settings["original_len"]
    original = inverse_frequencies(dim, base)
    turns = length / (2 * math.pi / original)  # r = L / wavelength
    gamma = ((turns - 1) / (4 - 1)).clamp(0, 1)
    paper = original / factor * (1 - gamma) + original * gamma
    scaled = rope_scaling.llama3_frequencies(dim, base, factor, original_len=length)
    assert torch.allclose(scaled, paper, rtol=1e-12, atol=0)
    assert bool(((gamma > 0) & (gamma < 1)).any())  # some pairs are blended


@pytest.mark.parametrize("factor", [2.0, 8.0, 32.0])
@pytest.mark.parametrize("method", ["yarn", "llama3"])
def test_a_kept_pair_lies_on_the_unchanged_line_and_a_divided_one_on_pi_s(method, factor):
    """Lesson 8's scaling explorer: YaRN's and Llama 3.1's lines show only where they blend."""
    dim, base, original_len = 128, 500000.0, 8192
    original = inverse_frequencies(dim, base)
    pi, _ = rope_scaling.scaled_frequencies("linear", dim, base, factor, original_len)
    scaled, _ = rope_scaling.scaled_frequencies(method, dim, base, factor, original_len)
    ratio = (scaled / original).double()
    kept = torch.isclose(ratio, torch.ones_like(ratio))
    divided = torch.isclose(ratio, torch.full_like(ratio, 1 / factor))
    assert kept.any() and divided.any() and (~kept & ~divided).any()
    torch.testing.assert_close(scaled[kept], original[kept])
    torch.testing.assert_close(scaled[divided], pi[divided])
