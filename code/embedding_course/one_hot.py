"""One-hot encoding: a token becomes a vector of zeros with a single 1 at its ID.

Every token gets its own axis, so all tokens are equally far apart: distinct tokens have
cosine similarity 0 and distance sqrt(2). The vectors are as long as the vocabulary, and
almost every number in them is zero. Multiplying a one-hot row by a matrix ``W`` picks
one row of ``W``: ``one_hot(ids) @ W == W[ids]``, which is what an embedding lookup does.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.patches
import numpy as np
import plotly.graph_objects as go
import torch
from matplotlib.figure import Figure

from embedding_course import plotting
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


def check_vocab_size(vocab_size) -> int:
    """Return ``vocab_size`` as an int, or raise if it is not a whole number >= 1."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(f"vocab_size must be a whole number, got {vocab_size!r}")
    if vocab_size < 1:
        raise ValueError(f"vocab_size must be at least 1 (one row per token), got {vocab_size}")
    return int(vocab_size)


def check_token_ids(ids, vocab_size) -> np.ndarray:
    """Check token IDs and return them as an int64 NumPy array of the same shape.

    Args:
        ids: a whole number, a (nested) list, a NumPy array or a torch tensor of whole numbers.
        vocab_size: the number of tokens; valid IDs are ``0 .. vocab_size - 1``.

    Raises:
        ValueError: empty input, a non-integer value, or a bad ``vocab_size``.
        IndexError: an ID that is negative or not below ``vocab_size``.
    """
    vocab_size = check_vocab_size(vocab_size)
    if isinstance(ids, torch.Tensor):
        ids = ids.detach().cpu().numpy()
    try:
        array = np.asarray(ids)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"token ids must form a rectangular array (equal-length rows): {error}") from None
    if array.size == 0:
        raise ValueError("token ids are empty; give at least one id")
    if array.dtype == bool:
        raise ValueError("token ids must be whole numbers, got booleans")
    if not np.issubdtype(array.dtype, np.integer):
        if np.issubdtype(array.dtype, np.floating) and np.all(np.isfinite(array)):
            bad = array[array != np.round(array)]
            if bad.size:
                raise ValueError(f"token ids must be whole numbers, got {float(bad.flat[0])}")
            raise ValueError(
                f"token ids must have an integer dtype, got {array.dtype} (values like "
                f"{float(array.flat[0])}); convert with .astype(int) or .long()"
            )
        if array.dtype.kind in "USO":
            first = array.flat[0]
            first = first.item() if isinstance(first, np.generic) else first
            raise ValueError(f"token ids must be whole numbers, got {first!r} (dtype {array.dtype}); "
                             "turn words into ids with a vocabulary first")
        raise ValueError(f"token ids must be whole numbers, got dtype {array.dtype}")
    array = array.astype(np.int64)
    negative = array[array < 0]
    if negative.size:
        raise IndexError(f"token id {negative.flat[0]} is negative; ids run from 0 to {vocab_size - 1}")
    too_large = array[array >= vocab_size]
    if too_large.size:
        raise IndexError(f"token id {too_large.flat[0]} is outside the vocabulary (0..{vocab_size - 1})")
    return array


def one_hot(ids, vocab_size: int) -> np.ndarray:
    """One-hot vectors, from scratch in NumPy.

    Args:
        ids: token IDs of any shape, e.g. (T,) or (B, T).
        vocab_size: the length V of each vector.

    Returns:
        float32 array of shape ``ids.shape + (V,)`` with a single 1 per vector.
    """
    ids = check_token_ids(ids, vocab_size)
    flat = ids.reshape(-1)  # (N,)
    vectors = np.zeros((flat.size, vocab_size), dtype=np.float32)  # (N, V)
    vectors[np.arange(flat.size), flat] = 1.0
    return vectors.reshape(*ids.shape, vocab_size)  # (..., V)


def one_hot_torch(ids, vocab_size: int, device=None) -> torch.Tensor:
    """The same with ``torch.nn.functional.one_hot``, as float32 (it returns int64 by itself)."""
    checked = check_token_ids(ids, vocab_size)
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


