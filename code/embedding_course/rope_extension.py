"""Lesson 7's RoPE models read past their training length: unchanged, with PI, NTK-aware or YaRN.

The models come from :func:`embedding_course.length_generalisation.train_model` (trained on
``train_len`` tokens). Each is tested up to ``test_factor`` times that length

* zero-shot: the same weights, with each method's frequencies (and YaRN's temperature)
  switched on in every attention layer, for the scale factor ``test_factor``;
* after a short fine-tune at the longest test length, with the method switched on, as
  Position Interpolation's paper does (1000 steps there; a few dozen here).

A second experiment loads the same models into code that pairs channels the other way
(:func:`embedding_course.rotary.set_layout`): the layout bug.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import torch
from torch.nn import functional as F

from embedding_course import checks, rope_scaling
from embedding_course.length_generalisation import (
    IGNORE,
    PAGE_SETTINGS,
    RunSettings,
    accuracy_by_length,
    check_task,
    deterministic,
    make_batch,
    train_model,
)
from embedding_course.rotary import set_layout

EXTENSION_METHODS = ("none", "linear", "ntk", "yarn")
"""The methods the experiment compares, in the order the course shows them."""

PHASES = ("zero-shot", "fine-tuned")
"""Tested as trained, and after the short fine-tune."""

BASE = 10000.0
"""The RoPE base of lesson 7's models (``rope.apply_rope``'s default)."""


@dataclass
class ExtensionSettings:
    """The extension experiment: which models, which methods, how long a fine-tune."""

    task: str = "copy_back"
    methods: tuple[str, ...] = EXTENSION_METHODS
    finetune_steps: int = 40
    finetune_batch: int = 16
    finetune_rate: float = 3e-3
    eval_batch: int = 256
    models: RunSettings = field(default_factory=lambda: PAGE_SETTINGS)

    def __post_init__(self):
        check_task(self.task)
        checks.many(self.methods, "methods", "method", partial(checks.one_of, allowed=EXTENSION_METHODS))
        for name in ("finetune_steps", "finetune_batch", "eval_batch"):
            checks.whole(getattr(self, name), name)
        checks.number(self.finetune_rate, "finetune_rate", above=0.0)

    @property
    def factor(self) -> int:
        """The scale factor: the longest test length over the training length."""
        return self.models.test_factor


def with_scaling(model, method: str, factor: float, original_len: int):
    """A copy of a RoPE model whose every attention layer uses ``method`` for ``factor``."""
    if getattr(model, "scheme", None) != "rope":
        raise ValueError("with_scaling needs a TinyTransformer with scheme 'rope'")
    scaled = copy.deepcopy(model)
    for block in scaled.blocks:
        attention = block.attn
        attention.rope_scaling = (
            None
            if method == "none"
            else rope_scaling.scaling_hook(method, attention.head_dim, BASE, factor, original_len)
        )
    return scaled


def trained_lookalike(angle: float, train_len: int) -> tuple[int, float]:
    """The offset seen in training whose angle on pair 0 is nearest ``angle``.

    Pair 0 turns one radian a position, so offset ``k`` (0 .. train_len - 1) gives the angle
    ``k mod 2 pi``; angles are compared around the circle.

    Returns:
        ``(offset, its angle in [0, 2 pi))``.
    """
    angle = checks.number(angle, "angle")
    train_len = checks.whole(train_len, "train_len")
    turned = np.mod(np.arange(train_len, dtype=np.float64), 2 * np.pi)  # (train_len,)
    apart = np.abs(np.angle(np.exp(1j * (turned - angle))))  # around the circle, in [0, pi]
    offset = int(np.argmin(apart))
    return offset, float(turned[offset])


def fine_tune(model, task: str, seq_len: int, steps: int, batch_size: int, rate: float, seed: int):
    """Train ``model`` in place for ``steps`` steps on ``seq_len``-token sequences; return it in eval mode."""
    seq_len, steps = checks.whole(seq_len, "seq_len"), checks.whole(steps, "steps")
    batch_size, rate = checks.whole(batch_size, "batch_size"), checks.positive(rate, "rate")
    seed = checks.seed(seed)
    generator = torch.Generator().manual_seed(20_000 + seed)  # data neither the training nor the test saw
    optimizer = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=0.0)
    device = next(model.parameters()).device
    model.train()
    for _ in range(steps):
        ids, targets = make_batch(task, batch_size, seq_len, generator)  # (B, T) each
        logits = model(ids.to(device))  # (B, T, K)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.to(device).flatten(), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return model.eval()


@torch.no_grad()
def logit_gap_by_position(
    model, other, task: str, seq_len: int, batch_size: int = 64, seed: int = 0
) -> np.ndarray:
    """Mean absolute difference of two models' logits at each position, shape (seq_len,)."""
    ids, _ = make_batch(task, batch_size, seq_len, torch.Generator().manual_seed(30_000 + checks.seed(seed)))
    device = next(model.parameters()).device
    gap = (model(ids.to(device)) - other(ids.to(device))).abs()  # (B, T, K)
    return gap.mean(dim=(0, 2)).cpu().double().numpy()


