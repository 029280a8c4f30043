"""Tests of the sinusoidal encoding, its layouts, its rotation property and learned tables."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from embedding_course import positional

FAST = settings(max_examples=25, deadline=None)
even_widths = st.integers(min_value=1, max_value=48).map(lambda half: 2 * half)
lengths = st.integers(min_value=1, max_value=40)
bases = st.sampled_from([2.0, 10.0, 100.0, 10000.0, 500000.0])


def reference_table(max_len: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """An independent float64 reference, straight from the paper's formula, one number at a time."""
    table = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / math.pow(base, 2 * i / d_model)
            table[pos, 2 * i] = math.sin(angle)
            table[pos, 2 * i + 1] = math.cos(angle)
    return table


# ---------------------------------------------------------------- values


@FAST
@given(max_len=lengths, d_model=even_widths, base=bases)
def test_encoding_matches_the_formula(max_len, d_model, base):
    table = positional.sinusoidal_encoding(max_len, d_model, base, device="cpu", dtype=torch.float64)
    assert table.shape == (max_len, d_model)
    np.testing.assert_allclose(table.numpy(), reference_table(max_len, d_model, base), atol=1e-12)


@pytest.mark.parametrize(("max_len", "d_model"), [(1, 2), (7, 6), (50, 128), (300, 512)])
def test_float32_table_matches_the_reference(max_len, d_model):
    table = positional.sinusoidal_encoding(max_len, d_model, device="cpu")
    assert table.dtype == torch.float32
    np.testing.assert_allclose(table.numpy(), reference_table(max_len, d_model), atol=1e-6)


@pytest.mark.parametrize("layout", positional.LAYOUTS)
@pytest.mark.parametrize(("max_len", "d_model", "base"), [(1, 2, 10000.0), (9, 10, 100.0), (40, 64, 10000.0)])
def test_loop_version_equals_the_vectorised_one(max_len, d_model, base, layout):
    loop = positional.sinusoidal_encoding_loop(max_len, d_model, base, layout)
    fast = positional.sinusoidal_encoding(max_len, d_model, base, layout, device="cpu", dtype=torch.float64)
    assert loop.dtype == torch.float64
    torch.testing.assert_close(loop, fast, atol=1e-12, rtol=0)


