"""One-hot encoding: a token becomes a vector of zeros with a single 1 at its ID.

Every token gets its own axis, so all tokens are equally far apart: distinct tokens have
cosine similarity 0 and distance sqrt(2). The vectors are as long as the vocabulary, and
almost every number in them is zero. Multiplying a one-hot row by a matrix ``W`` picks
one row of ``W``: ``one_hot(ids) @ W == W[ids]``, which is what an embedding lookup does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from embedding_course import checks
from embedding_course.device import to_numpy

BYTES_PER_NUMBER = {"fp32": 4, "bf16": 2, "int8": 1}
"""Bytes for one number in each storage format."""

# Vocabulary sizes of real tokenizers (number of rows of their embedding tables).
TOKENIZER_VOCAB_SIZES = {
    "BERT (WordPiece)": 30_522,
    "LLaMA 2 (SentencePiece)": 32_000,
    "GPT-2 (BPE)": 50_257,
    "LLaMA 3 (BPE)": 128_256,
}


def one_hot(ids, vocab_size: int) -> np.ndarray:
    """One-hot vectors, from scratch in NumPy.

    Args:
        ids: token IDs of any shape, e.g. (T,) or (B, T).
        vocab_size: the length V of each vector.

    Returns:
        float32 array of shape ``ids.shape + (V,)`` with a single 1 per vector.
    """
    ids = checks.token_ids(ids, vocab_size)
    flat = ids.reshape(-1)  # (N,)
    vectors = np.zeros((flat.size, vocab_size), dtype=np.float32)  # (N, V)
    vectors[np.arange(flat.size), flat] = 1.0
    return vectors.reshape(*ids.shape, vocab_size)  # (..., V)


def one_hot_torch(ids, vocab_size: int, device=None) -> torch.Tensor:
    """The same with ``torch.nn.functional.one_hot``, as float32 (it returns int64 by itself)."""
    checked = checks.token_ids(ids, vocab_size)
    if device is None and isinstance(ids, torch.Tensor):
        device = ids.device
    tensor = torch.as_tensor(checked, device=device)
    return torch.nn.functional.one_hot(tensor, num_classes=int(vocab_size)).float()  # (..., V)


def lookup_by_product(ids, table) -> np.ndarray:
    """``one_hot(ids) @ table``: the embedding lookup written as a matrix product.

    Args:
        ids: token IDs of shape (T,) or (B, T).
        table: array of shape (V, C).

    Returns:
        Array of shape ``ids.shape + (C,)``, equal to ``table[ids]``.
    """
    table = to_numpy(table)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (vocab_size, dim), got shape {table.shape}")
    return one_hot(ids, table.shape[0]).astype(table.dtype) @ table  # (..., V) @ (V, C) -> (..., C)


def distance_matrix(vectors) -> np.ndarray:
    """Euclidean distance between every pair of rows: (N, C) -> (N, N)."""
    vectors = checks.array(vectors, "vectors", ndim=2)  # float64
    differences = vectors[:, None, :] - vectors[None, :, :]  # (N, N, C)
    return np.sqrt((differences ** 2).sum(axis=-1))


# ---------------------------------------------------------------- memory

def one_hot_numbers(seq_len: int, vocab_size: int, batch_size: int = 1) -> int:
    """How many numbers a batch of one-hot sequences holds: B x T x V."""
    return (checks.whole(batch_size, "batch_size") * checks.whole(seq_len, "seq_len")
            * checks.whole(vocab_size, "vocab_size"))


def dense_numbers(seq_len: int, dim: int, batch_size: int = 1) -> int:
    """How many numbers the same batch holds as dense vectors of width ``dim``: B x T x C."""
    return (checks.whole(batch_size, "batch_size") * checks.whole(seq_len, "seq_len")
            * checks.whole(dim, "dim"))


def memory_bytes(numbers: int, dtype: str = "fp32") -> int:
    """Bytes needed to store ``numbers`` values in ``dtype`` (``fp32``, ``bf16`` or ``int8``)."""
    checks.one_of(dtype, "dtype", BYTES_PER_NUMBER)
    return checks.whole(numbers, "numbers", minimum=0) * BYTES_PER_NUMBER[dtype]


def memory_table(seq_lens: Sequence[int] = (64, 512, 4096), vocab_sizes: dict[str, int] | None = None,
                 dim: int = 768) -> str:
    """The numbers behind :func:`memory_slider_figure` as a Markdown table: MiB per sequence in fp32.

    Args:
        seq_lens: the sequence lengths T, one row each.
        vocab_sizes: tokenizer name -> vocabulary size, one column each; real tokenizers by default.
        dim: width C of the dense vectors (last column).

    Returns:
        Markdown text; show it with ``IPython.display.Markdown``.
    """
    from embedding_course.tables import markdown_table

    vocab_sizes = checks.named(TOKENIZER_VOCAB_SIZES if vocab_sizes is None else vocab_sizes, "vocab_sizes",
                               "vocabulary size", checks.whole)
    seq_lens = checks.many(seq_lens, "seq_lens", "sequence length", checks.whole)
    mib = 2 ** 20
    headers = ["T", *[f"one-hot, {name}" for name in vocab_sizes], f"dense (C = {dim})"]
    rows = []
    for seq_len in seq_lens:
        one_hot_mib = [f"{memory_bytes(one_hot_numbers(seq_len, size)) / mib:,.1f}"
                       for size in vocab_sizes.values()]
        rows.append([f"{seq_len:,}", *one_hot_mib, f"{memory_bytes(dense_numbers(seq_len, dim)) / mib:,.2f}"])
    return markdown_table(headers, rows)


# ---------------------------------------------------------------- figures


