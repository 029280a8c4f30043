"""Exercises of lesson 2, "One-hot encoding", as declarations."""

from __future__ import annotations

from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Fields, Mistake, Number, Values, fmt
from embedding_course.one_hot import (
    distance_matrix,
    memory_bytes,
    one_hot,
    one_hot_numbers,
)
from embedding_course.similarity import cosine_similarity_matrix

ONE_HOT_IDS = [2, 0, 3, 2]
ONE_HOT_VOCAB_SIZE = 5
"""Exercise 1: the one-hot matrix of ``ONE_HOT_IDS`` over a vocabulary of ``ONE_HOT_VOCAB_SIZE``."""

MEMORY_BATCH, MEMORY_SEQ_LEN, MEMORY_VOCAB_SIZE = 8, 1024, 50_257
"""Exercise 2: a batch of 8 sequences of 1,024 tokens over GPT-2's vocabulary, in fp32."""

MIB = 2 ** 20


def one_hot_exercise() -> Exercise:
    """Exercise 1: the one-hot matrix of :data:`ONE_HOT_IDS` over :data:`ONE_HOT_VOCAB_SIZE` tokens."""
    expected = one_hot(ONE_HOT_IDS, ONE_HOT_VOCAB_SIZE)  # (T, V)
    rows, columns = expected.shape
    return Exercise(
        name="one-hot",
        answer=Values(
            expected=expected.tolist(), tolerance=0, element="answer",
            shape_hints=(((columns, rows), f"that shape is transposed: one row per token ({rows} tokens), "
                                           f"one column per vocabulary entry ({columns})."),),
            allowed=(0.0, 1.0), allowed_hint="a one-hot matrix holds only 0s and 1s; some entries are "
                                             "other numbers.",
            otherwise="each row has a single 1, in the column given by its ID."),
        hint=f"start from np.zeros({expected.shape}) and set one 1 per row, in the column given by the ID.",
        success="Rows 0 and 3 are identical, because they encode the same token (ID 2).",
        label=f"The {rows} x {columns} matrix: one row per token, rows separated by semicolons",
    )


def one_hot_memory_exercise() -> Exercise:
    """Exercise 2: ``(numbers, mib)`` for a one-hot batch of 8 x 1,024 tokens over 50,257 entries, fp32."""
    numbers = one_hot_numbers(MEMORY_SEQ_LEN, MEMORY_VOCAB_SIZE, batch_size=MEMORY_BATCH)
    size = memory_bytes(numbers, "fp32")
    one_byte = memory_bytes(numbers, "int8")
    return Exercise(
        name="one-hot-memory",
        answer=Fields(parts=(
            ("numbers", Number(expected=numbers, tolerance=1e-3, relative=True, mistakes=(
                Mistake(numbers / MEMORY_BATCH, "the count is for one sequence; multiply by the batch "
                                                f"size {MEMORY_BATCH}."),
                Mistake(size, "the count looks like bytes (x 4); count numbers, not bytes."),
            ), otherwise=f"the count should be B x T x V = {MEMORY_BATCH} x {MEMORY_SEQ_LEN} x "
                         f"{MEMORY_VOCAB_SIZE:,}; you gave {{got}}.")),
            ("MiB", Number(expected=size / MIB, tolerance=1e-3, relative=True, mistakes=(
                Mistake(size / 1e6, "the size is in MB (10**6 bytes); a MiB is 2**20 = 1,048,576 bytes."),
                Mistake(one_byte / MIB, "the size counts 1 byte per number; fp32 takes 4 bytes per number."),
                Mistake(size / MIB / MEMORY_BATCH, f"the size is for one sequence; the batch holds "
                                                   f"{MEMORY_BATCH}."),
            ), otherwise="the size should be numbers x 4 bytes / 2**20; you gave {got}\u00a0MiB.")),
        )),
        hint="numbers = B x T x V; each fp32 number takes 4 bytes; 1\u00a0MiB is 2**20 bytes.",
        success=f"{numbers:,} numbers, {fmt(size / MIB)}\u00a0MiB, and only "
                f"{MEMORY_BATCH * MEMORY_SEQ_LEN:,} of them are 1.",
        label="The count of numbers, and the size in MiB",
    )


def one_hot_geometry_exercise() -> Exercise:
    """Exercise 3: ``(cosine, distance)`` between the one-hot vectors of two *different* tokens."""
    pair = one_hot([0, 1], 2)  # two different tokens
    cosine = float(cosine_similarity_matrix(pair)[0, 1])
    distance = float(distance_matrix(pair)[0, 1])
    return Exercise(
        name="one-hot-geometry",
        answer=Fields(parts=(
            ("cosine", Number(expected=cosine, tolerance=1e-6, mistakes=(
                Mistake(1.0, "cosine 1 is for the same token twice; two different tokens share no non-zero "
                             "position, so their dot product is 0."),),
                otherwise="the cosine should be 0 (the dot product is 0), got {got}.")),
            ("distance", Number(expected=distance, tolerance=5e-3, mistakes=(  # 1.41 or 1.414
                Mistake(distance ** 2, "that is the squared distance; take the square root."),),
                otherwise="the vectors differ by +1 and -1 in two positions: distance sqrt(1 + 1); "
                          "got {got}.")),
        )),
        hint="the two vectors share no non-zero position; the distance squares two differences of 1.",
        success="Cosine 0 and distance sqrt(2) for every pair of different tokens: one-hot says nothing "
                "about which tokens are alike.",
        label="The cosine similarity, and the Euclidean distance",
    )


check_one_hot = checker(one_hot_exercise)
check_one_hot_memory = checker(one_hot_memory_exercise)
check_one_hot_geometry = checker(one_hot_geometry_exercise)
