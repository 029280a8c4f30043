"""Checkers for the exercises of lesson 5, "The combined pipeline"."""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course.batching import encode_batch
from embedding_course.exercises import Feedback, as_array, correct, not_answered, wrong
from embedding_course.tokens import WordVocabulary

BATCH_VOCAB_TEXTS = ("the cat sat on the mat", "a dog ran")
BATCH_TEXTS = ("the dog sat", "a cat sat on the red mat")
BATCH_MAX_LEN = 5
"""Exercise 1: encode ``BATCH_TEXTS`` with the vocabulary of ``BATCH_VOCAB_TEXTS``, at most 5 tokens."""

SHAPE_TEXTS = ("one two three", "one two three four five six seven eight nine", "one")
SHAPE_MAX_LEN, SHAPE_D_MODEL = 6, 32
"""Exercise 2: the output shape for ``SHAPE_TEXTS``, truncated to 6 tokens, with d_model = 32."""

VARIANCE_D_MODEL = 256
"""Exercise 3: variance of sqrt(256) * (a default-initialised nn.Embedding's rows)."""


def batch_vocabulary() -> WordVocabulary:
    """The vocabulary of exercise 1."""
    return WordVocabulary.from_texts(list(BATCH_VOCAB_TEXTS))


def check_batch(answer) -> Feedback:
    """Exercise 1: ``(ids, mask)`` for BATCH_TEXTS, truncated to 5 tokens, padded with <pad>."""
    vocab = batch_vocabulary()
    expected = encode_batch(list(BATCH_TEXTS), vocab, max_len=BATCH_MAX_LEN)
    ids_expected, mask_expected = expected.ids.numpy(), expected.mask.numpy().astype(float)
    if answer is None:
        return not_answered("vocab.encode each text, keep the first 5 IDs, fill the rest with vocab.pad_id; "
                            "the mask is 1 where a real token sits.")
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or len(answer) != 2:
        return wrong("give a pair (ids, mask).")
    ids, mask = as_array(answer[0]), as_array(answer[1])
    if ids is None or mask is None:
        return wrong("ids and mask must both be matrices of numbers (tensors, arrays or nested lists).")
    problems = []
    if ids.shape != ids_expected.shape:
        full = encode_batch(list(BATCH_TEXTS), vocab).ids.shape
        if ids.shape == tuple(full):
            problems.append(f"ids has shape {ids.shape}: the second text was not truncated to "
                            f"{BATCH_MAX_LEN} tokens.")
        else:
            problems.append(f"ids should have shape (B, T) = {ids_expected.shape}, got {ids.shape}.")
    elif not np.array_equal(ids, ids_expected):
        if np.array_equal(np.where(mask_expected == 1, ids, ids_expected), ids_expected):
            problems.append(f"the real tokens are right, but padding must use the <pad> ID {vocab.pad_id}.")
        else:
            row, col = np.argwhere(ids != ids_expected)[0]
            problems.append(f"ids[{row}, {col}] is {ids[row, col]:.0f} but should be "
                            f"{ids_expected[row, col]:.0f} (unknown words map to <unk> = {vocab.unk_id}).")
    if mask.shape != mask_expected.shape:
        problems.append(f"mask should have the shape of ids, {mask_expected.shape}, got {mask.shape}.")
    elif not np.array_equal(mask, mask_expected):
        if np.array_equal(1 - mask, mask_expected):
            problems.append("the mask is inverted: use True/1 for real tokens, False/0 for padding.")
        else:
            problems.append("the mask must be 1 exactly where a real (not padding) token sits.")
    if problems:
        return wrong(*problems)
    return correct("Row 0 ends in padding; row 1 lost its last words to truncation.")


def check_output_shape(answer) -> Feedback:
    """Exercise 2: the (B, T, C) shape of the pipeline's output for SHAPE_TEXTS."""
    lengths = [min(len(text.split()), SHAPE_MAX_LEN) for text in SHAPE_TEXTS]
    expected = (len(SHAPE_TEXTS), max(lengths), SHAPE_D_MODEL)
    if answer is None:
        return not_answered("B is the number of texts, T the longest length after truncation, C = d_model.")
    if torch.is_tensor(answer) or isinstance(answer, torch.Size):
        answer = tuple(answer.tolist()) if torch.is_tensor(answer) else tuple(answer)
    if not isinstance(answer, (tuple, list)) or len(answer) != 3:
        return wrong("give three whole numbers (B, T, C).")
    try:
        got = tuple(int(value) for value in answer)
    except (TypeError, ValueError):
        return wrong("give three whole numbers (B, T, C).")
    if got == expected:
        return correct("The position table contributes (T, C) = "
                       f"({expected[1]}, {expected[2]}), broadcast over the batch.")
    longest = max(len(text.split()) for text in SHAPE_TEXTS)
    if got == (expected[0], longest, expected[2]):
        return wrong(f"T = {longest} is the longest text before truncation; nothing is kept past "
                     f"{SHAPE_MAX_LEN} tokens.")
    if sorted(got) == sorted(expected):
        return wrong("the right numbers in the wrong order: batch first, then tokens, then channels: "
                     f"{expected}.")
    return wrong(f"(B, T, C) is not {got}; count the texts, the longest kept length and the width.")


def check_scaled_variance(answer) -> Feedback:
    """Exercise 3: variance of the entries of sqrt(256) * nn.Embedding(V, 256).weight (default init)."""
    if answer is None:
        return not_answered("nn.Embedding starts from N(0, 1); multiplying by a constant c multiplies the "
                            "variance by c squared. Or measure it.")
    array = as_array(answer)
    if array is None or array.size != 1:
        return wrong("give one number.")
    value = float(array.reshape(()))
    if math.isclose(value, VARIANCE_D_MODEL, rel_tol=0.1):
        return correct(f"About {VARIANCE_D_MODEL}: the scale multiplies a unit variance by d_model. It "
                       "keeps the variance near 1 only with an init of std `d_model ** -0.5`.")
    if math.isclose(value, 1.0, rel_tol=0.15):
        return wrong("1 is what you get with an init of std `d_model ** -0.5`; nn.Embedding's default is "
                     "N(0, 1), so the scaled entries have variance `sqrt(d) ** 2 * 1 = d`.")
    if math.isclose(value, math.sqrt(VARIANCE_D_MODEL), rel_tol=0.1):
        return wrong(f"{math.sqrt(VARIANCE_D_MODEL):.0f} is the standard deviation; the variance is its "
                     "square.")
    return wrong(f"{value:g} is far off; the entries start with variance 1 and are multiplied by "
                 f"sqrt({VARIANCE_D_MODEL}).")
