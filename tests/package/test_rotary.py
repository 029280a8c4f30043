"""Tests of rotary.py and the RoPE layouts: every claim lesson 8 makes about the rotation."""

import itertools
import math

import numpy as np
import pytest
import torch

from embedding_course import rope, rotary
from embedding_course.length_generalisation import RunSettings, accuracy_by_length, train_model
from embedding_course.positional import inverse_frequencies


def random(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_theta_and_wavelength():
    assert rotary.theta(0, 64) == 1.0
    assert rotary.theta(1, 64, 10000.0) == pytest.approx(10000.0 ** (-2 / 64))
    assert rotary.wavelength(2, 8, 10000.0) == pytest.approx(2 * math.pi * 10000.0**0.5)
    with pytest.raises(IndexError, match="pair"):
        rotary.theta(4, 8)
    with pytest.raises(ValueError, match="even"):
        rotary.theta(0, 7)


def test_complex_multiplication_is_the_real_rotation():
    x = random(12, 16)
    positions = torch.arange(12) * 7.0
    assert torch.allclose(rotary.rotate_complex(x, positions), rope.apply_rope(x, positions), atol=1e-12)


def test_rotate_complex_checks_its_arguments_as_apply_rope_does():
    x = random(3, 4)
    for positions in ([5], 5, [[0, 1, 2]]):  # one position for three rows, a scalar, a 2-D list
        for rotate in (rotary.rotate_complex, rope.apply_rope):
            with pytest.raises(ValueError, match=r"^positions must have shape \(3,\), one per row of x"):
                rotate(x, positions)
    for rotate in (rotary.rotate_complex, rope.apply_rope):
        with pytest.raises(ValueError, match=r"^the last dimension of x must be even, got 5"):
            rotate(random(3, 5), [0, 1, 2])
        with pytest.raises(ValueError, match=r"^x must be a tensor of shape \(\.\.\., T, d\)"):
            rotate(random(4), [0])
        with pytest.raises(ValueError, match=r"^positions must be finite numbers"):
            rotate(x, [0, math.nan, 2])


def test_rotate_complex_turns_x_on_its_own_device():
    x = torch.empty(3, 4, device="meta")  # a device that is not the CPU, even on a machine without a GPU
    turned = rotary.rotate_complex(x, [0, 1, 2])
    assert turned.device == x.device and turned.shape == (3, 4)


def test_rotate_complex_names_the_way_out_on_a_device_without_float64():
    from types import SimpleNamespace

    on_mps = SimpleNamespace(device=torch.device("mps"))  # no Apple GPU here: only its device is read
    with pytest.raises(ValueError, match=r"MPS device does not have; pass x\.cpu\(\)$"):
        rotary.rotate_complex(on_mps, [0])


def test_score_depends_only_on_the_offset_in_both_layouts():
    q, k = random(1, 32, seed=1), random(1, 32, seed=2)
    for layout in rope.LAYOUTS:

        def score(m, n, layout=layout):
            return float(rope.apply_rope(q, [m], layout=layout) @ rope.apply_rope(k, [n], layout=layout).T)

        assert score(3, 10) == pytest.approx(score(1003, 1010), abs=1e-9)
        assert score(3, 10) != pytest.approx(score(3, 30), abs=1e-3)


def test_values_are_not_rotated_so_a_value_does_not_depend_on_its_position():
    # rotating v would make the output depend on absolute positions: shift everything, outputs turn
    q, k, v = random(6, 8, seed=3), random(6, 8, seed=4), random(6, 8, seed=5)

    def output(offset, rotate_values):
        positions = torch.arange(6) + offset
        weights = torch.softmax(rope.apply_rope(q, positions) @ rope.apply_rope(k, positions).T, -1)
        return weights @ (rope.apply_rope(v, positions) if rotate_values else v)

    assert torch.allclose(output(0, False), output(100, False), atol=1e-9)
    assert not torch.allclose(output(0, True), output(100, True), atol=1e-3)


def test_layouts_agree_after_the_hf_permutation():
    head_dim, n_heads = 8, 3
    weight = random(head_dim * n_heads, 5, seed=6)
    inputs = random(10, 5, seed=7)
    permuted = rotary.permute_rows(weight, n_heads)
    for head in range(n_heads):
        rows = slice(head * head_dim, (head + 1) * head_dim)
        assert torch.equal(permuted[rows], weight[rows][rotary.layout_permutation(head_dim)])
        interleaved = rope.apply_rope(inputs @ weight[rows].T)
        halves = rope.apply_rope(inputs @ permuted[rows].T, layout="rotate_half")
        assert torch.allclose(halves, interleaved[:, rotary.layout_permutation(head_dim)], atol=1e-12)


def test_layout_permutation_is_evens_then_odds():
    assert rotary.layout_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


@pytest.fixture(scope="module")
def trained_rope_model():
    return train_model("copy_back", "rope", RunSettings(steps=60, seeds=(0,)), 0, "cpu")


def test_converted_model_is_the_same_model_and_the_swapped_one_is_wrong_past_position_0(trained_rope_model):
    ids = torch.randint(8, (4, 20), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        right = trained_rope_model(ids)
        converted = rotary.set_layout(trained_rope_model, "rotate_half", permute=True)(ids)
        swapped = rotary.set_layout(trained_rope_model, "rotate_half", permute=False)(ids)
    assert torch.allclose(right, converted, atol=1e-5)
    assert torch.equal(right[:, 0], swapped[:, 0])  # position 0 turns by 0 in every layout
    gap = (right - swapped).abs().mean(dim=(0, 2))
    assert float(gap[1:].min()) > 0
    assert float(gap[10:].mean()) > float(gap[1:4].mean())
    # the original model is left as it was
    assert all(block.attn.rope_layout == "interleaved" for block in trained_rope_model.blocks)


def test_set_layout_checks(trained_rope_model):
    with pytest.raises(ValueError, match="layout"):
        rotary.set_layout(trained_rope_model, "halves", permute=True)
    with pytest.raises(ValueError, match="layout"):
        rope.apply_rope(random(3, 4), layout="halves")
    with pytest.raises(ValueError, match="inv_freq"):
        rope.apply_rope(random(3, 4), inv_freq=torch.ones(3))


def test_swapped_layout_accuracy_is_lower(trained_rope_model):
    swapped = rotary.set_layout(trained_rope_model, "rotate_half", permute=False)
    right = np.nanmean(accuracy_by_length(trained_rope_model, "copy_back", 8))
    assert np.nanmean(accuracy_by_length(swapped, "copy_back", 32)[8:]) < right


def test_partial_rope_leaves_the_rest_alone_and_uses_its_own_width():
    x = random(5, 80, seed=8)
    turned = rotary.partial_rope(x, 0.4)
    assert torch.equal(turned[:, 32:], x[:, 32:])
    assert torch.allclose(turned[:, :32], rope.apply_rope(x[:, :32], layout="rotate_half"))
    assert not torch.allclose(turned[1:, :32], x[1:, :32])
    for bad in (1.5, 0, True, "0.4", math.nan):  # True was taken as 1
        with pytest.raises(ValueError, match=r"^fraction must be "):
            rotary.partial_rope(x, bad)
    assert torch.equal(rotary.partial_rope(x, np.float32(0.5)), rotary.partial_rope(x, 0.5))  # was refused
    assert {name: int(d * f) for name, (d, f) in rotary.PARTIAL_ROTARY.items()} == {
        "GPT-NeoX-20B (rotary_pct 0.25)": 24,
        "Phi-2 (partial_rotary_factor 0.4)": 32,
    }


def test_pairs_that_turn_within_the_context():
    wavelengths = 2 * math.pi / inverse_frequencies(128, 500000.0)
    assert rotary.pairs_that_turn(128, 500000.0, 8192) == int((wavelengths <= 8192).sum())
    assert rotary.pairs_that_turn(128, 10000.0, 4096) > rotary.pairs_that_turn(128, 500000.0, 4096)


def test_decay_bound_falls_with_distance():
    bound = rotary.decay_bound(np.arange(0, 2000), 128)
    assert bound[0] == pytest.approx((np.arange(1, 65)).mean())  # S_j = j at distance 0
    far, near = bound[1000:].mean(), bound[:50].mean()
    assert far < near / 2
    # lesson 8 quotes the highest point past distance 1,000 at two decimals: it is not below 10.5
    assert 10.5 < bound[1000:].max() < 10.6 and 1000 + bound[1000:].argmax() == 1740
    # the figure's alt text: past the first hundred positions the curve oscillates, its average
    # falling slowly and its peaks near 10
    windows = [bound[start:start + 500] for start in (100, 500, 1000, 1500)]
    means = [window.mean() for window in windows]
    assert all(later < earlier for earlier, later in itertools.pairwise(means))
    assert all(9.5 < window.max() < 11 for window in windows[1:])
    # the bound holds: the real score of any h_j is at most max|h_{j+1} - h_j| * sum_j |S_j|
    h = np.cumsum(random(64, seed=9).numpy()) / 8
    for r in (5, 50, 500):
        score = abs(np.sum(h * np.exp(1j * r * inverse_frequencies(128).numpy())))
        step = np.abs(np.diff(np.append(h, 0))).max()
        assert score <= step * rotary.decay_bound(r, 128) * 64 + 1e-9
