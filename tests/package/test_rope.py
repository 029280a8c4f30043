"""Tests of RoPE (scores depend on the offset only) and ALiBi biases."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from embedding_course import positional, rope

FAST = settings(max_examples=25, deadline=None)


def _pair(d: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(2, d, generator=generator, dtype=torch.float64)


@FAST
@given(m=st.integers(0, 3000), n=st.integers(0, 3000), shift=st.integers(-500, 500),
       half=st.integers(1, 32), seed=st.integers(0, 1000))
def test_rope_score_depends_only_on_the_offset(m, n, shift, half, seed):
    query, key = _pair(2 * half, seed)
    first = rope.rope_score(query, key, m, n)
    second = rope.rope_score(query, key, m + shift, n + shift)
    assert first == pytest.approx(second, abs=1e-8 * (1 + abs(first)))


def test_rope_at_the_same_position_keeps_the_plain_dot_product():
    query, key = _pair(8)
    assert rope.rope_score(query, key, 17, 17) == pytest.approx(float(query @ key))


def test_rope_score_matrix_is_toeplitz_but_not_constant():
    query, key = _pair(16)
    scores = rope.rope_score_matrix(query, key, 24)
    assert scores.shape == (24, 24)
    assert positional.toeplitz_deviation(scores) < 1e-9
    assert float(scores.max() - scores.min()) > 0.5  # the offset does change the score


@FAST
@given(seq_len=st.integers(1, 20), half=st.integers(1, 16))
def test_apply_rope_rotates_pairs_and_keeps_norms(seq_len, half):
    x = torch.randn(3, seq_len, 2 * half, dtype=torch.float64)
    rotated = rope.apply_rope(x)
    assert rotated.shape == x.shape
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(rotated[:, 0], x[:, 0])  # position 0 is not turned


def test_apply_rope_uses_the_sinusoidal_angles():
    """RoPE on the vector (0, 1, 0, 1, ...) at position p gives the sinusoidal PE(p), up to signs."""
    d_model, positions = 8, torch.arange(6)
    x = torch.tensor([0.0, 1.0] * (d_model // 2), dtype=torch.float64).expand(6, d_model)
    rotated = rope.apply_rope(x, positions)
    table = positional.sinusoidal_encoding(6, d_model, device="cpu", dtype=torch.float64)
    torch.testing.assert_close(rotated[:, 0::2], -table[:, 0::2])
    torch.testing.assert_close(rotated[:, 1::2], table[:, 1::2])


def test_rope_bad_inputs():
    with pytest.raises(ValueError, match="even"):
        rope.apply_rope(torch.zeros(4, 5))
    with pytest.raises(ValueError, match="shape"):
        rope.apply_rope(torch.zeros(5))
    with pytest.raises(ValueError, match=r"positions must have shape \(4,\)"):
        rope.apply_rope(torch.zeros(4, 6), positions=[0, 1])
    with pytest.raises(ValueError, match="same length"):
        rope.rope_score(torch.zeros(4), torch.zeros(6), 0, 1)
    with pytest.raises(ValueError, match="even length"):
        rope.rope_score_matrix(torch.zeros(3), torch.zeros(3), 5)
    with pytest.raises(ValueError, match="seq_len"):
        rope.rope_score_matrix(torch.zeros(4), torch.zeros(4), 0)


def test_rope_refuses_whole_number_x_and_positions_that_are_not_finite():
    with pytest.raises(ValueError, match=r"^x must hold floating-point numbers, got dtype torch\.int64"):
        rope.apply_rope(torch.tensor([[1, 2]]), [1])  # cos and sin cast to integers: zeros
    assert rope.apply_rope(torch.tensor([[1.0, 2.0]]), [1]).abs().min() > 0.5
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match=r"^query_position must be a finite number"):
            rope.rope_score([1.0, 0.0], [1.0, 0.0], bad, 0)
        with pytest.raises(ValueError, match=r"^key_position must be a finite number"):
            rope.rope_score([1.0, 0.0], [1.0, 0.0], 0, bad)
        with pytest.raises(ValueError, match=r"^positions must be finite numbers"):
            rope.apply_rope(torch.ones(2, 4), [0.0, bad])


def test_alibi_slopes_follow_the_paper():
    slopes = rope.alibi_slopes(8)
    assert slopes.tolist() == [2.0 ** -(h + 1) for h in range(8)]
    assert rope.alibi_slopes(4)[0].item() == pytest.approx(2 ** -2)
    twelve = rope.alibi_slopes(12)
    assert len(twelve) == 12 and len(set(twelve.tolist())) == 12
    assert twelve[8].item() == pytest.approx(2 ** -0.5)
    with pytest.raises(ValueError, match="num_heads"):
        rope.alibi_slopes(0)


def test_alibi_bias_penalises_distance_and_masks_the_future():
    bias = rope.alibi_bias(4, 0.5)
    assert bias[3].tolist() == [-1.5, -1.0, -0.5, 0.0]
    assert math.isinf(bias[0, 1]) and bias[0, 1] < 0
    both_ways = rope.alibi_bias(4, 0.5, causal=False)
    torch.testing.assert_close(both_ways, both_ways.T)
    with pytest.raises(ValueError, match="slope"):
        rope.alibi_bias(4, -1.0)


def test_shifted_scores_gap_is_rounding_for_rope_and_checks_its_arguments():
    queries, keys = torch.randn(2, 8, 64, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert rope.shifted_scores_gap(queries, keys, 0) == 0.0
    assert rope.shifted_scores_gap(queries, keys, 1000) < 1e-12
    m, n = 2, 5  # one score of the matrix, by rope_score
    shifted = rope.rope_score(queries[m], keys[n], m + 3, n + 3)
    assert shifted == pytest.approx(rope.rope_score(queries[m], keys[n], m, n), abs=1e-12)
    # the positions do act: a shift of the queries alone moves the scores
    moved = rope.apply_rope(queries, torch.arange(8) + 3) @ keys.T - rope.apply_rope(queries) @ keys.T
    assert float(moved.abs().max()) > 0.1
    with pytest.raises(ValueError, match=r"\(T, d\) tensors of one shape"):
        rope.shifted_scores_gap(queries, keys[:, :6], 3)
    with pytest.raises(ValueError, match=r"\(T, d\) tensors of one shape with an even d"):
        rope.shifted_scores_gap(queries[:, :5], keys[:, :5], 3)
    with pytest.raises(ValueError, match="shift"):
        rope.shifted_scores_gap(queries, keys, "3")


def test_pairs_telling_apart_counts_pairs_that_separate_two_offsets_round_the_circle():
    """Lesson 7: 9 back from 3 back is 6 rad on the fastest pair, 0.28 rad short of a full turn."""
    assert rope.pairs_telling_apart(4, 3, 9) == 0  # 0.28 rad and 0.06 rad
    assert rope.pairs_telling_apart(4, 3, 4) == 1  # 1 rad on the fast pair, 0.01 on the slow
    by_hand = sum(abs(math.remainder(6 * 10000 ** (-2 * i / 64), 2 * math.pi)) > 0.5 for i in range(32))
    assert rope.pairs_telling_apart(64, 3, 9) == by_hand == 8
    assert rope.pairs_telling_apart(128, 3, 9) == 17
    for call, message in [(lambda: rope.pairs_telling_apart(5, 3, 9), "head_width must be even"),
                          (lambda: rope.pairs_telling_apart(4, -1, 9), "near must be"),
                          (lambda: rope.pairs_telling_apart(4, 3, 9, min_angle=4.0), "min_angle must be")]:
        with pytest.raises(ValueError, match=message):
            call()
