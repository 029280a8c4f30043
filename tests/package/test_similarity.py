"""Cosine similarity helpers: values, shapes, top-k order and bad inputs."""

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from embedding_course import similarity

finite_rows = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)),
                     elements=st.floats(-10, 10, allow_nan=False, width=64))


def test_cosine_similarity_of_known_vectors():
    assert similarity.cosine_similarity([1, 0], [0, 1]) == pytest.approx(0.0)
    assert similarity.cosine_similarity([1, 1], [2, 2]) == pytest.approx(1.0)
    assert similarity.cosine_similarity([1, 0], [-3, 0]) == pytest.approx(-1.0)
    assert similarity.cosine_similarity([3, 4], [4, 3]) == pytest.approx(24 / 25)


@settings(max_examples=25, deadline=None)
@given(finite_rows)
def test_matrix_is_symmetric_bounded_with_unit_diagonal(matrix):
    assume(np.all(np.linalg.norm(matrix, axis=1) > 1e-6))
    scores = similarity.cosine_similarity_matrix(matrix)
    assert scores.shape == (matrix.shape[0], matrix.shape[0])
    np.testing.assert_allclose(scores, scores.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(scores), 1.0, atol=1e-9)
    assert scores.min() >= -1.0 and scores.max() <= 1.0


@settings(max_examples=25, deadline=None)
@given(finite_rows, st.floats(0.1, 100))
def test_cosine_ignores_length(matrix, factor):
    assume(np.all(np.linalg.norm(matrix, axis=1) > 1e-3))
    np.testing.assert_allclose(similarity.cosine_similarity_matrix(matrix * factor),
                               similarity.cosine_similarity_matrix(matrix), atol=1e-9)


def test_matrix_against_others_and_torch_input():
    left = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    right = np.array([[1.0, 1.0], [0.0, -1.0], [5.0, 0.0]])
    scores = similarity.cosine_similarity_matrix(left, right)
    assert scores.shape == (2, 3)
    np.testing.assert_allclose(scores, [[2 ** -0.5, 0, 1], [2 ** -0.5, -1, 0]], atol=1e-6)


def test_cosine_scores_match_the_matrix_version():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(50, 8)).astype(np.float32)
    query = rng.normal(size=8).astype(np.float32)
    expected = similarity.cosine_similarity_matrix(query[None, :], table)[0]
    np.testing.assert_allclose(similarity.cosine_scores(table, query), expected, atol=1e-5)
    np.testing.assert_allclose(similarity.cosine_scores(table, query, similarity.row_norms(table)),
                               expected, atol=1e-5)


def test_cosine_scores_of_several_queries_are_one_row_each():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(50, 8)).astype(np.float32)  # (V, d)
    queries = rng.normal(size=(3, 8)).astype(np.float32)  # (n, d)
    scores = similarity.cosine_scores(table, queries)
    assert scores.shape == (3, 50)
    np.testing.assert_allclose(scores, similarity.cosine_similarity_matrix(queries, table), atol=1e-5)
    for row, query in zip(scores, queries, strict=True):
        np.testing.assert_allclose(row, similarity.cosine_scores(table, query), atol=1e-6)
    queries[1] = 0.0
    with pytest.raises(ValueError, match=r"^query row 1 is a zero vector; it has no direction to compare$"):
        similarity.cosine_scores(table, queries)


@pytest.mark.parametrize("table", [
    np.array([[1, 0], [0, 1], [0, 0]]),  # ints: the query must not be cast to int
    [[1, 0], [0, 1], [0, 0]],
    torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], requires_grad=True),
])
def test_cosine_scores_read_any_table(table):
    query = np.array([0.5, 0.9])
    expected = [0.5 / np.linalg.norm(query), 0.9 / np.linalg.norm(query), 0.0]  # a zero row scores 0
    np.testing.assert_allclose(similarity.cosine_scores(table, query), expected, rtol=1e-6)