def cosine_similarity_matrix(vectors) -> np.ndarray:
    """Cosine similarity of every pair of rows: (N, C) -> (N, N).

    Raises:
        ValueError: if ``vectors`` is not 2-D, is empty or holds a zero row.
    """
    vectors = np.asarray(vectors.detach().cpu() if isinstance(vectors, torch.Tensor) else vectors,
                         dtype=np.float64)
    if vectors.ndim != 2 or vectors.size == 0:
        raise ValueError(f"vectors must be a non-empty 2-D array (N, C), got shape {vectors.shape}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)  # (N, 1)
    if np.any(norms == 0):
        row = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise ValueError(f"row {row} is all zeros; cosine similarity is undefined for a zero vector")
    unit = vectors / norms
    return unit @ unit.T  # (N, N)


def distance_matrix(vectors) -> np.ndarray:
    """Euclidean distance between every pair of rows: (N, C) -> (N, N)."""
    vectors = np.asarray(vectors.detach().cpu() if isinstance(vectors, torch.Tensor) else vectors,
                         dtype=np.float64)
    if vectors.ndim != 2 or vectors.size == 0:
        raise ValueError(f"vectors must be a non-empty 2-D array (N, C), got shape {vectors.shape}")
    differences = vectors[:, None, :] - vectors[None, :, :]  # (N, N, C)
    return np.sqrt((differences ** 2).sum(axis=-1))


# ---------------------------------------------------------------- memory

def _check_count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(value)


def one_hot_numbers(seq_len: int, vocab_size: int, batch_size: int = 1) -> int:
    """How many numbers a batch of one-hot sequences holds: B x T x V."""
    return (_check_count(batch_size, "batch_size") * _check_count(seq_len, "seq_len")
            * check_vocab_size(vocab_size))


def dense_numbers(seq_len: int, dim: int, batch_size: int = 1) -> int:
    """How many numbers the same batch holds as dense vectors of width ``dim``: B x T x C."""
    return (_check_count(batch_size, "batch_size") * _check_count(seq_len, "seq_len")
            * _check_count(dim, "dim"))


def memory_bytes(numbers: int, dtype: str = "fp32") -> int:
    """Bytes needed to store ``numbers`` values in ``dtype`` (``fp32``, ``bf16`` or ``int8``)."""
    if dtype not in BYTES_PER_NUMBER:
        raise ValueError(f"dtype must be one of {', '.join(BYTES_PER_NUMBER)}, got {dtype!r}")
    if isinstance(numbers, bool) or not isinstance(numbers, (int, np.integer)) or numbers < 0:
        raise ValueError(f"numbers must be a whole number >= 0, got {numbers!r}")
    return int(numbers) * BYTES_PER_NUMBER[dtype]


def memory_slider_figure(
    seq_lens: Sequence[int] = (64, 128, 256, 512, 1024, 2048, 4096),
    vocab_sizes: dict[str, int] | None = None,
    dim: int = 768,
    active_seq_len: int = 512,
) -> go.Figure:
    """Memory of one sequence as one-hot vectors vs dense vectors, with a slider over its length.

    Args:
        seq_lens: the sequence lengths T offered by the slider.
        vocab_sizes: tokenizer name -> vocabulary size; real tokenizers by default.
        dim: width C of the dense vectors it is compared with.
        active_seq_len: the length shown first (must be one of ``seq_lens``).

    Returns:
        A Plotly figure; each bar's hover text gives the count of numbers and the MiB in fp32.
    """
    vocab_sizes = dict(TOKENIZER_VOCAB_SIZES if vocab_sizes is None else vocab_sizes)
    if not vocab_sizes:
        raise ValueError("vocab_sizes is empty; give at least one name -> size pair")
    if len(seq_lens) == 0:
        raise ValueError("seq_lens is empty; give at least one sequence length")
    if active_seq_len not in seq_lens:
        raise ValueError(f"active_seq_len {active_seq_len} is not one of seq_lens {list(seq_lens)}")
    names = list(vocab_sizes)
    mib = 2 ** 20
    states, titles = [], []
    for seq_len in seq_lens:
        one_hot_counts = [one_hot_numbers(seq_len, size) for size in vocab_sizes.values()]
        dense_count = dense_numbers(seq_len, dim)
        one_hot_mib = np.array([memory_bytes(n) / mib for n in one_hot_counts], dtype=np.float32)
        dense_mib = np.full(len(names), memory_bytes(dense_count) / mib, dtype=np.float32)
        states.append([
            go.Bar(x=names, y=one_hot_mib, name="one-hot (T x V)", marker_color=plotting.PALETTE[3],
                   customdata=np.array(one_hot_counts, dtype=np.float64) / 1e6,
                   hovertemplate="%{x}<br>one-hot: %{customdata:.1f} M numbers<br>%{y:.1f} MiB in fp32"
                                 "<extra></extra>"),
            go.Bar(x=names, y=dense_mib, name=f"dense (T x {dim})", marker_color=plotting.PALETTE[0],
                   customdata=np.full(len(names), dense_count / 1e6),
                   hovertemplate="%{x}<br>dense: %{customdata:.2f} M numbers<br>%{y:.2f} MiB in fp32"
                                 "<extra></extra>"),
        ])
        largest = max(one_hot_counts)
        titles.append(f"T = {seq_len}: one-hot up to {largest / 1e6:,.1f} M numbers ({seq_len} ones), "
                      f"dense {dense_count / 1e6:.2f} M")
    figure = plotting.slider_figure(states, [str(t) for t in seq_lens], slider_title="sequence length T",
                                    titles=titles, active=list(seq_lens).index(active_seq_len), height=480)
    figure.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, x=0))
    # One fixed log range for every state, so that moving the slider visibly grows the bars.
    smallest = memory_bytes(dense_numbers(min(seq_lens), dim)) / mib
    largest = memory_bytes(one_hot_numbers(max(seq_lens), max(vocab_sizes.values()))) / mib
    figure.update_yaxes(type="log", dtick=1, range=[np.log10(smallest) - 0.3, np.log10(largest) + 0.3],
                        title_text="MiB per sequence (fp32, log)")
    return figure


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

    vocab_sizes = dict(TOKENIZER_VOCAB_SIZES if vocab_sizes is None else vocab_sizes)
    if not vocab_sizes:
        raise ValueError("vocab_sizes is empty; give at least one name -> size pair")
    if isinstance(seq_lens, str) or len(seq_lens) == 0:
        raise ValueError("seq_lens is empty; give at least one sequence length")
    mib = 2 ** 20
    headers = ["T", *[f"one-hot, {name}" for name in vocab_sizes], f"dense (C = {dim})"]
    rows = []
    for seq_len in seq_lens:
        one_hot_mib = [f"{memory_bytes(one_hot_numbers(seq_len, size)) / mib:,.1f}"
                       for size in vocab_sizes.values()]
        rows.append([f"{seq_len:,}", *one_hot_mib, f"{memory_bytes(dense_numbers(seq_len, dim)) / mib:,.2f}"])
    return markdown_table(headers, rows)


