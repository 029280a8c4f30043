"""Exercises of lesson 8, "Rotary positions in depth", as declarations."""

from __future__ import annotations

import math

import torch

from embedding_course import rope, rope_scaling, rotary
from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Mistake, Number, Words, fmt

WAVE_DIM, WAVE_BASE, WAVE_PAIR = 64, 10000.0, 8
"""Exercise 1: the wavelength of pair 8 of a head of width 64 with base 10,000."""

NTK_DIM, NTK_BASE, NTK_FACTOR = 128, 10000.0, 4.0
"""Exercise 2: the NTK-aware base for a head of width 128, base 10,000, scale factor 4."""

LLAMA_DIM, LLAMA_BASE, LLAMA_PAIR = 128, 500000.0, 32
"""Exercise 3: which of Llama 3.1's rules pair 32 of a LLaMA 3 head falls under."""

LAYOUT_DIM, LAYOUT_LENGTH = 16, 12
"""Exercise 4: the position-error curves are for a head of width 16 over 12 positions."""

CLASSES = ("kept", "blended", "divided")


def wavelength_exercise() -> Exercise:
    """Exercise 1: ``2 pi / theta_i`` for WAVE_PAIR."""
    expected = rotary.wavelength(WAVE_PAIR, WAVE_DIM, WAVE_BASE)
    theta = rotary.theta(WAVE_PAIR, WAVE_DIM, WAVE_BASE)
    no_two = 2 * math.pi * WAVE_BASE ** (WAVE_PAIR / WAVE_DIM)
    channel = 2 * math.pi * WAVE_BASE ** (2 * (2 * WAVE_PAIR) / WAVE_DIM)
    return Exercise(
        name="rope-wavelength",
        answer=Number(
            expected=expected,
            tolerance=1e-3,
            relative=True,
            mistakes=(
                Mistake(
                    theta, "that is θᵢ, the angle per position; the wavelength is 2π/θᵢ.", tolerance=1e-6
                ),
                Mistake(
                    1 / theta, "that is 1/θᵢ; a full turn is 2π radians, so multiply by 2π.", tolerance=1e-3
                ),
                Mistake(
                    no_two,
                    "the exponent is 2i/d, not i/d: i counts pairs, and pair i holds channels 2i and 2i + 1.",
                    tolerance=1e-3,
                ),
                Mistake(
                    channel,
                    "i counts pairs, not channels: pair 8 is channels 16 and 17, and its exponent is 2·8/64.",
                    tolerance=1e-3,
                ),
            ),
            low=0,
            range_hint="a wavelength is a positive number of positions.",
            otherwise="{got} is not 2π · base^(2i/d) for i = 8, d = 64, base 10,000.",
        ),
        hint="θᵢ = base^(−2i/d) radians per position; one turn is 2π radians.",
        success=f"θ₈ = {theta:g}: pair 8 turns once every {expected:.2f} positions.",
        label="The wavelength of pair 8, in positions (within 0.1%)",
    )


def ntk_base_exercise() -> Exercise:
    """Exercise 2: the NTK-aware base ``base * s ** (d / (d - 2))``."""
    expected = rope_scaling.ntk_base(NTK_BASE, NTK_FACTOR, NTK_DIM)
    return Exercise(
        name="ntk-base",
        answer=Number(
            expected=expected,
            tolerance=1e-4,
            relative=True,
            mistakes=(
                Mistake(
                    NTK_BASE * NTK_FACTOR,
                    "that multiplies the base by s; the exponent d/(d − 2) makes the "
                    "slowest pair slow down by exactly s.",
                    tolerance=1e-4,
                ),
                Mistake(
                    NTK_BASE * NTK_FACTOR ** ((NTK_DIM - 2) / NTK_DIM),
                    "the exponent is upside down: d/(d − 2), a little above 1.",
                    tolerance=1e-4,
                ),
                Mistake(
                    NTK_BASE / NTK_FACTOR,
                    "a larger context needs slower pairs, so a larger base, not a smaller one.",
                    tolerance=1e-4,
                ),
            ),
            low=0,
            range_hint="a base is a positive number.",
            otherwise=f"{{got}} is not base · s^(d/(d − 2)) for base {fmt(NTK_BASE)}, s = {NTK_FACTOR:g}, "
            f"d = {NTK_DIM}.",
        ),
        hint="the new base is base · s^(d/(d − 2)); rope_scaling.ntk_base computes it.",
        success=f"{fmt(round(expected))}: the slowest pair now turns {NTK_FACTOR:g} times more slowly, the "
        "fastest not at all.",
        label="The NTK-aware base (within 0.01%)",
    )


