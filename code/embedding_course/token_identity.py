"""Does adding a position vector hide which token it was added to?

A transformer's input is ``token vector + position vector``. This module measures how much
of the token's identity survives the sum, on any pair of tables (e.g. MiniLM's real ones):

* :func:`token_recovery`: for each position and token, is the token still the nearest row
  of the token table (by cosine) to ``token + position``?
* :func:`subspace_share`: how much of one table's variance lies in the top principal
  directions of another, against ``k / d`` for a random subspace.
* :func:`concatenation_as_sum`: concatenating ``[token; position]`` is adding
  ``[token; 0] + [0; position]`` in a space twice as wide.
"""

from __future__ import annotations

import numpy as np
import torch

from embedding_course import checks
from embedding_course.similarity import unit_rows


def _table(values, name: str) -> np.ndarray:
    return checks.vectors(values, name)  # (N, C), with a clear error for anything else


def token_recovery(token_table, position_table, token_ids, positions, chunk: int = 4096) -> np.ndarray:
    """Whether each token is still its own nearest neighbour after a position vector is added.

    For every position ``p`` and token ``t`` the query is ``token_table[t] + position_table[p]``;
    it counts as recovered when, among *all* rows of the token table, the one with the largest
    cosine similarity to the query is row ``t``.

    Args:
        token_table: (V, C) token vectors.
        position_table: (P, C) position vectors of the same width.
        token_ids: the tokens to test, shape (N,).
        positions: the positions to test, shape (M,).
        chunk: queries per matrix product (memory only; the result does not depend on it).

    Returns:
        Array of shape (M, N): the nearest token's id for each position and token.
    """
    tokens = _table(token_table, "token_table")
    places = _table(position_table, "position_table")
    if tokens.shape[1] != places.shape[1]:
        raise ValueError(f"the tables must have the same width, got {tokens.shape[1]} (tokens) "
                         f"and {places.shape[1]} (positions)")
    ids = checks.token_ids(token_ids, tokens.shape[0], ndim=1, of="the token table")  # (N,)
    where = checks.token_ids(positions, places.shape[0], ndim=1, name="position",
                             of="the position table")  # (M,)
    checks.whole(chunk, "chunk")
    keys = torch.from_numpy(unit_rows(tokens).astype(np.float32))  # (V, C)
    queries = tokens[ids][None, :, :] + places[where][:, None, :]  # (M, N, C)
    queries = torch.from_numpy(unit_rows(queries.reshape(-1, tokens.shape[1])).astype(np.float32))  # (M*N, C)
    nearest = torch.cat([(part @ keys.T).argmax(dim=1) for part in queries.split(chunk)])  # (M*N,)
    return nearest.numpy().reshape(where.size, ids.size)


def principal_directions(table, k: int) -> np.ndarray:
    """The ``k`` leading principal directions of a table's rows (centred), shape (k, C), float64."""
    matrix = _table(table, "table").astype(np.float64)
    k = checks.whole(k, "k")
    if k > min(matrix.shape):
        raise ValueError(f"k must be at most {min(matrix.shape)} for a table of shape {matrix.shape}, "
                         f"got {k}")
    centred = matrix - matrix.mean(axis=0)  # (N, C)
    _, directions = np.linalg.eigh(centred.T @ centred)  # ascending; columns are directions
    return directions[:, ::-1][:, :k].T  # (k, C), the largest variance first


def subspace_share(table, directions) -> float:
    """Share of the (centred) variance of ``table`` that lies in the span of ``directions``.

    ``directions`` are orthonormal rows (k, C), e.g. from :func:`principal_directions`. A random
    k-dimensional subspace of a C-dimensional space holds about ``k / C`` of it.
    """
    matrix = _table(table, "table").astype(np.float64)
    basis = _table(directions, "directions").astype(np.float64)
    if basis.shape[1] != matrix.shape[1]:
        raise ValueError(f"directions have width {basis.shape[1]}, the table {matrix.shape[1]}")
    centred = matrix - matrix.mean(axis=0)
    return float(np.linalg.norm(centred @ basis.T) ** 2 / np.linalg.norm(centred) ** 2)


def concatenation_as_sum(token, position) -> tuple[np.ndarray, np.ndarray]:
    """``[token; position]`` and ``[token; 0] + [0; position]``: the same vector, built two ways."""
    token = checks.vectors(token, "token", ndim=1)
    position = checks.vectors(position, "position", ndim=1)
    concatenated = np.concatenate([token, position])  # (C_t + C_p,)
    padded_token = np.concatenate([token, np.zeros_like(position)])
    padded_position = np.concatenate([np.zeros_like(token), position])
    return concatenated, padded_token + padded_position