@pytest.mark.parametrize("d_model", [2, 8, 512])
def test_row_zero_is_sin_zero_cos_zero(d_model):
    row = positional.sinusoidal_encoding(3, d_model, device="cpu")[0]
    assert row.tolist() == [0.0, 1.0] * (d_model // 2)
    halves = positional.sinusoidal_encoding(3, d_model, layout="halves", device="cpu")[0]
    assert halves.tolist() == [0.0] * (d_model // 2) + [1.0] * (d_model // 2)


@FAST
@given(max_len=st.integers(1, 2000), d_model=even_widths, base=bases)
def test_values_lie_between_minus_one_and_one(max_len, d_model, base):
    table = positional.sinusoidal_encoding(max_len, d_model, base, device="cpu")
    assert float(table.min()) >= -1.0 and float(table.max()) <= 1.0
    if max_len > 5:
        assert float(table.min()) < 0  # not in [0, 1]: the sines go negative


def test_frequencies_count_pairs_not_dimensions():
    """The classic bug uses 2*j/d with j over all d dimensions; then column 2's frequency is base^(-4/d)."""
    d_model, base = 512, 10000.0
    frequencies = positional.inverse_frequencies(d_model, base)
    assert frequencies.shape == (d_model // 2,)
    assert frequencies[1].item() == pytest.approx(base ** (-2 / d_model), rel=1e-12)
    table = positional.sinusoidal_encoding(2, d_model, base, device="cpu", dtype=torch.float64)
    # Column 2 (sin of pair 1) at position 1 is sin(base^(-2/d)); its cosine partner shares the angle.
    assert table[1, 2].item() == pytest.approx(math.sin(base ** (-2 / d_model)), abs=1e-12)
    assert table[1, 3].item() == pytest.approx(math.cos(base ** (-2 / d_model)), abs=1e-12)
    buggy = math.sin(1 / base ** (2 * 2 / d_model))
    assert abs(table[1, 2].item() - buggy) > 0.01
    # The two members of a pair have the same angle: sin^2 + cos^2 = 1 for every pair.
    pairs = table.reshape(2, -1, 2)
    torch.testing.assert_close((pairs ** 2).sum(-1), torch.ones(2, d_model // 2, dtype=torch.float64))


def test_worked_example_for_512_dimensions():
    row = positional.encode_positions([1], 512, device="cpu", dtype=torch.float64)[0]
    assert round(row[2].item(), 3) == 0.822 and round(row[3].item(), 3) == 0.570
    small = positional.encode_positions([1], 8, device="cpu", dtype=torch.float64)[0]
    assert round(small[2].item(), 2) == 0.10 and round(small[3].item(), 3) == 0.995
    table = positional.worked_example_rows(1, (512, 8), 8)
    assert "| 2 (sin, pair 1) | 0.822 | 0.100 |" in table
    assert "| 3 (cos, pair 1) | 0.570 | 0.995 |" in table


def test_wavelengths_run_from_two_pi_to_just_under_two_pi_base():
    waves = positional.wavelengths(512)
    assert waves[0].item() == pytest.approx(2 * math.pi)
    assert waves[-1].item() == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert round(waves[-1].item()) == 60611
    assert waves[-1].item() < 2 * math.pi * 10000 - 2000
    ratios = waves[1:] / waves[:-1]
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (2 / 512)))


def test_encode_positions_extends_the_table_to_any_position():
    table = positional.sinusoidal_encoding(10, 16, device="cpu", dtype=torch.float64)
    far = positional.encode_positions([3, 100000, 2.5], 16, device="cpu", dtype=torch.float64)
    torch.testing.assert_close(far[0], table[3])
    assert far.abs().max() <= 1.0


# ---------------------------------------------------------------- layouts


@FAST
@given(max_len=lengths, d_model=even_widths)
def test_layouts_hold_the_same_values_up_to_a_fixed_channel_permutation(max_len, d_model):
    interleaved = positional.sinusoidal_encoding(max_len, d_model, device="cpu")
    halves = positional.sinusoidal_encoding(max_len, d_model, layout="halves", device="cpu")
    perm = positional.halves_permutation(d_model)
    assert sorted(perm.tolist()) == list(range(d_model))
    assert torch.equal(interleaved[:, perm], halves)


def test_the_permutation_is_sines_then_cosines():
    assert positional.halves_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


# ---------------------------------------------------------------- the rotation property


@FAST
@given(position=st.integers(0, 5000), offset=st.integers(-300, 300), d_model=even_widths, base=bases,
       layout=st.sampled_from(positional.LAYOUTS))
def test_a_fixed_rotation_maps_pe_p_to_pe_p_plus_k(position, offset, d_model, base, layout):
    rotation = positional.rotation_matrix(offset, d_model, base, layout)  # no p in sight
    both = positional.encode_positions([position, position + offset], d_model, base, layout,
                                       device="cpu", dtype=torch.float64)
    torch.testing.assert_close(rotation @ both[0], both[1], atol=1e-9, rtol=0)


@FAST
@given(k1=st.integers(-50, 50), k2=st.integers(-50, 50), d_model=even_widths)
def test_rotations_are_orthogonal_and_compose(k1, k2, d_model):
    r1, r2 = positional.rotation_matrix(k1, d_model), positional.rotation_matrix(k2, d_model)
    eye = torch.eye(d_model, dtype=torch.float64)
    torch.testing.assert_close(r1 @ r1.T, eye, atol=1e-12, rtol=0)
    torch.testing.assert_close(r1 @ r2, positional.rotation_matrix(k1 + k2, d_model), atol=1e-9, rtol=0)


def test_rotation_is_block_diagonal():
    rotation = positional.rotation_matrix(3, 8)
    mask = torch.block_diag(*[torch.ones(2, 2)] * 4).bool()
    assert torch.all(rotation[~mask] == 0)


@pytest.mark.parametrize("layout", positional.LAYOUTS)
def test_rotation_error_is_at_rounding_level(layout):
    assert positional.rotation_error(100, 64, 7, layout=layout) < 1e-12
    for max_len in (0, -2):  # no position p to compare (a torch RuntimeError before)
        with pytest.raises(ValueError, match=r"^max_len must be a whole number >= 1, got "):
            positional.rotation_error(max_len, 8, 5, layout=layout)


@FAST
@given(max_len=st.integers(2, 60), d_model=even_widths)
def test_dot_products_depend_only_on_the_offset(max_len, d_model):
    table = positional.sinusoidal_encoding(max_len, d_model, device="cpu", dtype=torch.float64)
    dots = positional.position_similarity(table, kind="dot")
    assert positional.toeplitz_deviation(dots) < 1e-9
    offsets = torch.arange(max_len)
    angles = offsets[:, None] * positional.inverse_frequencies(d_model)[None, :]  # (K, C/2)
    torch.testing.assert_close(dots[0], torch.cos(angles).sum(dim=1))  # sum_i cos(w_i k)
    torch.testing.assert_close(torch.diagonal(dots), torch.full((max_len,), d_model / 2, dtype=torch.float64))


def test_toeplitz_deviation_sees_a_non_toeplitz_matrix():
    assert positional.toeplitz_deviation(torch.tensor([[1.0, 2.0], [3.0, 5.0]])) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="square"):
        positional.toeplitz_deviation(torch.ones(2, 3))


def test_cosine_similarity_is_one_on_the_diagonal():
    table = torch.randn(10, 6, dtype=torch.float64)
    similarity = positional.position_similarity(table)
    torch.testing.assert_close(torch.diagonal(similarity), torch.ones(10, dtype=torch.float64))
    with pytest.raises(ValueError, match="cosine"):
        positional.position_similarity(table, kind="euclid")


# ---------------------------------------------------------------- naive alternatives


def test_naive_positions():
    assert positional.naive_positions(4).tolist() == [0, 1, 2, 3]
    assert positional.naive_positions(5, "fraction").tolist() == [0, 0.25, 0.5, 0.75, 1.0]
    assert positional.naive_positions(1, "fraction").tolist() == [0.0]
    with pytest.raises(ValueError, match="kind"):
        positional.naive_positions(4, "log")


def test_binary_counter_columns_flip_at_their_own_rate():
    bits = positional.binary_counter(8, 3)
    assert bits[5].tolist() == [1, 0, 1]  # 5 = 101, least significant bit first
    for j in range(3):
        flips = int((bits[1:, j] != bits[:-1, j]).sum())
        assert flips == 8 // 2 ** j - 1


# ---------------------------------------------------------------- position modules


def test_learned_table_has_no_row_past_its_end():
    learned = positional.LearnedPositionalEmbedding(4, 6)
    assert learned(4).shape == (4, 6)
    with pytest.raises(IndexError, match=r"position 4 is past the learned table.*0\.\.3"):
        learned(5)
    with pytest.raises(IndexError, match="position -1 is negative"):
        learned.lookup(torch.tensor([-1]))
    with pytest.raises(ValueError, match="whole numbers"):
        learned.lookup(torch.tensor([0.5]))


def test_learned_table_from_a_pretrained_matrix():
    table = np.arange(12, dtype=np.float32).reshape(3, 4)
    learned = positional.LearnedPositionalEmbedding.from_table(table)
    assert torch.equal(learned(3), torch.from_numpy(table))
    assert not learned.table.weight.requires_grad
    with pytest.raises(ValueError, match="matrix"):
        positional.LearnedPositionalEmbedding.from_table(np.zeros(3))


def test_learned_init_std():
    torch.manual_seed(0)
    learned = positional.LearnedPositionalEmbedding(500, 64, init_std=0.02)
    assert learned.table.weight.std().item() == pytest.approx(0.02, rel=0.05)
    with pytest.raises(ValueError, match="init_std"):
        positional.LearnedPositionalEmbedding(5, 4, init_std=0)


def test_sinusoidal_module_is_defined_past_max_len():
    module = positional.SinusoidalPositionalEncoding(8, 16)
    assert module(5).shape == (5, 16)
    longer = module(20)
    torch.testing.assert_close(longer, positional.sinusoidal_encoding(20, 16, device="cpu"))
    assert "table" not in module.state_dict()  # a fixed buffer, not a learned weight
    assert len(list(module.parameters())) == 0


# ---------------------------------------------------------------- devices


def test_device_is_picked_when_not_given(monkeypatch):
    calls = []

    def fake_pick_device():
        calls.append(1)
        return torch.device("cpu")

    monkeypatch.setattr(positional, "pick_device", fake_pick_device)
    table = positional.sinusoidal_encoding(3, 4)
    assert calls == [1] and table.device.type == "cpu"
    assert positional.sinusoidal_encoding(3, 4, device="cpu").device.type == "cpu"
    assert calls == [1]  # an explicit device is used as given


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(max_len=4, d_model=7), ValueError, "d_model must be even.*got 7"),
        (dict(max_len=0, d_model=8), ValueError, r"max_len must be a whole number >= 1, got 0"),
        (dict(max_len=-3, d_model=8), ValueError, "max_len"),
        (dict(max_len=2.5, d_model=8), ValueError, "max_len"),
        (dict(max_len=True, d_model=8), ValueError, "max_len"),
        (dict(max_len=4, d_model=0), ValueError, "d_model must be a whole number >= 1"),
        (dict(max_len=4, d_model=8, base=0), ValueError, "base must be a finite number > 1, got 0"),
        (dict(max_len=4, d_model=8, base=-10), ValueError, "base"),
        (dict(max_len=4, d_model=8, base=1), ValueError, "base"),
        (dict(max_len=4, d_model=8, base=float("inf")), ValueError, "base"),
        (dict(max_len=4, d_model=8, layout="blocks"), ValueError, "layout must be one of"),
    ],
)
def test_bad_arguments_are_explained(kwargs, error, match):
    with pytest.raises(error, match=match):
        positional.sinusoidal_encoding(device="cpu", **kwargs)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="even"):
        positional.sinusoidal_encoding_loop(3, 5)
    with pytest.raises(ValueError, match="even"):
        positional.rotation_matrix(1, 9)
    with pytest.raises(ValueError, match="offset"):
        positional.rotation_matrix(float("nan"), 8)
    with pytest.raises(ValueError, match="1-D"):
        positional.encode_positions(torch.zeros(2, 2), 8)
    with pytest.raises(ValueError, match="d_model"):
        positional.worked_example_rows(1, (4,), 8)


