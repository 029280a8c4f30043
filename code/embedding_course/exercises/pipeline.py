"""Exercises of lesson 5, "The combined pipeline", as declarations."""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course import SEED
from embedding_course.batching import encode_batch
from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Fields, Mistake, Number, Values, fmt
from embedding_course.tokens import WordVocabulary

BATCH_VOCAB_TEXTS = ("the cat sat on the mat", "a dog ran")
BATCH_TEXTS = ("the dog sat", "a cat sat on the red mat")
BATCH_MAX_LEN = 5
"""Exercise 1: encode ``BATCH_TEXTS`` with the vocabulary of ``BATCH_VOCAB_TEXTS``, at most 5 tokens."""

SHAPE_TEXTS = ("one two three", "one two three four five six seven eight nine", "one")
SHAPE_MAX_LEN, SHAPE_D_MODEL = 6, 32
"""Exercise 2: the output shape for ``SHAPE_TEXTS``, truncated to 6 tokens, with d_model = 32."""

VARIANCE_VOCAB_SIZE, VARIANCE_D_MODEL = 1000, 256
"""Exercise 3: variance of sqrt(256) * (a default-initialised nn.Embedding(1000, 256)'s weights)."""


def batch_vocabulary() -> WordVocabulary:
    """The vocabulary of exercise 1."""
    return WordVocabulary.from_texts(list(BATCH_VOCAB_TEXTS))


def batch_exercise() -> Exercise:
    """Exercise 1: ``(ids, mask)`` for BATCH_TEXTS, truncated to 5 tokens, padded with <pad>."""
    vocab = batch_vocabulary()
    batch = encode_batch(list(BATCH_TEXTS), vocab, max_len=BATCH_MAX_LEN)
    ids, mask = batch.ids.numpy(), batch.mask.numpy().astype(float)  # (B, T) each
    untruncated = tuple(encode_batch(list(BATCH_TEXTS), vocab).ids.shape)
    padded_with_unk = np.where(mask == 1, ids, vocab.unk_id)
    not_truncated = f"shape {untruncated}: the second text was not truncated to {BATCH_MAX_LEN} tokens."
    return Exercise(
        name="batch",
        answer=Fields(parts=(
            ("ids", Values(expected=ids.tolist(), tolerance=0, whole=True, element="ids",
                           shape_hints=((untruncated, not_truncated),),
                           mistakes=(Mistake(padded_with_unk.tolist(), "the real tokens are right, but "
                                                                       "padding "
                                             f"must use the <pad> ID {vocab.pad_id}, not <unk>."),),
                           otherwise=f"unknown words map to <unk> = {vocab.unk_id}; padding is <pad> = "
                                     f"{vocab.pad_id}.")),
            ("mask", Values(expected=mask.tolist(), tolerance=0, booleans=True, element="mask",
                            shape_hints=((untruncated, not_truncated),),
                            allowed=(0.0, 1.0), allowed_hint="a mask holds only 1 (True) and 0 (False).",
                            mistakes=(Mistake((1 - mask).tolist(), "the mask is inverted: use True/1 "
                                                                   "for real "
                                              "tokens, False/0 for padding."),),
                            otherwise="the mask is 1 exactly where a real (not padding) token sits.")),
        )),
        hint="vocab.encode each text, keep the first 5 IDs, fill the rest with vocab.pad_id; the mask is 1 "
             "where a real token sits.",
        success="Row 0 ends in padding; row 1 lost its last words to truncation.",
        label="The two matrices, rows separated by semicolons",
    )


def output_shape_exercise() -> Exercise:
    """Exercise 2: the (B, T, C) shape of the pipeline's output for SHAPE_TEXTS."""
    vocab = WordVocabulary.from_texts(list(SHAPE_TEXTS))
    expected = (*encode_batch(list(SHAPE_TEXTS), vocab, max_len=SHAPE_MAX_LEN).ids.shape, SHAPE_D_MODEL)
    untruncated = (*encode_batch(list(SHAPE_TEXTS), vocab).ids.shape, SHAPE_D_MODEL)
    return Exercise(
        name="output-shape",
        answer=Values(
            expected=expected, tolerance=0, whole=True, labels=("B", "T", "C"),
            mistakes=(Mistake(untruncated, f"T = {untruncated[1]} is the longest text before truncation; "
                                           f"nothing is kept past {SHAPE_MAX_LEN} tokens."),),
            order_hint=f"the right numbers in the wrong order: batch first, then tokens, then channels: "
                       f"{expected}.",
            otherwise="count the texts, the longest kept length and the width."),
        hint="B is the number of texts, T the longest length after truncation, C = d_model.",
        success=f"The position table contributes (T, C) = ({expected[1]}, {expected[2]}), broadcast over "
                "the batch.",
        label="The shape (B, T, C): three whole numbers separated by commas",
    )


def scaled_variance_exercise() -> Exercise:
    """Exercise 3: variance of the entries of sqrt(256) * nn.Embedding(1000, 256).weight (default init)."""
    torch.manual_seed(SEED)
    table = torch.nn.Embedding(VARIANCE_VOCAB_SIZE, VARIANCE_D_MODEL)
    with torch.no_grad():
        measured = float((table.weight * math.sqrt(VARIANCE_D_MODEL)).var())
        unscaled = float(table.weight.var())
    return Exercise(
        name="scaled-variance",
        answer=Number(expected=measured, tolerance=0.1, relative=True, mistakes=(
            Mistake(unscaled, "1 is what you get with an init of std `d_model ** -0.5`; nn.Embedding's "
                              "default "
                              "is N(0, 1), so the scaled entries have variance `sqrt(d) ** 2 * 1 = d`.",
                    tolerance=0.15),
            Mistake(math.sqrt(measured), f"{fmt(math.sqrt(VARIANCE_D_MODEL))} is the standard deviation; the "
                                         "variance is its square."),
        ), otherwise=f"{{got}} is far off; the entries start with variance 1 and are multiplied by "
                     f"sqrt({VARIANCE_D_MODEL})."),
        hint="nn.Embedding starts from N(0, 1); multiplying by a constant c multiplies the variance by c "
             "squared. Or measure it.",
        success=f"About {VARIANCE_D_MODEL}: the scale multiplies a unit variance by d_model. It keeps the "
                "variance near 1 only with an init of std `d_model ** -0.5`.",
        label="The variance (within 10%)",
    )


check_batch = checker(batch_exercise)
check_output_shape = checker(output_shape_exercise)
check_scaled_variance = checker(scaled_variance_exercise)