@dataclass
class ExtensionResults:
    """Accuracy per test length for every (phase, method, seed), and the layout experiment's curves."""

    settings: ExtensionSettings
    accuracy: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)
    layout_accuracy: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    """``("right" | "converted" | "swapped", seed)`` -> accuracy per length."""
    layout_gap: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    """``("converted" | "swapped", seed)`` -> mean |logit difference| from the right model per position."""
    seconds: float = 0.0

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.settings.models.seeds

    def window(self, phase: str, method: str, low: int, high: int) -> np.ndarray:
        """Each seed's mean accuracy over test lengths ``low..high``, shape (seeds,)."""
        return np.array(
            [np.nanmean(self.accuracy[(phase, method, seed)][low - 1 : high]) for seed in self.seeds]
        )

    def beyond(self, phase: str, method: str) -> np.ndarray:
        """Each seed's mean accuracy past the training length (train_len+1 .. test_len)."""
        models = self.settings.models
        return self.window(phase, method, models.train_len + 1, models.test_len)

    def seen(self, phase: str, method: str) -> np.ndarray:
        """Each seed's mean accuracy on the training lengths."""
        return self.window(phase, method, 1, self.settings.models.train_len)

    def table(self) -> list[dict]:
        """One row per (phase, method): mean and range over seeds, on seen and on longer lengths."""
        rows = []
        for phase in PHASES:
            for method in self.settings.methods:
                seen, beyond = self.seen(phase, method), self.beyond(phase, method)
                rows.append(
                    {
                        "phase": phase,
                        "method": rope_scaling.METHOD_NAMES[method],
                        "seen mean": seen.mean(),
                        "seen min": seen.min(),
                        "seen max": seen.max(),
                        "longer mean": beyond.mean(),
                        "longer min": beyond.min(),
                        "longer max": beyond.max(),
                    }
                )
        return rows


def run_extension(settings: ExtensionSettings | None = None, device="cpu") -> ExtensionResults:
    """Train lesson 7's RoPE models, then test them longer with every method, before and after a fine-tune."""
    settings = ExtensionSettings() if settings is None else settings
    if not isinstance(settings, ExtensionSettings):
        raise ValueError(f"settings must be an ExtensionSettings, got {type(settings).__name__}")
    models = settings.models
    results = ExtensionResults(settings)
    started = time.perf_counter()
    device = torch.device(device)
    with deterministic(device):
        for seed in models.seeds:
            trained = train_model(settings.task, "rope", models, seed, device)

            def accuracy(model, seed=seed):
                return accuracy_by_length(model, settings.task, models.test_len, settings.eval_batch, seed)

            for method in settings.methods:
                scaled = with_scaling(trained, method, settings.factor, models.train_len)
                results.accuracy[("zero-shot", method, seed)] = accuracy(scaled)
                torch.manual_seed(seed)
                fine_tune(
                    scaled,
                    settings.task,
                    models.test_len,
                    settings.finetune_steps,
                    settings.finetune_batch,
                    settings.finetune_rate,
                    seed,
                )
                results.accuracy[("fine-tuned", method, seed)] = accuracy(scaled)
            results.layout_accuracy[("right", seed)] = accuracy(trained)
            for name, permute in (("converted", True), ("swapped", False)):
                other = set_layout(trained, "rotate_half", permute)
                results.layout_accuracy[(name, seed)] = accuracy(other)
                results.layout_gap[(name, seed)] = logit_gap_by_position(
                    trained, other, settings.task, models.test_len, seed=seed
                )
    results.seconds = time.perf_counter() - started
    return results
