"""One-hot vectors: built from scratch and with torch, their geometry, memory, and the bridge."""

import math

import numpy as np
import plotly.graph_objects as go
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from matplotlib.figure import Figure

from embedding_course import one_hot as oh
from embedding_course.figures import one_hot as one_hot_figures
from embedding_course.similarity import cosine_similarity_matrix


def id_arrays(vocab_size: int):
    return hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6),
                      elements=st.integers(0, vocab_size - 1))


def test_one_hot_small_example():
    expected = np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]], dtype=np.float32)
    result = oh.one_hot([2, 0, 2], 4)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, expected)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40).flatmap(lambda v: st.tuples(st.just(v), id_arrays(v))))
def test_one_hot_has_one_one_in_the_right_place(case):
    vocab_size, ids = case
    vectors = oh.one_hot(ids, vocab_size)
    assert vectors.shape == (*ids.shape, vocab_size)
    assert (vectors.sum(axis=-1) == 1).all()
    assert (vectors.argmax(axis=-1) == ids).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40).flatmap(lambda v: st.tuples(st.just(v), id_arrays(v))))
def test_torch_version_equals_numpy_version(case):
    vocab_size, ids = case
    result = oh.one_hot_torch(torch.as_tensor(ids), vocab_size)
    assert result.dtype == torch.float32
    np.testing.assert_array_equal(result.numpy(), oh.one_hot(ids, vocab_size))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 30).flatmap(lambda v: st.tuples(st.just(v), id_arrays(v))),
       st.integers(1, 9), st.integers(0, 2 ** 31 - 1))
def test_lookup_equals_one_hot_product_exactly(case, dim, seed):
    vocab_size, ids = case
    table = np.random.default_rng(seed).standard_normal((vocab_size, dim)).astype(np.float32)
    product = oh.lookup_by_product(ids, table)  # (..., C)
    assert product.shape == (*ids.shape, dim)
    assert np.array_equal(product, table[ids])  # bit for bit, not approximately
    torch_product = oh.one_hot_torch(ids, vocab_size) @ torch.from_numpy(table)
    assert torch.equal(torch_product, torch.from_numpy(table)[torch.as_tensor(ids)])


def test_distinct_tokens_have_cosine_zero_and_distance_sqrt2():
    vectors = oh.one_hot([3, 1, 4, 1, 5], 8)
    cosine = cosine_similarity_matrix(vectors)
    distance = oh.distance_matrix(vectors)
    same = np.array([3, 1, 4, 1, 5])[:, None] == np.array([3, 1, 4, 1, 5])[None, :]
    np.testing.assert_array_equal(cosine[same], 1.0)
    np.testing.assert_array_equal(cosine[~same], 0.0)
    np.testing.assert_array_equal(distance[same], 0.0)
    np.testing.assert_allclose(distance[~same], math.sqrt(2), rtol=0, atol=1e-12)


def test_cosine_and_distance_of_known_vectors():
    vectors = np.array([[1.0, 0.0], [1.0, 1.0], [-2.0, 0.0]])
    cosine = cosine_similarity_matrix(vectors)
    assert cosine[0, 1] == pytest.approx(1 / math.sqrt(2))
    assert cosine[0, 2] == pytest.approx(-1.0)
    assert oh.distance_matrix(vectors)[1, 2] == pytest.approx(math.sqrt(10))


def test_cosine_accepts_tensors():
    assert cosine_similarity_matrix(torch.eye(3)).tolist() == np.eye(3).tolist()


def test_memory_of_a_gpt2_sequence():
    numbers = oh.one_hot_numbers(512, 50_257)
    assert numbers == 25_731_584  # 25.7 M numbers
    assert oh.memory_bytes(numbers, "fp32") == 4 * numbers
    assert oh.memory_bytes(numbers, "bf16") == 2 * numbers
    assert oh.one_hot_numbers(512, 50_257, batch_size=8) == 8 * numbers
    assert oh.dense_numbers(512, 768) == 393_216


def test_memory_slider_figure_has_one_state_per_length():
    seq_lens = (128, 512, 2048)
    figure = one_hot_figures.memory_slider_figure(seq_lens=seq_lens, active_seq_len=512)
    assert isinstance(figure, go.Figure)
    assert len(figure.layout.sliders[0].steps) == 3
    assert len(figure.data) == 2 * len(seq_lens)
    visible = [bool(trace.visible) for trace in figure.data]
    assert visible == [False, False, True, True, False, False]
    gpt2 = list(figure.data[2].x).index("GPT-2 (BPE)")
    assert figure.data[2].y[gpt2] == pytest.approx(25_731_584 * 4 / 2 ** 20, rel=1e-6)
    assert "25.7 M" not in figure.layout.title.text or "512" in figure.layout.title.text
    # Every state differs from the others (the slider must change the figure).
    heights = [tuple(np.round(figure.data[i].y, 3)) for i in range(0, len(figure.data), 2)]
    assert len(set(heights)) == len(seq_lens)


def test_similarity_figure_is_one_figure_with_two_panels():
    figure = one_hot_figures.similarity_figure(["a", "b"], oh.one_hot([0, 1], 2))
    assert isinstance(figure, Figure)
    assert len([axes for axes in figure.axes if axes.get_title()]) == 2


