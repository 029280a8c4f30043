"""Exercises of lesson 4, "Sinusoidal positional encoding", as declarations."""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Mistake, Number, Values, fmt
from embedding_course.positional import encode_positions, inverse_frequencies, rotation_matrix, wavelengths

ROW_POSITION, ROW_D_MODEL = 3, 8
"""Exercise 1: the vector PE(3) of an encoding with d_model = 8 (interleaved, base 10000)."""

BASE = 10000.0
WAVELENGTH_D_MODEL = 128
"""Exercise 2: the longest wavelength of an encoding with d_model = 128 and base 10000."""

ROTATION_D_MODEL, ROTATION_PAIR, ROTATION_OFFSET = 16, 1, 5
"""Exercise 3: the 2x2 block that moves pair i = 1 of a d_model = 16 encoding 5 positions on."""


def _row(position: float, **options) -> np.ndarray:
    return encode_positions([position], ROW_D_MODEL, device="cpu", dtype=torch.float64, **options)[0].numpy()


def _exponent_over_all_dimensions(position: int, d_model: int) -> np.ndarray:
    """The classic mistake: exponent 2*j/d with j running over *all* dimensions, not pairs."""
    j = np.arange(d_model)
    angles = position / 10000 ** (2 * j / d_model)  # (d,)
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))


def pe_row_exercise() -> Exercise:
    """Exercise 1: PE(3) for d_model = 8, interleaved (sin, cos, sin, cos, ...), base 10000."""
    expected = _row(ROW_POSITION)  # (d,)
    return Exercise(
        name="pe-row",
        answer=Values(
            expected=expected.tolist(), tolerance=1e-3, element="dimension",
            mistakes=(
                Mistake(_row(ROW_POSITION, layout="halves").tolist(),
                        "these are the right values in the 'halves' layout (all sines, then all cosines); "
                        "the exercise asks for the interleaved layout: sin, cos, sin, cos, ..."),
                Mistake(_exponent_over_all_dimensions(ROW_POSITION, ROW_D_MODEL).tolist(),
                        f"the exponent counts every dimension (`2 * j / d` for j = 0..{ROW_D_MODEL - 1}); it "
                        "must count pairs: dimensions 2i and 2i+1 share the angle `position / 10000 ** "
                        "(2 * i / d)`."),
                Mistake(expected.reshape(-1, 2)[:, ::-1].reshape(-1).tolist(),
                        "sine and cosine are swapped: even dimensions hold the sine, odd ones the cosine."),
                Mistake(_row(ROW_POSITION * math.pi / 180).tolist(),
                        "the angles were taken in degrees; math.sin and torch.sin expect radians."),
            ),
            low=-1, high=1, range_hint="some values lie outside [-1, 1], which no sine or cosine can give.",
            otherwise="recompute each wrong dimension from its pair's angle."),
        hint=f"pair i uses the angle `{ROW_POSITION} / 10000 ** (2 * i / {ROW_D_MODEL})`; dimension 2i holds "
             "its sine and 2i+1 its cosine.",
        success=f"Dimensions 0-1 turn fastest (angle {ROW_POSITION} rad); the last pair has barely moved "
                "from (0, 1).",
        label=f"The {ROW_D_MODEL} numbers of PE({ROW_POSITION}), separated by commas",
    )


def longest_wavelength_exercise() -> Exercise:
    """Exercise 2: the longest wavelength (in positions) of a d_model = 128, base 10000 encoding."""
    waves = wavelengths(WAVELENGTH_D_MODEL, BASE)
    expected = float(waves[-1])
    return Exercise(
        name="longest-wavelength",
        answer=Number(expected=expected, tolerance=1e-3, relative=True, mistakes=(
            Mistake(2 * math.pi * BASE,  # the exponent 2i/d taken as 1
                    "`2 * pi * 10000` would need the exponent 2i/d = 1, i.e. i = d/2, but the last pair is "
                    "i = d/2 - 1."),
            Mistake(expected / (2 * math.pi), "the factor `2 * pi` is missing: a sine repeats after its "
                                              "angle "
                                              "grows by `2 * pi` radians, not by 1."),
            Mistake(float(waves[-2]), "that is the second-to-last pair; the last pair is i = d/2 - 1."),
        ), otherwise=f"{{got}} is not it; compute `2 * pi * 10000 ** (2 * i / {WAVELENGTH_D_MODEL})` for the "
                     "last pair i."),
        hint="the last pair is i = d_model/2 - 1; its angle grows by `10000 ** (-2 * i / d)` per position, "
             "so it repeats after `2 * pi` divided by that many positions.",
        success=f"{fmt(expected)} positions: a little less than `2 * pi * 10000`, because the last exponent "
                f"is (d-2)/d = {WAVELENGTH_D_MODEL - 2}/{WAVELENGTH_D_MODEL}, not 1.",
        label="The longest wavelength, in positions (within 0.1%)",
    )


def rotation_block_exercise() -> Exercise:
    """Exercise 3: the 2x2 matrix M with [sin, cos] of pair 1 at p+5 = M @ [sin, cos] at p (d_model = 16)."""
    pair = slice(2 * ROTATION_PAIR, 2 * ROTATION_PAIR + 2)
    full = rotation_matrix(ROTATION_OFFSET, ROTATION_D_MODEL).numpy()  # (d, d), block diagonal
    expected = full[pair, pair]
    frequency = float(inverse_frequencies(ROTATION_D_MODEL)[ROTATION_PAIR])
    one_step = rotation_matrix(1, ROTATION_D_MODEL).numpy()[pair, pair]
    return Exercise(
        name="rotation-block",
        answer=Values(
            expected=expected.tolist(), tolerance=1e-4, element="M",
            mistakes=(
                Mistake(expected.T.tolist(), "this is the transpose: it turns the pair backwards (from p+5 "
                                             "to p). With the pair ordered (sin, cos), the first row is "
                                             "(cos wk, sin wk)."),
                Mistake(full[0:2, 0:2].tolist(), "this rotates by the angle of pair 0 (frequency 1); pair 1 "
                                                 f"turns by `10000 ** (-2 / {ROTATION_D_MODEL})` per "
                                                 f"position."),
                Mistake(one_step.tolist(), f"this moves the pair one position on; the offset is "
                                           f"{ROTATION_OFFSET}, so the angle is {ROTATION_OFFSET} times "
                                           f"larger."),
            ),
            low=-1, high=1, range_hint="a rotation holds cosines and sines, all within [-1, 1].",
            otherwise=f"the angle should be `{ROTATION_OFFSET} * 10000 ** (-2 * {ROTATION_PAIR} / "
                      f"{ROTATION_D_MODEL})`; the rows are (cos, sin) and (-sin, cos)."),
        hint="expand sin(w(p+k)) and cos(w(p+k)) with the angle-addition formulas and read off the "
             "coefficients of sin(wp) and cos(wp).",
        success=f"The angle is `k * w_1 = {ROTATION_OFFSET} * {frequency:.4f} = "
                f"{ROTATION_OFFSET * frequency:.4f}` "
                "rad, and no p appears anywhere in the matrix.",
        label="The 2 x 2 matrix M: two rows separated by a semicolon",
    )


check_pe_row = checker(pe_row_exercise)
check_longest_wavelength = checker(longest_wavelength_exercise)
check_rotation_block = checker(rotation_block_exercise)