def llama_class_exercise() -> Exercise:
    """Exercise 3: kept, blended or divided under Llama 3.1's rule, for LLAMA_PAIR."""
    wave = rotary.wavelength(LLAMA_PAIR, LLAMA_DIM, LLAMA_BASE)
    expected = rope_scaling.llama3_class(wave)
    settings = rope_scaling.LLAMA31
    high = settings["original_len"] / settings["high_freq_factor"]
    low = settings["original_len"] / settings["low_freq_factor"]
    shown = fmt(round(wave))
    others = {
        "kept": f"kept pairs have a wavelength below {fmt(high)} positions; this one's is {shown}.",
        "divided": f"divided pairs have a wavelength above {fmt(low)} positions; this one's is {shown}.",
        "blended": f"blended pairs lie between {fmt(high)} and {fmt(low)} positions; this one's is "
        f"{fmt(round(wave))}.",
    }
    return Exercise(
        name="llama-class",
        answer=Words(
            expected=(expected,),
            choices=CLASSES,
            noun="class",
            mistakes=tuple(Mistake((name,), hint) for name, hint in others.items() if name != expected),
            otherwise="answer kept, blended or divided.",
        ),
        hint="compute the pair's wavelength 2π · base^(2i/d) and compare it with 8192/4 and 8192/1.",
        success=f"Its wavelength is {fmt(round(wave))} positions, so it is {expected}.",
        label="kept, blended or divided",
    )


def layout_error_curves() -> dict[str, list[float]]:
    """Exercise 4: three position-error curves; one of them is the layout bug.

    Each is the size of the difference between queries rotated by the right code and by a
    faulty one, at positions 0 .. LAYOUT_LENGTH - 1, for one random query.
    """
    x = torch.randn(
        LAYOUT_LENGTH, LAYOUT_DIM, generator=torch.Generator().manual_seed(0), dtype=torch.float64
    )
    x = x[:1].expand(LAYOUT_LENGTH, -1)  # one query at every position
    right = rope.apply_rope(x)
    swapped = rope.apply_rope(x, layout="rotate_half")
    off_by_one = rope.apply_rope(x, torch.arange(LAYOUT_LENGTH) + 1)  # positions counted from 1
    order = rotary.layout_permutation(LAYOUT_DIM)
    converted = rope.apply_rope(x[:, order], layout="rotate_half")  # channels permuted: the right conversion
    back = torch.empty_like(converted)
    back[:, order] = converted  # (T, d) in the interleaved order again

    def error(other):
        return [round(float(v), 3) for v in (other - right).norm(dim=-1)]

    return {"A": error(off_by_one), "B": error(swapped), "C": error(back)}


def layout_bug_exercise() -> Exercise:
    """Exercise 4: which curve is the layout bug? Zero at position 0, not zero after it."""
    curves = layout_error_curves()
    return Exercise(
        name="layout-bug",
        answer=Words(
            expected=("B",),
            choices=tuple(curves),
            noun="curve",
            mistakes=(
                Mistake(
                    ("A",),
                    "curve A is not zero at position 0, and every layout leaves "
                    "position 0 unturned: that is a shifted position count.",
                ),
                Mistake(
                    ("C",),
                    "curve C is zero at every position: the two codes agree. "
                    "That is the conversion done right (rows permuted).",
                ),
            ),
            otherwise="answer A, B or C.",
        ),
        hint="position 0 turns by nothing in either layout, so the layout bug is exactly zero there.",
        success="B: zero at position 0, then every pair is rotated with the wrong partner channel.",
        label="A, B or C",
    )


check_wavelength = checker(wavelength_exercise)
check_ntk_base = checker(ntk_base_exercise)
check_llama_class = checker(llama_class_exercise)
check_layout_bug = checker(layout_bug_exercise)
