"""Checkers for the exercises of lesson 3, "Dense lookup"."""

from __future__ import annotations

import math

import numpy as np

from embedding_course.exercises import Feedback, correct, not_answered, number_pair, wrong
from embedding_course.lookup import MIB, make_embedding, model_config, row_gradient_norms, table_gradient

GRADIENT_IDS = [[4, 2, 4], [4, 0, 7]]
GRADIENT_VOCAB_SIZE, GRADIENT_DIM, GRADIENT_PADDING = 8, 3, 0
"""Exercise 1: a batch (2, 3) through an nn.Embedding(8, 3, padding_idx=0); loss = sum of outputs."""

MEMORY_MODEL = "LLaMA-3-8B"
"""Exercise 2: the memory of this model's token table plus its output layer, in bf16."""

TYING_VOCAB_SIZE, TYING_DIM = 1000, 64
"""Exercise 3: parameters of embedding + output layer (no bias), untied and tied."""


def expected_gradient_norms() -> dict[int, float]:
    """The per-row gradient norms of exercise 1, computed with PyTorch: {row: norm} for non-zero rows."""
    embedding = make_embedding(GRADIENT_VOCAB_SIZE, GRADIENT_DIM, padding_idx=GRADIENT_PADDING, device="cpu")
    norms = row_gradient_norms(table_gradient(embedding, GRADIENT_IDS))
    return {int(row): float(norms[row]) for row in np.flatnonzero(norms)}


def check_gradient_rows(answer) -> Feedback:
    """Exercise 1: ``{row: gradient norm}`` for every row whose gradient is not zero."""
    expected = expected_gradient_norms()
    if answer is None:
        return not_answered("with loss = sum of outputs, each use of a row adds a vector of ones "
                            f"(length sqrt({GRADIENT_DIM})) to that row's gradient.")
    if not isinstance(answer, dict):
        return wrong("give a dict {row: gradient norm}, e.g. {5: 1.0}.")
    if not all(isinstance(row, (int, np.integer)) and not isinstance(row, bool) for row in answer):
        return wrong("the keys must be row numbers (whole numbers), e.g. {5: 1.0}.")
    problems = []
    if GRADIENT_PADDING in answer and answer[GRADIENT_PADDING] != 0:
        problems.append(f"row {GRADIENT_PADDING} is the padding row: it is used once but gets no gradient.")
    answered = {int(row): value for row, value in answer.items() if value != 0}
    answered.pop(GRADIENT_PADDING, None)
    for row in sorted(set(expected) - set(answered)):
        problems.append(f"row {row} was looked up, so its gradient is not zero; it is missing.")
    for row in sorted(set(answered) - set(expected)):
        if row != GRADIENT_PADDING:
            problems.append(f"row {row} was never looked up, so its gradient is zero; leave it out.")
    for row in sorted(set(answered) & set(expected)):
        try:
            value = float(answered[row])
        except (TypeError, ValueError):
            problems.append(f"the norm of row {row} must be a number.")
            continue
        if not math.isclose(value, expected[row], rel_tol=1e-4):
            single = math.sqrt(GRADIENT_DIM)
            if math.isclose(value, single, rel_tol=1e-4):
                uses = round(expected[row] / single)
                problems.append(f"row {row} is used {uses} times and the contributions add up: "
                                f"its norm is {uses} x sqrt({GRADIENT_DIM}).")
            else:
                problems.append(f"row {row}: you gave {value:.4f}; count how often it is used and multiply "
                                f"by the norm of one contribution, sqrt({GRADIENT_DIM}).")
    if problems:
        return wrong(*problems)
    return correct("Only rows that were looked up get a gradient, repeats add up, and the padding "
                   "row gets none.")


def expected_memory_mib() -> float:
    """Exercise 2: token table + separate output layer of :data:`MEMORY_MODEL` in bf16, in MiB."""
    config = model_config(MEMORY_MODEL)
    return config.vocabulary_parameters * 2 / MIB


def check_vocabulary_memory(answer) -> Feedback:
    """Exercise 2: memory in MiB of LLaMA-3-8B's token table and its (untied) output layer, in bf16."""
    config = model_config(MEMORY_MODEL)
    expected = expected_memory_mib()
    if answer is None:
        return not_answered("V x C numbers per table, two tables (the output layer is not tied), "
                            "2 bytes each in bf16, 2**20 bytes per MiB.")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return wrong(f"give one number (MiB); got {type(answer).__name__}.")
    if math.isclose(value, expected, rel_tol=1e-3):
        return correct(f"{expected:,.0f} MiB: {config.vocab_size:,} x {config.dim:,} x 2 tables x 2 bytes.")
    hints = {
        expected / 2: "that is one table; LLaMA-3-8B's output layer is a second V x C matrix (not tied).",
        expected * 2: "that is fp32 (4 bytes per number); bf16 takes 2 bytes.",
        expected * MIB / 1e6: "that is MB (10**6 bytes); a MiB is 2**20 bytes.",
        expected / 4: "that is one table in int8; use two tables and 2 bytes per number.",
        expected * MIB / 2: "that is the number of parameters, not MiB; multiply by 2 bytes, "
                            "divide by 2**20.",
    }
    for wrong_value, hint in hints.items():
        if math.isclose(value, wrong_value, rel_tol=1e-3):
            return wrong(hint)
    return wrong(f"you gave {value:,.1f} MiB; compute 2 x V x C x 2 bytes / 2**20 with V = "
                 f"{config.vocab_size:,}, C = {config.dim:,}.")


def check_tied_parameters(answer) -> Feedback:
    """Exercise 3: ``(untied, tied)`` parameter counts of embedding + bias-free output layer."""
    table = TYING_VOCAB_SIZE * TYING_DIM
    if answer is None:
        return not_answered("the embedding is V x C; the output layer maps C -> V, so it is another V x C; "
                            "tying makes them one tensor.")
    pair = number_pair(answer, "(parameters untied, parameters tied)", whole=True)
    if isinstance(pair, Feedback):
        return pair
    untied, tied = pair
    problems = []
    if untied != 2 * table:
        problems.append(f"untied: two V x C matrices, 2 x {TYING_VOCAB_SIZE} x {TYING_DIM}; "
                        f"you gave {untied:,}.")
    if tied != table:
        if tied == 2 * table:
            problems.append("tied: the output layer reuses the table, so it is counted once.")
        else:
            problems.append(f"tied: one V x C matrix, {TYING_VOCAB_SIZE} x {TYING_DIM}; you gave {tied:,}.")
    if problems:
        return wrong(*problems)
    return correct(f"{2 * table:,} untied, {table:,} tied: tying halves the vocabulary's parameters.")