# ---------------------------------------------------------------- figures

def similarity_figure(tokens: Sequence[str], vectors) -> Figure:
    """Side-by-side heatmaps: cosine similarity and Euclidean distance between the given vectors."""
    if len(tokens) != len(vectors):
        raise ValueError(f"{len(tokens)} token labels for {len(vectors)} vectors; give one per vector")
    panels = [
        ("cosine similarity", cosine_similarity_matrix(vectors), (0.0, 1.0)),
        ("Euclidean distance", distance_matrix(vectors), (0.0, 2.0)),
    ]
    figure = Figure(figsize=(9.0, 4.0), dpi=110, layout="constrained")
    for axes, (name, matrix, (low, high)) in zip(figure.subplots(1, 2), panels, strict=True):
        image = axes.imshow(matrix, cmap=plotting.SEQUENTIAL, vmin=low, vmax=high, interpolation="nearest")
        figure.colorbar(image, ax=axes, shrink=0.85)
        for (row, col), value in np.ndenumerate(matrix):
            axes.text(col, row, f"{value:.3f}", ha="center", va="center", fontsize=7,
                      color="black" if value > (low + high) / 2 else "white")
        axes.set_xticks(range(len(tokens)), labels=list(tokens), rotation=45, ha="right")
        axes.set_yticks(range(len(tokens)), labels=list(tokens))
        axes.set_title(name)
    return figure


def bridge_figure(ids, table, tokens: Sequence[str] | None = None) -> Figure:
    """Picture of ``one_hot(ids) @ table == table[ids]``: three heatmaps, the rows read are outlined.

    Args:
        ids: token IDs of one sequence, shape (T,).
        table: array (V, C), small enough to draw (a few dozen rows).
        tokens: optional labels for the positions.
    """
    table = to_numpy(table, dtype=np.float32)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (vocab_size, dim), got shape {table.shape}")
    checked = check_token_ids(ids, table.shape[0])
    if checked.ndim != 1:
        raise ValueError(f"ids must be one sequence (T,), got shape {checked.shape}")
    if tokens is not None and len(tokens) != len(checked):
        raise ValueError(f"{len(tokens)} token labels for {len(checked)} ids; give one per id")
    vectors = one_hot(checked, table.shape[0])  # (T, V)
    product = vectors @ table  # (T, C)
    vocab_size, dim = table.shape
    limit = float(np.abs(table).max()) or 1.0
    figure = Figure(figsize=(9.0, 3.6), dpi=110, layout="constrained")
    left, middle, right = figure.subplots(1, 3, width_ratios=[vocab_size, dim, dim])
    positions = range(len(checked))
    row_labels = [f"{t}: {w}" for t, w in enumerate(tokens)] if tokens is not None else list(positions)
    left.imshow(vectors, cmap="Greys", vmin=0, vmax=1, aspect="auto")
    left.set_title(f"one_hot(ids)  ({len(checked)} x {vocab_size})", fontsize=10)
    left.set_yticks(range(len(checked)), labels=row_labels)
    left.set_xlabel("vocabulary index")
    middle.imshow(table, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
    middle.set_title(f"@ W  ({vocab_size} x {dim})", fontsize=10)
    middle.set_ylabel("row (token id)")
    middle.set_xlabel("dimension")
    for row in sorted(set(checked.tolist())):
        middle.add_patch(matplotlib.patches.Rectangle((-0.5, row - 0.5), dim, 1, fill=False,
                                                      edgecolor="black", linewidth=2))
    right.imshow(product, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
    right.set_title(f"= W[ids]  ({len(checked)} x {dim})", fontsize=10)
    right.set_yticks(range(len(checked)), labels=row_labels)
    right.set_xlabel("dimension")
    return figure
