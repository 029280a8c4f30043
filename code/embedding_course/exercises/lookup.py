"""Exercises of lesson 3, "Dense lookup", as declarations."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Fields, Mapping, Mistake, Number, fmt
from embedding_course.lookup import (
    MIB,
    TinyLanguageModel,
    count_parameters,
    make_embedding,
    model_config,
    row_gradient_norms,
    table_gradient,
)

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


def gradient_rows_exercise() -> Exercise:
    """Exercise 1: ``{row: gradient norm}`` for every row whose gradient is not zero."""
    expected = expected_gradient_norms()
    single = math.sqrt(GRADIENT_DIM)  # the norm of one use: a vector of ones
    uses = Counter(i for row in GRADIENT_IDS for i in row)
    return Exercise(
        name="gradient-rows",
        answer=Mapping(
            expected=tuple(sorted(expected.items())), tolerance=1e-4, relative=True, key="row",
            excluded=((GRADIENT_PADDING, f"row {GRADIENT_PADDING} is the padding row: it is used "
                                         f"{uses[GRADIENT_PADDING]} time(s) but gets no gradient."),),
            mistakes=tuple((row, single, f"row {row} is used {uses[row]} times and the contributions add "
                                         f"up: its norm is {uses[row]} x sqrt({GRADIENT_DIM}).")
                           for row in expected if uses[row] > 1),
            missing="{key} {k} was looked up, so its gradient is not zero; it is missing.",
            extra="{key} {k} was never looked up, so its gradient is zero; leave it out.",
            otherwise="{key} {k}: you gave {got}; count how often it is used and multiply by the norm of "
                      f"one contribution, sqrt({GRADIENT_DIM})."),
        hint="with loss = sum of outputs, each use of a row adds a vector of ones "
             f"(length sqrt({GRADIENT_DIM})) to that row's gradient.",
        success="Only rows that were looked up get a gradient, repeats add up, and the padding row gets "
                "none.",
        label="Each row with a non-zero gradient and its norm, as row: norm pairs separated by commas",
    )


def expected_memory_mib() -> float:
    """Exercise 2: token table + separate output layer of :data:`MEMORY_MODEL` in bf16, in MiB."""
    config = model_config(MEMORY_MODEL)
    return config.vocabulary_parameters * 2 / MIB


def vocabulary_memory_exercise() -> Exercise:
    """Exercise 2: memory in MiB of LLaMA-3-8B's token table and its (untied) output layer, in bf16."""
    config = model_config(MEMORY_MODEL)
    expected = expected_memory_mib()
    return Exercise(
        name="vocabulary-memory",
        answer=Number(expected=expected, tolerance=1e-3, relative=True, mistakes=(
            Mistake(expected / 2, f"that is one table; {MEMORY_MODEL}'s output layer is a second V x C "
                                  "matrix (not tied)."),
            Mistake(expected * 2, "that is fp32 (4 bytes per number); bf16 takes 2 bytes."),
            Mistake(expected * MIB / 1e6, "that is MB (10**6 bytes); a MiB is 2**20 bytes."),
            Mistake(expected / 4, "that is one table in int8; use two tables and 2 bytes per number."),
            Mistake(expected * MIB / 2, "that is the number of parameters, not MiB; multiply by 2 bytes, "
                                        "divide by 2**20."),
        ), otherwise=f"you gave {{got}}\u00a0MiB; compute 2 x V x C x 2 bytes / 2**20 with V = "
                     f"{config.vocab_size:,}, C = {config.dim:,}."),
        hint="V x C numbers per table, two tables (the output layer is not tied), 2 bytes each in bf16, "
             "2**20 bytes per MiB.",
        success=f"{fmt(expected)}\u00a0MiB: {config.vocab_size:,} x {config.dim:,} x 2 tables x 2 bytes.",
        label="The memory in MiB",
    )


def tied_parameters_exercise() -> Exercise:
    """Exercise 3: ``(untied, tied)`` parameter counts of embedding + bias-free output layer."""
    untied = count_parameters(TinyLanguageModel(TYING_VOCAB_SIZE, TYING_DIM, tie_weights=False))
    tied = count_parameters(TinyLanguageModel(TYING_VOCAB_SIZE, TYING_DIM, tie_weights=True))
    return Exercise(
        name="tied-parameters",
        answer=Fields(parts=(
            ("untied", Number(expected=untied, tolerance=0, whole=True, mistakes=(
                Mistake(tied, "that counts one matrix; untied, the output layer is a second V x C matrix."),),
                otherwise=f"two V x C matrices, 2 x {TYING_VOCAB_SIZE} x {TYING_DIM}; you gave {{got}}.")),
            ("tied", Number(expected=tied, tolerance=0, whole=True, mistakes=(
                Mistake(untied, "the output layer reuses the table, so it is counted once."),),
                otherwise=f"one V x C matrix, {TYING_VOCAB_SIZE} x {TYING_DIM}; you gave {{got}}.")),
        )),
        hint="the embedding is V x C; the output layer maps C -> V, so it is another V x C; tying makes "
             "them one tensor.",
        success=f"{untied:,} untied, {tied:,} tied: tying halves the vocabulary's parameters.",
        label="The parameter counts untied, and tied",
    )


check_gradient_rows = checker(gradient_rows_exercise)
check_vocabulary_memory = checker(vocabulary_memory_exercise)
check_tied_parameters = checker(tied_parameters_exercise)
