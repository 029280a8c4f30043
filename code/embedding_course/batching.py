"""The text front end of the pipeline: texts -> a padded (B, T) batch of IDs and a mask.

Sentences have different lengths, but a tensor is a rectangle. So every sequence is
cut to at most ``max_len`` tokens (truncation), the shorter ones are filled up with
the ``<pad>`` ID (padding), and an *attention mask* records which slots hold real
tokens (``True``) and which hold padding (``False``), so attention can ignore them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from embedding_course import checks
from embedding_course.tables import code_span
from embedding_course.tokens import PAD, WordVocabulary


@dataclass(frozen=True)
class Batch:
    """A padded batch: what the embedding layer reads.

    Attributes:
        ids: (B, T) int64 token IDs, ``<pad>`` after each sequence's end.
        mask: (B, T) bool, ``True`` where a real token sits.
        tokens: the tokens of each sequence after truncation, without padding.
        truncated: for each sequence, whether words were cut off.
    """

    ids: torch.Tensor
    mask: torch.Tensor
    tokens: list[list[str]]
    truncated: list[bool]

    @property
    def lengths(self) -> list[int]:
        """The number of real tokens of each sequence."""
        return [len(tokens) for tokens in self.tokens]

    def padded_tokens(self) -> list[list[str]]:
        """The tokens of each row, ``<pad>`` included, as the tensor holds them."""
        width = self.ids.shape[1]
        return [tokens + [PAD] * (width - len(tokens)) for tokens in self.tokens]

    def to_markdown(self) -> str:
        """A table of the batch: one row per sequence, each slot as ``token (id)``, padding marked."""
        width = self.ids.shape[1]
        lines = ["| sequence | " + " | ".join(f"slot {t}" for t in range(width)) + " |",
                 "|---" * (width + 1) + "|"]
        for row, tokens in enumerate(self.padded_tokens()):
            cells = []
            for slot, token in enumerate(tokens):
                cell = f"{code_span(token)} ({int(self.ids[row, slot])})"
                cells.append(cell if bool(self.mask[row, slot]) else f"*{cell}*")
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def encode_batch(
    texts: Sequence[str] | str,
    vocab: WordVocabulary,
    max_len: int | None = None,
    device: torch.device | str | None = "cpu",
) -> Batch:
    """Turn texts into a padded batch of IDs with an attention mask.

    Args:
        texts: one string or a list of strings; each must hold at least one word.
        vocab: the vocabulary (unknown words become ``<unk>``).
        max_len: keep at most this many tokens per text (truncation); ``None`` keeps all.
        device: where the tensors go.

    Returns:
        A :class:`Batch` whose ``ids`` and ``mask`` have shape (B, T), T = the longest
        sequence after truncation.
    """
    if not isinstance(vocab, WordVocabulary):
        raise ValueError(f"vocab must be a WordVocabulary, got {type(vocab).__name__}")
    if isinstance(texts, str):
        texts = [texts]
    if len(texts) == 0:
        raise ValueError("texts is empty; give at least one text to encode")
    max_len = checks.optional_whole(max_len, "max_len", hint="or None to keep every token")
    sequences, truncated = [], []
    for index, text in enumerate(texts):
        checks.text(text, f"text {index}")
        if not text.strip():
            raise ValueError(f"text {index} is empty ({text!r}); every text needs at least one word")
        ids = vocab.encode(text)
        truncated.append(max_len is not None and len(ids) > max_len)
        sequences.append(ids[:max_len] if max_len is not None else ids)
    width = max(len(ids) for ids in sequences)
    batch_ids = torch.full((len(sequences), width), vocab.pad_id, dtype=torch.long)  # (B, T)
    mask = torch.zeros(len(sequences), width, dtype=torch.bool)  # (B, T)
    for row, ids in enumerate(sequences):
        batch_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        mask[row, : len(ids)] = True
    tokens = [vocab.decode(ids) for ids in sequences]
    return Batch(batch_ids.to(device), mask.to(device), tokens, truncated)


def position_ids_from_mask(mask) -> torch.Tensor:
    """Position ids that count real tokens only: 0, 1, 2, ... from each sequence's first real token.

    With left padding (``mask = [0, 0, 1, 1, 1]``) the default ``arange(T)`` would give the first
    word position 2; this gives ``[0, 0, 0, 1, 2]``. It is the ``cumsum(mask) - 1`` that generation
    code uses for learned absolute positions, clamped at 0: padding before the first real token gets
    0, padding after the last repeats its position (``[1, 1, 1, 0, 0]`` gives ``[0, 1, 2, 2, 2]``,
    where Hugging Face's ``generate`` writes 0 in transformers 5, and its models' own code 1 in
    transformers 4). The mask hides padded slots anyway.

    Args:
        mask: (B, T) or (T,), true or 1 where a real token sits.

    Returns:
        Tensor of the mask's shape, int64.
    """
    mask = torch.as_tensor(mask)
    if mask.ndim not in (1, 2) or mask.numel() == 0:
        raise ValueError(f"mask must be a non-empty (T,) or (B, T) tensor, got shape {tuple(mask.shape)}")
    if not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError("mask must hold only True/1 (real token) and False/0 (padding)")
    counts = mask.long().cumsum(dim=-1) - 1  # (B, T): index of each real token among the real ones
    return counts.clamp(min=0)