@pytest.mark.parametrize(("table", "table_norms", "message"), [
    ([1.0, 0.0], None, r"^table must be a non-empty 2-D array, got shape \(2,\)$"),
    (np.zeros((0, 2)), None, r"^table must be a non-empty 2-D array, got shape \(0, 2\)$"),
    (np.eye(2), [1.0, np.nan], "^table_norms holds NaN or infinite values"),
    (np.eye(2), [1.0, -1.0], r"^table_norms must be >= 0 \(row lengths\), got -1\.0 in row 1$"),
    (np.array([[1.0, 0.0], [np.nan, 1.0]]), None, "^table holds NaN or infinite values"),
    (np.array([[1.0, 0.0], [np.inf, 1.0]]), [1.0, 1.0], "^table row 1 holds NaN or infinite values"),
])
def test_cosine_scores_check_the_table_and_its_norms(table, table_norms, message):
    with pytest.raises(ValueError, match=message):
        similarity.cosine_scores(table, [1.0, 0.0], table_norms)


def test_top_k_orders_best_first_and_breaks_ties_by_index():
    scores = np.array([0.1, 0.9, 0.5, 0.9, -0.2])
    assert similarity.top_k(scores, 3).tolist() == [1, 3, 2]
    assert similarity.top_k(scores, 2, exclude=[1]).tolist() == [3, 2]
    assert similarity.top_k(scores, 10).tolist() == [1, 3, 2, 0, 4]  # fewer than k available
    assert similarity.top_k(scores, 3, exclude=range(5)).tolist() == []


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(1, 40), elements=st.floats(-1, 1, allow_nan=False)),
       st.integers(1, 10))
def test_top_k_agrees_with_a_full_sort(scores, k):
    expected = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    assert similarity.top_k(scores, k).tolist() == expected


def test_direction_scores_sign():
    vectors = np.array([[1.0, 0.1], [-2.0, 0.0], [0.0, 3.0]])
    scores = similarity.direction_scores(vectors, np.array([1.0, 0.0]))
    assert scores[0] > 0.9 and scores[1] == pytest.approx(-1.0) and scores[2] == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: similarity.cosine_similarity([1, 2], [1, 2, 3]), ValueError, "length 2 but v has length 3"),
        (lambda: similarity.cosine_similarity([0, 0], [1, 2]), ValueError, "zero vector"),
        (lambda: similarity.cosine_similarity_matrix(np.zeros((0, 3))), ValueError, "empty"),
        (lambda: similarity.cosine_similarity_matrix([1.0, 2.0]), ValueError, "2-D array"),
        (lambda: similarity.cosine_similarity_matrix([[1.0, np.nan]]), ValueError, "NaN"),
        (lambda: similarity.cosine_similarity_matrix([[1.0, 0], [0, 0]]), ValueError, "row 1 is all zeros"),
        (lambda: similarity.cosine_similarity_matrix(np.eye(2), np.eye(3)), ValueError, "2 dimensions"),
        (lambda: similarity.cosine_scores(np.eye(3), [1.0, 0.0]), ValueError, "2 dimensions but the table"),
        (lambda: similarity.cosine_scores(np.eye(3), [0.0, 0.0, 0.0]), ValueError, "zero vector"),
        (lambda: similarity.cosine_scores(np.eye(3), [1.0, 0, 0], np.ones(2)), ValueError, "table_norms"),
        (lambda: similarity.top_k([0.1, 0.2], 0), ValueError, "k must be a whole number >= 1"),
        (lambda: similarity.top_k([0.1, 0.2], 1.5), ValueError, "k must be"),
        (lambda: similarity.top_k([0.1, 0.2], 1, exclude=[2]), IndexError, "outside 0..1"),
        (lambda: similarity.direction_scores(np.eye(2), [0.0, 0.0]), ValueError, "zero vector"),
    ],
)
def test_bad_inputs_give_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_random_vectors_are_perpendicular_on_average_but_scatter_by_one_over_root_d():
    generator = np.random.default_rng(0)
    for dim in (16, 256):
        mean, std = similarity.pairwise_cosine_spread(generator.standard_normal((400, dim)))
        assert abs(mean) < 0.01
        assert std == pytest.approx(dim ** -0.5, rel=0.05)  # 0.25 for d = 16
    with pytest.raises(ValueError, match="2 rows"):
        similarity.pairwise_cosine_spread(np.ones((1, 3)))