# ---------------------------------------------------------------- bad inputs

@pytest.mark.parametrize(("ids", "error", "message"), [
    ([], ValueError, "token ids are empty"),
    (np.zeros((2, 0), dtype=int), ValueError, "token ids are empty"),
    ([1, 10], IndexError, r"token id 10 is outside the vocabulary \(0..9\)"),
    ([[1, 2], [3, 12]], IndexError, r"token id 12 is outside the vocabulary \(0..9\)"),
    ([-1, 2], IndexError, "token id -1 is negative; the vocabulary runs from 0 to 9"),
    ([1.5, 2], ValueError, "token ids must be whole numbers, got 1.5"),
    ([1.0, 2.0], ValueError, "token ids must have an integer dtype, got float64"),
    (["cat"], ValueError, "got 'cat'.*turn words into ids with a vocabulary first"),
    ([True, False], ValueError, "token ids must be whole numbers, got booleans"),
    ([[1, 2], [3]], ValueError, "rectangular array"),
    (torch.tensor([1, 11]), IndexError, "token id 11 is outside"),
])
def test_bad_ids_are_clear_errors(ids, error, message):
    with pytest.raises(error, match=message):
        oh.one_hot(ids, 10)
    with pytest.raises(error, match=message):
        oh.one_hot_torch(ids, 10)


@pytest.mark.parametrize(("vocab_size", "message"), [
    (0, "vocab_size must be a whole number >= 1"), (-5, "vocab_size must be a whole number >= 1"),
    (3.0, "vocab_size must be a whole number"), (True, "vocab_size must be a whole number"),
])
def test_bad_vocab_size_is_a_clear_error(vocab_size, message):
    with pytest.raises(ValueError, match=message):
        oh.one_hot([0], vocab_size)


def test_lookup_by_product_rejects_a_table_that_is_not_2d():
    with pytest.raises(ValueError, match=r"table must have shape \(vocab_size, dim\), got shape \(4,\)"):
        oh.lookup_by_product([0], np.zeros(4))


def test_lookup_by_product_rejects_ids_past_the_table():
    with pytest.raises(IndexError, match=r"token id 4 is outside the vocabulary \(0..3\)"):
        oh.lookup_by_product([4], np.zeros((4, 2)))


@pytest.mark.parametrize("vectors", [np.zeros(3), np.zeros((0, 3))])
def test_similarity_rejects_bad_shapes(vectors):
    with pytest.raises(ValueError, match="must be a non-empty 2-D array"):
        cosine_similarity_matrix(vectors)
    with pytest.raises(ValueError, match="must be a non-empty 2-D array"):
        oh.distance_matrix(vectors)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: oh.one_hot_numbers(0, 10), "seq_len must be a whole number >= 1"),
    (lambda: oh.one_hot_numbers(5, 0), "vocab_size must be a whole number >= 1"),
    (lambda: oh.one_hot_numbers(5, 10, batch_size=1.5), "batch_size must be a whole number >= 1"),
    (lambda: oh.dense_numbers(5, 0), "dim must be a whole number >= 1"),
    (lambda: oh.memory_bytes(10, "fp64"), "dtype must be one of fp32, bf16, int8, got 'fp64'"),
    (lambda: oh.memory_bytes(-1), "numbers must be a whole number >= 0"),
    (lambda: one_hot_figures.memory_slider_figure(seq_lens=(64,), active_seq_len=512),
     "active_seq_len 512 is not one"),
    (lambda: one_hot_figures.memory_slider_figure(seq_lens=()), "seq_lens is empty"),
    (lambda: one_hot_figures.memory_slider_figure(vocab_sizes={}), "vocab_sizes is empty"),
    (lambda: one_hot_figures.similarity_figure(["a"], np.eye(2)), "1 token labels for 2 vectors"),
])
def test_bad_arguments_are_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_table_may_be_a_trainable_weight():
    weight = torch.nn.Embedding(5, 3).weight  # a Parameter: NumPy cannot read it as it is
    expected = weight.detach().numpy()[[4, 0, 4]]
    assert np.array_equal(oh.lookup_by_product([4, 0, 4], weight), expected)
    assert isinstance(one_hot_figures.bridge_figure([4, 0, 4], weight), Figure)


def test_memory_table_gives_the_figures_numbers():
    table = oh.memory_table(seq_lens=(512,), vocab_sizes={"GPT-2": 50_257}, dim=768)
    header, _, row = table.splitlines()
    assert header.split(" | ")[1:] == ["one-hot, GPT-2", "dense (C = 768) |"]
    mib = 2 ** 20
    expected_one_hot = oh.memory_bytes(oh.one_hot_numbers(512, 50_257)) / mib
    assert row == f"| 512 | {expected_one_hot:,.1f} | {512 * 768 * 4 / mib:,.2f} |"


@pytest.mark.parametrize(("kwargs", "message"), [(dict(seq_lens=()), "seq_lens is empty"),
                                                  (dict(vocab_sizes={}), "vocab_sizes is empty")])
def test_memory_table_rejects_empty_inputs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        oh.memory_table(**kwargs)
