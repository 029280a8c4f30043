"""Exercises of "Questions learners ask", as declarations."""

from __future__ import annotations

import math

import torch

from embedding_course import pretrained
from embedding_course.batching import position_ids_from_mask
from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Mistake, Number, Values, fmt
from embedding_course.pipeline import norm_ratio
from embedding_course.positional import pairs_slower_than

SCALE_D_MODEL = 384
"""Exercise 1: MiniLM's width; how long would its token vectors be, over sqrt(384), against positions?"""

SLOW_HEAD_DIM, SLOW_BASE, SLOW_CONTEXT = 128, 500_000.0, 32_768
"""Exercise 2: pairs of a 128-wide RoPE head, base 500,000, that turn less than once in 32,768 positions."""

QUOTED_CONTEXT = 8192
"""Exercise 2: the context whose count question 5 quotes just above the exercise (LLaMA's)."""

PADDING_MASK = (0, 0, 0, 1, 1, 1, 1)
"""Exercise 3: a left-padded sequence's mask; give the corrected position ids."""


def scaled_ratio_exercise() -> Exercise:
    """Exercise 1: MiniLM's token-to-position length ratio if its tokens were divided by sqrt(384)."""
    tokens, positions = pretrained.bert_token_table(), pretrained.bert_position_table()
    unscaled = norm_ratio(tokens, positions)
    expected = norm_ratio(tokens, positions, 1 / math.sqrt(SCALE_D_MODEL))
    return Exercise(
        name="scaled-ratio",
        answer=Number(expected=expected, tolerance=0.02, relative=True, low=0, mistakes=(
            Mistake(unscaled, "that is the ratio as MiniLM has it, without the scale; divide the token "
                              f"lengths by sqrt({SCALE_D_MODEL}).", tolerance=0.02),
            Mistake(unscaled * math.sqrt(SCALE_D_MODEL), "you multiplied by the square root, as the paper "
                                                         "does; this question divides by it.",
                    tolerance=0.02),
            Mistake(unscaled / SCALE_D_MODEL, f"you divided by {SCALE_D_MODEL}; the factor is its square "
                                              "root.", tolerance=0.02),
            Mistake(1 / expected, "that is a position vector's length over a token vector's; divide the "
                                  "token length by the position length.", tolerance=0.02),
        ), otherwise="you gave {got}; take the mean row length of each table, divide the tokens' by "
                     f"sqrt({SCALE_D_MODEL}), then divide by the positions'."),
        hint="mean length of a token row divided by sqrt(384), over the mean length of a position row "
             "(pipeline.norm_ratio does it, with a scale of 1 / sqrt(384)).",
        success=f"About {fmt(expected)}: a position vector would be about {1 / expected:.1f} times as long "
                "as a token vector and would drown it, as the short answer says.",
        label="The ratio (within 2%)",
    )


def slow_pairs_exercise() -> Exercise:
    """Exercise 2: how many pairs of a (128, base 500,000) head turn less than once in SLOW_CONTEXT tokens."""
    expected = pairs_slower_than(SLOW_CONTEXT, SLOW_HEAD_DIM, SLOW_BASE)
    with_ten_thousand = pairs_slower_than(SLOW_CONTEXT, SLOW_HEAD_DIM, 10_000.0)
    quoted = pairs_slower_than(QUOTED_CONTEXT, SLOW_HEAD_DIM, SLOW_BASE)  # the page's answer just above
    pairs = SLOW_HEAD_DIM // 2
    return Exercise(
        name="slow-pairs",
        answer=Number(expected=expected, tolerance=0, whole=True, low=0, high=pairs, mistakes=(
            Mistake(pairs - expected, "that counts the pairs that do complete a turn; count those whose "
                                      "wavelength is longer than the context."),
            Mistake(with_ten_thousand, "that is the count with base 10,000; this head uses 500,000."),
            Mistake(quoted, f"that is the count for {QUOTED_CONTEXT:,} tokens, the context of question 5's "
                            f"answer; this head runs on {SLOW_CONTEXT:,}."),
        ), range_hint=f"a head of width {SLOW_HEAD_DIM} has {pairs} pairs.",
            otherwise=f"you gave {{got}}; count the pairs i with 2*pi*500000**(2i/128) > {SLOW_CONTEXT}."),
        hint=f"a pair's wavelength is 2*pi*base**(2i/d); count the i (0..63) where it exceeds "
             f"{SLOW_CONTEXT:,} (positional.wavelengths helps).",
        success=f"{expected} of {pairs}: with base 10,000 only {with_ten_thousand} would be that slow.",
        label="The number of pairs",
    )


def padded_positions_exercise() -> Exercise:
    """Exercise 3: the corrected position ids for the left-padded mask ``PADDING_MASK``."""
    mask = torch.tensor(PADDING_MASK)
    expected = tuple(position_ids_from_mask(mask).tolist())
    width = len(PADDING_MASK)
    return Exercise(
        name="padded-positions",
        answer=Values(expected=expected, tolerance=0, whole=True, element="position id", mistakes=(
            Mistake(tuple(range(width)), "that is arange(T), the uncorrected ids: the first word would get "
                                         f"position {PADDING_MASK.index(1)}."),
            Mistake(tuple(mask.cumsum(0).tolist()), "off by one: the first real token is position 0, "
                                                    "so subtract 1 from the running count."),
        ), low=0, range_hint="position ids are never negative (clamp the padded slots to 0).",
            otherwise="the first real token is position 0, the next 1, and so on; padded slots get 0."),
        hint="count the real tokens so far (a cumulative sum of the mask), minus one, and clamp at 0.",
        success="The words now sit at positions 0, 1, 2, ... as they did without padding.",
        label=f"The {width} position ids, separated by commas",
    )


check_scaled_ratio = checker(scaled_ratio_exercise)
check_slow_pairs = checker(slow_pairs_exercise)
check_padded_positions = checker(padded_positions_exercise)
