"""Tests of the sinusoidal variants real libraries use, and of how far each is from the paper."""

import itertools
import math

import numpy as np
import pytest
import torch

from embedding_course import sinusoidal_variants as sv


def t2t_reference(positions, d_model):
    """tensor2tensor's get_timing_signal_1d, one number at a time (even d_model)."""
    half = d_model // 2
    table = np.zeros((len(positions), d_model))
    for row, p in enumerate(positions):
        for i in range(half):
            angle = p * math.exp(-i * math.log(10000.0) / max(half - 1, 1))
            table[row, i], table[row, half + i] = math.sin(angle), math.cos(angle)
    return table


# ---------------------------------------------------------------- frequencies


@pytest.mark.parametrize("d_model", [8, 64, 512])
def test_paper_frequencies_run_from_one_to_almost_one_ten_thousandth(d_model):
    frequencies = sv.paper_frequencies(d_model)
    assert frequencies[0] == 1.0
    assert frequencies[-1] == pytest.approx(10000 ** (-(d_model - 2) / d_model), rel=1e-12)
    assert frequencies[-1] > 1e-4


@pytest.mark.parametrize("d_model", [4, 8, 64, 512])
def test_tensor2tensor_frequencies_end_exactly_at_one_ten_thousandth(d_model):
    frequencies = sv.tensor2tensor_frequencies(d_model)
    assert frequencies[0] == 1.0
    assert frequencies[-1] == pytest.approx(1e-4, rel=1e-12)
    ratios = frequencies[1:] / frequencies[:-1]  # geometric: one constant step
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (-1 / (d_model // 2 - 1))))


def test_last_wavelengths_for_d_512():
    paper = sv.summarise("paper", 4, 512).last_wavelength
    fairseq = sv.summarise("fairseq", 4, 512).last_wavelength
    assert paper == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert round(paper) == 60611
    assert fairseq == pytest.approx(2 * math.pi * 10000)
    assert round(fairseq) == 62832


def test_timestep_frequencies_shift_one_is_tensor2tensor_shift_zero_is_the_paper():
    torch.testing.assert_close(sv.timestep_frequencies(64, 1), sv.tensor2tensor_frequencies(64))
    torch.testing.assert_close(sv.timestep_frequencies(64, 0), sv.paper_frequencies(64))


# ---------------------------------------------------------------- layouts and values


@pytest.mark.parametrize("d_model", [6, 64])
def test_tensor2tensor_matches_its_formula(d_model):
    positions = [0, 1, 5, 99, 1000]
    np.testing.assert_allclose(sv.tensor2tensor_encoding(positions, d_model).numpy(),
                               t2t_reference(positions, d_model), atol=1e-12)


def test_row_zero_shows_each_layout():
    half = 4
    assert sv.variant_encoding("paper", 1, 8)[0].tolist() == [0.0, 1.0] * half
    for name in ("halves", "tensor2tensor", "ddpm"):
        assert sv.variant_encoding(name, 1, 8)[0].tolist() == [0.0] * half + [1.0] * half
    assert sv.variant_encoding("stable_diffusion", 1, 8)[0].tolist() == [1.0] * half + [0.0] * half


def test_odd_width_gets_a_zero_column_as_in_the_sources():
    table = sv.tensor2tensor_encoding([0, 3, 9], 7)
    assert table.shape == (3, 7)
    assert table[:, -1].tolist() == [0.0, 0.0, 0.0]
    assert sv.fairseq_table(5, 7).shape == (5, 7)


def test_fairseq_zeroes_the_padding_row_and_otherwise_is_tensor2tensor():
    table = sv.fairseq_table(10, 16, padding_idx=1)
    assert table[1].abs().max() == 0
    reference = sv.tensor2tensor_encoding(range(10), 16)
    keep = [0, *range(2, 10)]
    torch.testing.assert_close(table[keep], reference[keep])


def test_fairseq_positions_start_after_the_padding_index():
    pad = sv.FAIRSEQ_PADDING_IDX
    tokens = torch.tensor([[pad, pad, 7, 8, 9], [4, 5, 6, 7, 8]])  # left-padded, full
    positions = sv.fairseq_positions(tokens, pad)
    assert positions.tolist() == [[pad, pad, pad + 1, pad + 2, pad + 3], [2, 3, 4, 5, 6]]


def test_fairseq_first_token_reads_row_padding_idx_plus_one():
    vectors = sv.variant_encoding("fairseq", 3, 16)
    torch.testing.assert_close(vectors, sv.tensor2tensor_encoding([2, 3, 4], 16))


def test_ddpm_is_tensor2tensor_and_stable_diffusion_is_a_permutation_of_the_paper():
    torch.testing.assert_close(sv.variant_encoding("ddpm", 30, 32),
                               sv.variant_encoding("tensor2tensor", 30, 32))
    for name in ("halves", "stable_diffusion"):
        table = sv.variant_encoding(name, 30, 32)
        torch.testing.assert_close(table[:, sv.paper_order(name, 32)], sv.variant_encoding("paper", 30, 32),
                                   atol=1e-12, rtol=0)


# ---------------------------------------------------------------- distances from the paper


ISSUE_SIZES = [(64, 50), (512, 100), (512, 1024)]


@pytest.mark.parametrize(("size", "expected"), list(zip(ISSUE_SIZES, [0.56, 0.14, 1.34], strict=True)))
def test_tensor2tensor_pair_by_pair_difference_from_the_paper(size, expected):
    d_model, length = size
    summary = sv.summarise("tensor2tensor", length, d_model)
    assert round(summary.pair_difference, 2) == expected


@pytest.mark.parametrize(("size", "expected"), list(zip(ISSUE_SIZES, [0.56, 0.14, 1.29], strict=True)))
def test_no_column_permutation_brings_tensor2tensor_closer(size, expected):
    d_model, length = size
    summary = sv.summarise("tensor2tensor", length, d_model)
    assert round(summary.best_difference, 2) == expected
    assert summary.best_difference <= summary.pair_difference


def test_paper_permutations_are_zero_apart():
    for name in ("halves", "stable_diffusion"):
        summary = sv.summarise(name, 100, 64)
        assert summary.pair_difference < 1e-12 and summary.best_difference < 1e-12


def test_best_permutation_difference_finds_the_optimum_by_brute_force():
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        table = torch.rand(6, 5, generator=generator, dtype=torch.float64)
        reference = torch.rand(6, 5, generator=generator, dtype=torch.float64)
        brute = min(float((table[:, list(perm)] - reference).abs().max())
                    for perm in itertools.permutations(range(5)))
        guess = torch.randperm(5, generator=generator)  # a warm start, allowed in part
        for value, perm in (sv.best_permutation_difference(table, reference),
                            sv.best_permutation_difference(table, reference, guess=guess)):
            assert value == pytest.approx(brute)
            assert float((table[:, perm] - reference).abs().max()) == pytest.approx(value)
            assert sorted(perm.tolist()) == list(range(5))


def test_best_permutation_undoes_a_shuffle():
    reference = sv.paper_encoding(range(20), 12)
    shuffle = torch.randperm(12, generator=torch.Generator().manual_seed(1))
    value, perm = sv.best_permutation_difference(reference[:, shuffle], reference)
    assert value == 0
    torch.testing.assert_close(reference[:, shuffle][:, perm], reference)


def test_comparison_markdown_has_one_row_per_variant():
    lengths = [20]
    summaries = [[sv.summarise(name, 20, 16) for name in sv.VARIANTS]]
    text = sv.comparison_markdown(summaries, lengths)
    lines = text.splitlines()
    assert len(lines) == 2 + len(sv.VARIANTS)
    assert "d = 16" in lines[0] and "20 positions" in lines[0]


# ---------------------------------------------------------------- argument checks


def test_a_variant_name_is_checked_with_the_allowed_names():
    with pytest.raises(ValueError, match=r"^name must be one of paper, halves, tensor2tensor, fairseq, ddpm, "
                                         r"stable_diffusion, got 'gpt2'$"):
        sv.variant_encoding("gpt2", 10, 8)


@pytest.mark.parametrize("call", [
    lambda: sv.fairseq_table(10, 2),  # d/2 - 1 = 0: the spacing is undefined
    lambda: sv.tensor2tensor_frequencies(1),
    lambda: sv.tensor2tensor_frequencies(8, min_timescale=10, max_timescale=1),
    lambda: sv.timestep_frequencies(8, downscale_freq_shift=4),
    lambda: sv.variant_encoding("gpt2", 10, 8),
    lambda: sv.variant_encoding("paper", 0, 8),
    lambda: sv.paper_order("nope", 8),
    lambda: sv.fairseq_positions(torch.zeros(2, 2, 2, dtype=torch.long)),
    lambda: sv.best_permutation_difference(torch.zeros(3, 4), torch.zeros(3, 5)),
    lambda: sv.best_permutation_difference(torch.zeros(3, 2), torch.zeros(3, 2), guess=[0, 0]),
    lambda: sv.comparison_markdown([], []),
])
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize(("call", "message"), [
    (lambda bad: sv.tensor2tensor_frequencies(8, 1.0, bad), "^max_timescale must be a finite number > 1"),
    (lambda bad: sv.tensor2tensor_frequencies(8, bad), "^min_timescale must be a finite number > 0"),
    (lambda bad: sv.timestep_frequencies(8, max_period=bad), "^max_period must be a finite number > 1"),
    (lambda bad: sv.timestep_frequencies(8, bad), "^downscale_freq_shift must be a finite number"),
])
@pytest.mark.parametrize("bad", [math.inf, math.nan, "1", None])
def test_timescales_and_periods_are_finite_numbers(call, message, bad):
    """max_timescale=inf gave [nan, 0, 0, 0]."""
    with pytest.raises(ValueError, match=message):
        call(bad)


@pytest.mark.parametrize("max_period", [0, -1.0, 0.5, 1])
def test_max_period_must_be_above_one(max_period):
    """The frequencies are max_period ** (-i / (d/2 - shift)): 1 makes them all 1, below 1 they grow
    past 1 (periods shorter than 2 pi), and 0 or less has no logarithm (a math domain error before)."""
    with pytest.raises(ValueError, match=r"^max_period must be a finite number > 1, got "):
        sv.timestep_frequencies(8, max_period=max_period)


def test_padding_index_outside_the_table_raises_index_error():
    with pytest.raises(IndexError, match=r"^padding_idx 4 is outside the table \(0\.\.3\)$"):
        sv.fairseq_table(4, 8, padding_idx=4)
    with pytest.raises(ValueError, match=r"^padding_idx must be a whole number, got 1\.5$"):  # a torch error
        sv.fairseq_table(4, 8, padding_idx=1.5)


def test_frequency_spacing_figure_legends_read_whole_wide_and_on_a_phone():
    from embedding_course.figures.sinusoidal_variants import frequency_spacing_figure
    from embedding_course.plotting import narrow_figure

    from .figure_checks import assert_legends_read_whole

    wide = frequency_spacing_figure()
    assert_legends_read_whole(wide)
    assert_legends_read_whole(narrow_figure(wide))
