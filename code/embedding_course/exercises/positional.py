"""Checkers for the exercises of lesson 4, "Sinusoidal positional encoding"."""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course.exercises import Feedback, as_array, as_number, correct, not_answered, wrong
from embedding_course.positional import encode_positions, inverse_frequencies, wavelengths

ROW_POSITION, ROW_D_MODEL = 3, 8
"""Exercise 1: the vector PE(3) of an encoding with d_model = 8 (interleaved, base 10000)."""

WAVELENGTH_D_MODEL = 128
"""Exercise 2: the longest wavelength of an encoding with d_model = 128 and base 10000."""

ROTATION_D_MODEL, ROTATION_PAIR, ROTATION_OFFSET = 16, 1, 5
"""Exercise 3: the 2x2 block that moves pair i = 1 of a d_model = 16 encoding 5 positions on."""


def _buggy_row(position: int, d_model: int) -> np.ndarray:
    """The classic mistake: exponent 2*j/d with j running over *all* dimensions."""
    row = np.zeros(d_model)
    for j in range(d_model):
        angle = position / 10000 ** (2 * j / d_model)
        row[j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return row


def check_pe_row(answer) -> Feedback:
    """Exercise 1: PE(3) for d_model = 8, interleaved (sin, cos, sin, cos, ...), base 10000."""
    expected = encode_positions([ROW_POSITION], ROW_D_MODEL, device="cpu", dtype=torch.float64)[0].numpy()
    if answer is None:
        return not_answered(f"pair i uses the angle `{ROW_POSITION} / 10000 ** (2 * i / {ROW_D_MODEL})`; "
                            "dimension 2i holds its sine and 2i+1 its cosine.")
    array = as_array(answer)
    if array is None:
        return wrong("the answer is not a vector of numbers; give a list, an array or a tensor.")
    array = array.reshape(-1) if array.ndim == 2 and 1 in array.shape else array
    if array.shape != expected.shape:
        return wrong(f"give {ROW_D_MODEL} numbers (one per dimension), got shape {array.shape}.")
    if np.allclose(array, expected, atol=1e-3):
        return correct(f"Dimensions 0-1 turn fastest (angle {ROW_POSITION} rad); the last pair has barely "
                       "moved from (0, 1).")
    halves = encode_positions([ROW_POSITION], ROW_D_MODEL, layout="halves", device="cpu",
                              dtype=torch.float64)[0].numpy()
    if np.allclose(array, halves, atol=1e-3):
        return wrong("these are the right values in the 'halves' layout (all sines, then all cosines); "
                     "the exercise asks for the interleaved layout: sin, cos, sin, cos, ...")
    if np.allclose(array, _buggy_row(ROW_POSITION, ROW_D_MODEL), atol=1e-3):
        return wrong("the exponent counts every dimension (`2 * j / d` for j = 0..7); it must count "
                     "pairs: dimensions 2i and 2i+1 share the angle `position / 10000 ** (2 * i / d)`.")
    swapped = expected.reshape(-1, 2)[:, ::-1].reshape(-1)
    if np.allclose(array, swapped, atol=1e-3):
        return wrong("sine and cosine are swapped: even dimensions hold the sine, odd ones the cosine.")
    degrees = encode_positions([ROW_POSITION * math.pi / 180], ROW_D_MODEL, device="cpu",
                               dtype=torch.float64)[0].numpy()
    if np.allclose(array, degrees, atol=1e-3):
        return wrong("the angles were taken in degrees; math.sin and torch.sin expect radians.")
    if np.abs(array).max() > 1 + 1e-9:
        return wrong("some values lie outside [-1, 1], which no sine or cosine can give.")
    worst = int(np.abs(array - expected).argmax())
    return wrong(f"dimension {worst} is {array[worst]:.4f} but should be {expected[worst]:.4f}; "
                 "recompute its pair's angle.")


def check_longest_wavelength(answer) -> Feedback:
    """Exercise 2: the longest wavelength (in positions) of a d_model = 128, base 10000 encoding."""
    expected = float(wavelengths(WAVELENGTH_D_MODEL)[-1])
    if answer is None:
        return not_answered("the last pair is i = d_model/2 - 1; its angle grows by "
                            "`10000 ** (-2 * i / d)` per position, so it repeats after `2 * pi` divided "
                            "by that many positions.")
    value = as_number(answer)
    if value is None:
        return wrong("give one number (the wavelength in positions).")
    if math.isclose(value, expected, rel_tol=1e-3):
        return correct(f"{expected:,.0f} positions: a little less than `2 * pi * 10000`, because the "
                       f"last exponent is (d-2)/d = {WAVELENGTH_D_MODEL - 2}/{WAVELENGTH_D_MODEL}, not 1.")
    if math.isclose(value, 2 * math.pi * 10000, rel_tol=1e-3):
        return wrong("`2 * pi * 10000` would need the exponent 2i/d = 1, i.e. i = d/2, but the last "
                     "pair is i = d/2 - 1.")
    if math.isclose(value, expected / (2 * math.pi), rel_tol=1e-3):
        return wrong("the factor `2 * pi` is missing: a sine repeats after its angle grows by "
                     "`2 * pi` radians, not by 1.")
    return wrong(f"{value:,.1f} is not it; compute `2 * pi * 10000 ** (2 * i / {WAVELENGTH_D_MODEL})` "
                 "for the last pair i.")


def check_rotation_block(answer) -> Feedback:
    """Exercise 3: the 2x2 matrix M with [sin, cos] of pair 1 at p+5 = M @ [sin, cos] at p (d_model = 16)."""
    frequency = float(inverse_frequencies(ROTATION_D_MODEL)[ROTATION_PAIR])
    angle = ROTATION_OFFSET * frequency
    expected = np.array([[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]])
    if answer is None:
        return not_answered("expand sin(w(p+k)) and cos(w(p+k)) with the angle-addition formulas and read "
                            "off the coefficients of sin(wp) and cos(wp).")
    array = as_array(answer)
    if array is None or array.shape != (2, 2):
        return wrong(f"give a 2x2 matrix, got {None if array is None else array.shape}.")
    if np.allclose(array, expected, atol=1e-4):
        return correct(f"The angle is `k * w_1 = {ROTATION_OFFSET} * {frequency:.4f} = {angle:.4f}` rad, "
                       "and no p appears anywhere in the matrix.")
    if np.allclose(array, expected.T, atol=1e-4):
        return wrong("this is the transpose: it turns the pair backwards (from p+5 to p). With the pair "
                     "ordered (sin, cos), the first row is (cos wk, sin wk).")
    other = ROTATION_OFFSET * float(inverse_frequencies(ROTATION_D_MODEL)[0])  # pair 0's angle
    pair_zero = [[math.cos(other), math.sin(other)], [-math.sin(other), math.cos(other)]]
    if np.allclose(array, pair_zero, atol=1e-4):
        return wrong("this rotates by the angle of pair 0 (frequency 1); pair 1 turns by "
                     f"`10000 ** (-2 / {ROTATION_D_MODEL})` per position.")
    if not np.allclose(array @ array.T, np.eye(2), atol=1e-4):
        return wrong("the matrix is not a rotation (its rows are not orthonormal); a rotation keeps "
                     "sin^2 + cos^2 = 1.")
    return wrong(f"a rotation, but by the wrong angle; the angle should be `{ROTATION_OFFSET} * "
                 f"10000 ** (-2 * {ROTATION_PAIR} / {ROTATION_D_MODEL})`.")
