"""Rows that no token looks up: when they stay as they were, and when they do not.

A lookup sends gradient only to the rows it read, and ``padding_idx`` blocks even that for
the padding row. So in a plain (untied) table trained with SGD or Adam, a never-seen row
keeps its initial values and the padding row stays zero. Two common choices break this:

* **weight tying**: the table is also the output layer, and the softmax over the whole
  vocabulary sends a gradient to *every* row, the padding row and unseen tokens included
  (their logits are pushed down);
* **decoupled weight decay** (AdamW): every step multiplies every row by
  ``1 - lr * weight_decay``, used or not, so an untouched row shrinks.

:func:`train_rows` trains a tiny next-token model under each setting and records the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from embedding_course import SEED, checks
from embedding_course.tables import markdown_table

SETTINGS = ("untied, SGD", "untied, Adam", "tied, Adam", "untied, AdamW")
"""The settings compared: the untied table is the baseline the usual claims hold for."""


class NextTokenModel(nn.Module):
    """Embedding -> output layer, trained to predict the next token; optionally tied."""

    def __init__(self, vocab_size: int, dim: int, padding_idx: int, tie_weights: bool, seed: int = SEED):
        super().__init__()
        vocab_size = checks.whole(vocab_size, "vocab_size")
        dim = checks.whole(dim, "dim", hint="the width C")
        padding_idx = checks.index(padding_idx, "padding_idx", vocab_size, of="the vocabulary")
        generator = torch.Generator().manual_seed(checks.seed(seed))
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=padding_idx)
        with torch.no_grad():
            self.embedding.weight.copy_(torch.randn(vocab_size, dim, generator=generator))
            self.embedding.weight[padding_idx] = 0.0
        self.output = nn.Linear(dim, vocab_size, bias=False)
        if tie_weights:
            self.output.weight = self.embedding.weight  # one (V, C) tensor, used twice

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.output(self.embedding(ids))  # (B, T, V)


def next_token_loss(model: NextTokenModel, ids: torch.Tensor, padding_idx: int) -> torch.Tensor:
    """Cross-entropy of predicting ``ids[:, t+1]`` from ``ids[:, t]``; padding targets are ignored."""
    logits = model(ids[:, :-1])  # (B, T-1, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                           ignore_index=padding_idx)


@dataclass(frozen=True)
class RowHistory:
    """What happened to the watched rows of one setting."""

    setting: str
    unseen_grad_norm: float
    """Gradient norm of the never-seen row at the first step."""
    pad_grad_norm: float
    """Gradient norm of the padding row at the first step."""
    unseen_norm_ratio: float
    """Norm of the never-seen row after training, divided by its initial norm."""
    unseen_change: float
    """Largest change of any entry of the never-seen row."""
    pad_max: float
    """Largest absolute entry of the padding row after training (it starts at 0)."""


def train_rows(ids, vocab_size: int, unseen: int, padding_idx: int = 0, dim: int = 8,
               setting: str = "untied, SGD", steps: int = 100, lr: float = 0.01,
               weight_decay: float = 0.1) -> RowHistory:
    """Train a tiny next-token model and watch one never-seen row and the padding row.

    Args:
        ids: integer array (B, T) of training sequences; must not contain ``unseen``.
        vocab_size: number of rows of the table.
        unseen: the ID of a token that never occurs in ``ids``.
        padding_idx: the padding token's ID (its row starts at zero).
        setting: one of :data:`SETTINGS`.
        steps, lr, weight_decay: the optimiser's run (``weight_decay`` only for AdamW).

    Returns:
        A :class:`RowHistory`.
    """
    checks.one_of(setting, "setting", SETTINGS)
    vocab_size = checks.whole(vocab_size, "vocab_size", minimum=2)
    dim = checks.whole(dim, "dim", hint="the width C")
    steps = checks.whole(steps, "steps")
    lr = checks.positive(lr, "lr")
    weight_decay = checks.non_negative(weight_decay, "weight_decay")
    ids = torch.as_tensor(checks.token_ids(ids, vocab_size, ndim=2))  # (B, T), int64
    if ids.shape[1] < 2:
        raise ValueError(f"ids must have shape (B, T) with T >= 2, got {tuple(ids.shape)}")
    unseen = checks.index(unseen, "unseen", vocab_size)
    padding_idx = checks.index(padding_idx, "padding_idx", vocab_size)
    if bool((ids == unseen).any()) or unseen == padding_idx:
        raise ValueError(f"unseen must be a token that never occurs in ids and is not padding, got {unseen}")
    model = NextTokenModel(vocab_size, dim, padding_idx, tie_weights=setting.startswith("tied"))
    weight = model.embedding.weight
    if setting.endswith("SGD"):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    elif setting.endswith("AdamW"):
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    start = weight.detach().clone()  # (V, C)
    for step in range(steps):
        loss = next_token_loss(model, ids, padding_idx)
        optimizer.zero_grad()
        loss.backward()
        if step == 0:
            unseen_grad = float(weight.grad[unseen].norm())
            pad_grad = float(weight.grad[padding_idx].norm())
        optimizer.step()
    end = weight.detach()
    return RowHistory(setting, unseen_grad, pad_grad,
                      float(end[unseen].norm() / start[unseen].norm()),
                      float((end[unseen] - start[unseen]).abs().max()),
                      float(end[padding_idx].abs().max()))


def compare_settings(ids, vocab_size: int, unseen: int, padding_idx: int = 0,
                     settings: Sequence[str] = SETTINGS, **options) -> list[RowHistory]:
    """:func:`train_rows` for each setting, same data and same initial table."""
    return [train_rows(ids, vocab_size, unseen, padding_idx, setting=s, **options) for s in settings]


def histories_table(histories: Sequence[RowHistory], steps: int) -> str:
    """A Markdown table of :func:`compare_settings`' results, one row per setting."""
    if not histories:
        raise ValueError("histories is empty; run compare_settings first")
    headers = ["setting", "unseen row: gradient norm (step 1)",
               f"unseen row: norm after {steps} steps / before", "padding row: gradient norm (step 1)",
               f"padding row: largest entry after {steps} steps"]
    rows = [[h.setting, f"{h.unseen_grad_norm:.3f}", f"{h.unseen_norm_ratio:.3f}",
             f"{h.pad_grad_norm:.3f}", f"{h.pad_max:.3f}"] for h in histories]
    return markdown_table(headers, rows)
