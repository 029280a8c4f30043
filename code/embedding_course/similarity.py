"""Cosine similarity: how alike two embedding vectors point, whatever their lengths.

cos(u, v) = u . v / (|u| |v|) lies in [-1, 1]: 1 for vectors pointing the same way,
0 for perpendicular ones, -1 for opposite ones. Everything here is plain NumPy and
vectorised, so one query against 400,000 rows is a single matrix-vector product. This is
the package's one cosine similarity: other modules (one-hot vectors, position tables, the
toy training run) call :func:`cosine_similarity_matrix`.

The zero-vector rule: a zero vector has no direction, so its cosine is undefined.

* Vectors the caller chose (the rows given to :func:`cosine_similarity_matrix`, ``u`` and
  ``v``, a query, a direction) must not be zero: a ``ValueError`` names the zero row.
* Rows of a large table searched by :func:`cosine_scores` score 0 when they are zero
  (nothing is like a vector that points nowhere), so one empty row cannot stop a search.

Float32 input is computed in float32 (a large table is not copied); anything else in float64.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from embedding_course import checks


def row_norms(vectors, name: str = "vectors") -> np.ndarray:
    """The Euclidean length of every row, shape (N,)."""
    matrix = checks.vectors(vectors, name)
    return np.sqrt(np.einsum("nd,nd->n", matrix, matrix, dtype=np.float64)).astype(matrix.dtype)


def unit_rows(vectors, name: str = "vectors") -> np.ndarray:
    """Each row divided by its length, so every row has length 1. A zero row is an error."""
    matrix = checks.vectors(vectors, name)
    norms = row_norms(matrix)
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ValueError(f"{name} row {int(zero[0])} is all zeros; cosine similarity needs a direction")
    return matrix / norms[:, None]


def cosine_similarity(u, v) -> float:
    """The cosine of the angle between two vectors of the same length."""
    u, v = checks.vectors(u, "u", ndim=1), checks.vectors(v, "v", ndim=1)
    if u.shape != v.shape:
        raise ValueError(f"u has length {u.shape[0]} but v has length {v.shape[0]}; they must match")
    length = float(np.linalg.norm(u)) * float(np.linalg.norm(v))
    if length == 0:
        raise ValueError("a zero vector has no direction; cosine similarity is undefined")
    return float(np.dot(u.astype(np.float64), v.astype(np.float64)) / length)


def cosine_similarity_matrix(vectors, others=None) -> np.ndarray:
    """Cosine similarity of every row of ``vectors`` with every row of ``others``.

    Args:
        vectors: array of shape (N, d).
        others: array of shape (M, d); by default ``vectors`` itself.

    Returns:
        Array of shape (N, M) with values in [-1, 1] (the diagonal is 1 when ``others`` is None).
    """
    left = unit_rows(vectors, "vectors")  # (N, d)
    right = left if others is None else unit_rows(others, "others")  # (M, d)
    if left.shape[1] != right.shape[1]:
        raise ValueError(f"vectors have {left.shape[1]} dimensions but others have {right.shape[1]}")
    scores = left @ right.T  # (N, M)
    return np.clip(scores, -1.0, 1.0)


def cosine_scores(table, query, table_norms=None) -> np.ndarray:
    """Cosine similarity of a query vector, or of each of several, with every row of a (possibly huge) table.

    Args:
        table: array of shape (V, d), e.g. a memory-mapped embedding table.
        query: vector of shape (d,), or several queries of shape (n, d).
        table_norms: the row lengths of ``table``, shape (V,), if already known (they are
            worth caching: computing them reads the whole table).

    Returns:
        Array of shape (V,) for one query, (n, V) for several.
    """
    several = np.ndim(query) == 2
    queries = np.atleast_2d(checks.vectors(query, "query", ndim=2 if several else 1))  # (n, d)
    table = checks.array(table, "table", ndim=2, keep_float32=True)  # (V, d); float32 is not copied
    if table.shape[1] != queries.shape[1]:
        raise ValueError(f"query has {queries.shape[1]} dimensions but the table rows have {table.shape[1]}")
    query_norms = row_norms(queries, "query")  # (n,)
    zero = np.flatnonzero(query_norms == 0)
    if zero.size:
        which = f"query row {int(zero[0])}" if several else "the query"
        raise ValueError(f"{which} is a zero vector; it has no direction to compare")
    if table_norms is None:
        norms = row_norms(table, "table")  # (V,)
    else:
        norms = checks.vectors(table_norms, "table_norms", ndim=1)  # (V,)
    if norms.shape != (table.shape[0],):
        raise ValueError(f"table_norms has shape {norms.shape}, expected ({table.shape[0]},)")
    negative = np.flatnonzero(norms < 0)
    if negative.size:
        raise ValueError(f"table_norms must be >= 0 (row lengths), got {float(norms[negative[0]])} "
                         f"in row {int(negative[0])}")
    dots = queries.astype(table.dtype) @ table.T  # (n, V)
    scores = dots / (query_norms[:, None] * np.maximum(norms, np.finfo(np.float32).tiny)[None, :])  # (n, V)
    broken = np.flatnonzero(~np.isfinite(scores).all(axis=0))  # given norms: the table was not scanned
    if broken.size:
        raise ValueError(f"table row {int(broken[0])} holds NaN or infinite values")
    return scores if several else scores[0]


def top_k(scores, k: int, exclude: Iterable[int] = ()) -> np.ndarray:
    """The indices of the ``k`` highest scores, best first (ties: lower index first).

    Args:
        scores: 1-D array of scores.
        k: how many to return, at least 1 (fewer if there are not enough scores left).
        exclude: indices that may not be returned (e.g. the query word itself).

    Returns:
        Integer array of shape (min(k, available),).
    """
    scores = checks.vectors(scores, "scores", ndim=1)
    k = checks.whole(k, "k")
    excluded = np.fromiter((int(i) for i in exclude), dtype=np.int64)
    if excluded.size and (excluded.min() < 0 or excluded.max() >= scores.shape[0]):
        raise IndexError(f"exclude holds an index outside 0..{scores.shape[0] - 1}")
    masked = scores.astype(np.float64, copy=True)
    masked[excluded] = -np.inf
    available = scores.shape[0] - np.unique(excluded).size
    k = int(min(k, available))
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    candidates = np.argpartition(-masked, k - 1)[:k] if k < masked.shape[0] else np.arange(masked.shape[0])
    # Sort the k candidates by score (descending), breaking ties by index, so results are deterministic.
    # Ties at the k-th place could leave out a lower index; widen to every index with that score.
    threshold = masked[candidates].min()
    candidates = np.flatnonzero(masked >= threshold)
    order = np.lexsort((candidates, -masked[candidates]))
    return candidates[order][:k].astype(np.int64)


def direction_scores(vectors, direction) -> np.ndarray:
    """The cosine of each row with one direction (e.g. ``he - she``), shape (N,).

    Positive values lean towards the direction's positive end, negative ones towards its
    negative end; 0 means the row is perpendicular to it.
    """
    matrix = unit_rows(vectors, "vectors")  # (N, d)
    direction = checks.vectors(direction, "direction", ndim=1)
    if direction.shape[0] != matrix.shape[1]:
        raise ValueError(f"direction has {direction.shape[0]} dimensions but vectors have {matrix.shape[1]}")
    length = float(np.linalg.norm(direction))
    if length == 0:
        raise ValueError("direction is a zero vector; give two different words or vectors")
    return matrix @ (direction / length).astype(matrix.dtype)  # (N,)


def pairwise_cosine_spread(vectors) -> tuple[float, float]:
    """Mean and standard deviation of the cosine of every pair of distinct rows.

    For random vectors in ``d`` dimensions the mean is about 0, but one pair's cosine
    scatters around it with standard deviation about ``1 / sqrt(d)`` (0.25 for d = 16):
    "nearly perpendicular" only on average, and more so the higher ``d``.

    Returns:
        ``(mean, std)`` over the N (N - 1) / 2 pairs; needs N >= 2 rows.
    """
    matrix = cosine_similarity_matrix(vectors)  # (N, N)
    if matrix.shape[0] < 2:
        raise ValueError(f"vectors must have at least 2 rows to form a pair, got {matrix.shape[0]}")
    pairs = matrix[np.triu_indices(matrix.shape[0], k=1)]  # (N (N - 1) / 2,)
    return float(pairs.mean()), float(pairs.std())