# ---------------------------------------------------------------- one position against all


def test_similarity_profiles_peak_at_the_chosen_position():
    tables = {"a": torch.randn(20, 8), "b": positional.sinusoidal_encoding(20, 8, device="cpu")}
    profiles = positional.similarity_profiles(tables, 3)
    assert profiles["b"][3] == pytest.approx(1.0)
    with pytest.raises(IndexError, match=r"^position 20 is outside table 'a' \(0\.\.19\)$"):
        positional.similarity_profiles(tables, 20)
    for bad in (1.5, True):  # a torch error; the whole (1, T, T) matrix, silently
        with pytest.raises(ValueError, match=r"^position must be a whole number, got "):
            positional.similarity_profiles(tables, bad)


# ---------------------------------------------------------------- live explorers


def test_live_explorers_build():
    import ipywidgets

    from embedding_course.live import positional as live_positional

    for build in (live_positional.encoding_explorer, live_positional.position_explorer,
                  live_positional.rope_explorer):
        assert isinstance(build(), ipywidgets.Widget)


# ---------------------------------------------------------------- the table, measured


def test_longest_wavelength_grows_with_the_width():
    longest = {d: float(positional.wavelengths(d)[-1]) / (2 * math.pi) for d in (8, 64, 512)}
    assert longest[8] == pytest.approx(1000)
    assert round(longest[64]) == 7499
    assert round(longest[512]) == 9647


def test_position_scores_depend_on_the_offset_only_when_the_weight_commutes_with_rotations():
    table = positional.sinusoidal_encoding(40, 16, device="cpu", dtype=torch.float64)  # (40, 16)
    generator = torch.Generator().manual_seed(0)
    identity = positional.position_scores(table, torch.eye(16))
    assert positional.toeplitz_deviation(identity) < 1e-12
    scale = torch.rand(8, generator=generator, dtype=torch.float64) + 0.5
    angle = torch.rand(8, generator=generator)
    blocks = [s * torch.tensor([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]], dtype=torch.float64)
              for s, a in zip(scale.tolist(), angle.tolist(), strict=True)]  # scaled 2-D rotations commute
    assert positional.toeplitz_deviation(positional.position_scores(table, torch.block_diag(*blocks))) < 1e-12
    learned = torch.randn(16, 16, generator=generator, dtype=torch.float64) / 4
    assert positional.toeplitz_deviation(positional.position_scores(table, learned)) > 1.0
    with pytest.raises(ValueError, match="weight"):
        positional.position_scores(table, torch.eye(8))
