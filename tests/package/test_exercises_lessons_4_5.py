"""The checkers of lessons 4 and 5 accept right answers and explain wrong ones."""

import math

import numpy as np
import pytest
import torch

from embedding_course import batching, positional
from embedding_course.exercises import pipeline as ex5
from embedding_course.exercises import positional as ex4

# ---------------------------------------------------------------- lesson 4


def _row(**options):
    return positional.encode_positions([ex4.ROW_POSITION], ex4.ROW_D_MODEL, device="cpu",
                                       dtype=torch.float64, **options)[0]


def test_pe_row_accepts_the_formula_in_any_container():
    expected = _row()
    assert ex4.check_pe_row(expected)
    assert ex4.check_pe_row(expected.tolist())
    assert ex4.check_pe_row(expected.numpy()[None, :])


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (None, "No answer yet"),
        ("abc", "is text, not a number"),
        ([0.1, 0.2], "give 8 numbers"),
        ("halves", "'halves' layout"),
        ("buggy", "counts every dimension"),
        ("swapped", "swapped"),
        ("degrees", "degrees"),
        ([2.0] * 8, "outside [-1, 1]"),
        ("one_off", "dimension 4"),
    ],
)
def test_pe_row_explains_mistakes(answer, message):
    if answer == "halves":
        answer = _row(layout="halves")
    elif answer == "buggy":
        answer = [math.sin(3 / 10000 ** (2 * j / 8)) if j % 2 == 0 else math.cos(3 / 10000 ** (2 * j / 8))
                  for j in range(8)]
    elif answer == "swapped":
        answer = _row().reshape(-1, 2).flip(-1).reshape(-1)
    elif answer == "degrees":
        answer = positional.encode_positions([3 * math.pi / 180], 8, device="cpu", dtype=torch.float64)[0]
    elif answer == "one_off":
        answer = _row().clone()
        answer[4] += 0.1
    verdict = ex4.check_pe_row(answer)
    assert not verdict
    assert message in str(verdict)


def test_longest_wavelength():
    expected = 2 * math.pi * 10000 ** ((ex4.WAVELENGTH_D_MODEL - 2) / ex4.WAVELENGTH_D_MODEL)
    assert ex4.check_longest_wavelength(expected)
    assert ex4.check_longest_wavelength(torch.tensor(expected))
    assert "d/2 - 1" in str(ex4.check_longest_wavelength(2 * math.pi * 10000))
    assert "`2 * pi` is missing" in str(ex4.check_longest_wavelength(expected / (2 * math.pi)))
    assert not ex4.check_longest_wavelength(12.0)
    assert "one number" in str(ex4.check_longest_wavelength([1.0, 2.0]))
    assert "No answer" in str(ex4.check_longest_wavelength(None))


def test_rotation_block():
    full = positional.rotation_matrix(ex4.ROTATION_OFFSET, ex4.ROTATION_D_MODEL)
    pair = 2 * ex4.ROTATION_PAIR
    block = full[pair:pair + 2, pair:pair + 2]
    assert ex4.check_rotation_block(block)
    assert "transpose" in str(ex4.check_rotation_block(block.T))
    assert "pair 0" in str(ex4.check_rotation_block(full[0:2, 0:2]))
    assert "M[0, 0] is 1 but should be" in str(ex4.check_rotation_block(np.ones((2, 2))))
    assert "the angle should be" in str(ex4.check_rotation_block(positional.rotation_matrix(1, 2)))
    assert "give a 2 x 2 array; got a 3 x 3 array" in str(ex4.check_rotation_block(np.eye(3)))
    assert not ex4.check_rotation_block(None)


# ---------------------------------------------------------------- lesson 5


def _batch_answer():
    batch = batching.encode_batch(list(ex5.BATCH_TEXTS), ex5.batch_vocabulary(), max_len=ex5.BATCH_MAX_LEN)
    return batch.ids, batch.mask


def test_batch_accepts_tensors_and_lists():
    ids, mask = _batch_answer()
    assert ex5.check_batch((ids, mask))
    assert ex5.check_batch((ids.tolist(), mask.int().tolist()))


def test_batch_explains_mistakes():
    ids, mask = _batch_answer()
    vocab = ex5.batch_vocabulary()
    assert "No answer" in str(ex5.check_batch(None))
    assert "pair" in str(ex5.check_batch([1, 2, 3]))
    assert "inverted" in str(ex5.check_batch((ids, ~mask)))
    full = batching.encode_batch(list(ex5.BATCH_TEXTS), vocab)
    assert "not truncated" in str(ex5.check_batch((full.ids, full.mask)))
    wrong_pad = ids.clone()
    wrong_pad[~mask] = vocab.unk_id
    assert f"<pad> ID {vocab.pad_id}" in str(ex5.check_batch((wrong_pad, mask)))
    wrong_token = ids.clone()
    wrong_token[1, 0] = 6
    assert "ids[1, 0]" in str(ex5.check_batch((wrong_token, mask)))


def test_output_shape():
    assert ex5.check_output_shape((3, 6, 32))
    assert ex5.check_output_shape(torch.Size([3, 6, 32]))
    assert "before truncation" in str(ex5.check_output_shape((3, 9, 32)))
    assert "wrong order" in str(ex5.check_output_shape((32, 6, 3)))
    assert "give 3 numbers; got 2 numbers" in str(ex5.check_output_shape((3, 6)))
    assert not ex5.check_output_shape((1, 2, 3))
    assert "No answer" in str(ex5.check_output_shape(None))


def test_scaled_variance():
    torch.manual_seed(0)
    measured = (torch.nn.Embedding(1000, ex5.VARIANCE_D_MODEL).weight * math.sqrt(ex5.VARIANCE_D_MODEL)).var()
    assert ex5.check_scaled_variance(measured)
    assert ex5.check_scaled_variance(256)
    assert "std `d_model ** -0.5`" in str(ex5.check_scaled_variance(1.0))
    assert "standard deviation" in str(ex5.check_scaled_variance(16))
    assert not ex5.check_scaled_variance(1000)
    assert "one number" in str(ex5.check_scaled_variance([1, 2]))
