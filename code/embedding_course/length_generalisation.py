"""Train short, test long: does a position scheme carry a model past its training length?

Tiny transformers (:mod:`embedding_course.tiny_transformer`) that differ only in their
position scheme are trained on sequences of length ``train_len`` and tested on
sequences up to four times as long. Every task asks for an answer at *every* position,
and the models are causal: the prediction at position ``p`` sees tokens ``0 .. p`` only,
so it is exactly the prediction at the last token of a sequence of length ``p + 1``.
One pass over long sequences therefore measures the accuracy at every test length.

The tasks, generated on the fly from a seed:

* ``copy_back`` (relative order): answer with the token ``k`` places back.
* ``first_token`` (absolute position): answer with the token at index 0.
* ``marked_token`` (control, no order needed): one token of a sequence is "marked";
  answer with it once it has appeared, and with "none" before. A bag of tokens
  would do: the order of the others does not matter.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.nn import functional as F

from embedding_course import SEED
from embedding_course.device import pick_device
from embedding_course.tiny_transformer import SCHEMES, TinyTransformer, check_scheme, check_whole

TASKS = ("copy_back", "first_token", "marked_token")
"""The tasks, in the order the course shows them."""

TASK_NAMES = {
    "copy_back": "copy the token 3 places back (relative)",
    "first_token": "repeat the first token (absolute)",
    "marked_token": "find the marked token (control: no order needed)",
}
"""How figures and tables name each task."""

PLAIN_TOKENS = 8
"""Ordinary tokens 0..7 in every task."""
MARKED_TOKENS = 4
"""In ``marked_token``, tokens 8..11 are marked ones; class 12 answers "none seen yet"."""
COPY_OFFSET = 3
"""How far back ``copy_back`` looks."""
IGNORE = -100
"""Target of a position with no defined answer (ignored by the loss and the accuracy)."""


def check_task(task) -> None:
    """Raise a ValueError naming the allowed tasks when ``task`` is not one of them."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")


VOCAB_SIZE = PLAIN_TOKENS + MARKED_TOKENS
"""Input tokens of every task (the same for all, so that models of every task train side by side)."""
N_CLASSES = VOCAB_SIZE + 1
"""Output classes: any token, or "none seen yet" (the last class)."""
NONE_CLASS = VOCAB_SIZE
"""The answer of ``marked_token`` before the marked token has appeared."""


def copy_targets(ids: torch.Tensor, offset: int = COPY_OFFSET) -> torch.Tensor:
    """The answers of ``copy_back``: the token ``offset`` places back, ``IGNORE`` where there is none.

    Args:
        ids: (B, T) or (T,) whole-number tokens.
        offset: how many places back to look, a whole number >= 1.

    Returns:
        A tensor shaped like ``ids``.
    """
    check_whole(offset, "offset", "a whole number of places >= 1")
    ids = torch.as_tensor(ids)
    if ids.ndim not in (1, 2) or ids.is_floating_point() or ids.is_complex():
        raise ValueError(f"ids must be a (T,) or (B, T) tensor of whole numbers, got shape "
                         f"{tuple(ids.shape)} and dtype {ids.dtype}")
    targets = torch.full_like(ids, IGNORE)
    if ids.shape[-1] > offset:
        targets[..., offset:] = ids[..., :-offset]  # the answer at t is the token at t - offset
    return targets


def make_batch(task: str, batch_size: int, seq_len: int,
               generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of a task's sequences and the answer expected at every position.

    Args:
        task: one of :data:`TASKS`.
        batch_size: number of sequences.
        seq_len: tokens per sequence.
        generator: a seeded ``torch.Generator`` on the CPU (the same seed gives the same batch).

    Returns:
        ``(ids, targets)``, both (B, T) int64 on the CPU; ``targets`` is ``IGNORE`` where
        a position has no answer (the first ``k`` positions of ``copy_back``).
    """
    check_task(task)
    check_whole(batch_size, "batch_size", "a positive whole number of sequences")
    check_whole(seq_len, "seq_len", "a positive whole number of tokens")
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    ids = torch.randint(PLAIN_TOKENS, (batch_size, seq_len), generator=generator)  # (B, T)
    if task == "copy_back":
        targets = copy_targets(ids)  # (B, T)
    elif task == "first_token":
        targets = ids[:, :1].expand(-1, seq_len).clone()  # (B, T): token 0 everywhere
    else:  # marked_token: one marked token at a random position
        where = torch.randint(seq_len, (batch_size,), generator=generator)  # (B,)
        marked = PLAIN_TOKENS + torch.randint(MARKED_TOKENS, (batch_size,), generator=generator)  # (B,)
        rows = torch.arange(batch_size)
        ids[rows, where] = marked
        seen = torch.arange(seq_len)[None, :] >= where[:, None]  # (B, T): at or after the mark
        targets = torch.where(seen, marked[:, None], torch.full_like(ids, NONE_CLASS))  # (B, T)
    return ids, targets


@dataclass
class RunSettings:
    """Everything that defines one experiment, so that a page and a test can share it."""

    train_len: int = 8
    test_factor: int = 4
    steps: int = 150
    batch_size: int = 32
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 2
    learning_rate: float = 1e-2
    eval_batch: int = 256
    seeds: tuple[int, ...] = (0, 1, 2)
    schemes: tuple[str, ...] = SCHEMES
    tasks: tuple[str, ...] = TASKS

    def __post_init__(self):
        for name in ("train_len", "test_factor", "steps", "batch_size", "d_model", "n_heads", "n_layers",
                     "eval_batch"):
            check_whole(getattr(self, name), name)
        if self.train_len <= COPY_OFFSET:
            raise ValueError(f"train_len must exceed {COPY_OFFSET} so that copy_back has answers, "
                             f"got {self.train_len}")
        if not (isinstance(self.learning_rate, (int, float)) and 0 < self.learning_rate < 1):
            raise ValueError(f"learning_rate must be a number between 0 and 1, got {self.learning_rate!r}")
        if not self.seeds or not all(isinstance(s, int) and s >= 0 for s in self.seeds):
            raise ValueError(f"seeds must be a non-empty tuple of whole numbers >= 0, got {self.seeds!r}")
        for scheme in self.schemes:
            check_scheme(scheme)
        for task in self.tasks:
            check_task(task)
        if not self.schemes or not self.tasks:
            raise ValueError("schemes and tasks must each name at least one")

    @property
    def test_len(self) -> int:
        """The longest test sequence."""
        return self.train_len * self.test_factor


PAGE_SETTINGS = RunSettings()
"""The experiment of lesson 7 (the defaults): its tests rerun exactly these settings."""


@contextlib.contextmanager
def deterministic(device: torch.device, threads: int = 1):
    """On the CPU: deterministic algorithms and ``threads`` threads inside the block.

    The matrices here are tiny: one CPU thread is faster than several that wait for each
    other, and the numbers then do not depend on how many cores the machine has. On a GPU
    nothing changes (bit-for-bit repeatable GPU runs need settings outside Python). Both
    settings are restored afterwards.
    """
    if torch.device(device).type != "cpu":
        yield
        return
    before = torch.are_deterministic_algorithms_enabled()
    threads_before = torch.get_num_threads()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before)
        torch.set_num_threads(threads_before)


def new_model(scheme: str, settings: RunSettings) -> TinyTransformer:
    """An untrained model of the experiment's size, for any task (they share one vocabulary)."""
    return TinyTransformer(VOCAB_SIZE, scheme, n_classes=N_CLASSES, d_model=settings.d_model,
                           n_heads=settings.n_heads, n_layers=settings.n_layers, max_len=settings.train_len)


def train_models(scheme: str, jobs: list[tuple[str, int]], settings: RunSettings,
                 device=None) -> list[TinyTransformer]:
    """Train one model per ``(task, seed)`` job, all with the same position scheme, side by side.

    The models are independent (own start from ``torch.manual_seed(seed)``, own data from
    a generator seeded with ``seed``, own loss), but their weights are stacked and one
    ``torch.vmap`` call runs them all: many small models cost little more than one.
    Adam works element by element, so each model takes the steps it would take alone.

    Returns:
        The trained models, in the order of ``jobs``, in eval mode on ``device``.
    """
    check_scheme(scheme)
    if not jobs:
        raise ValueError("jobs is empty; give at least one (task, seed) pair")
    for task, seed in jobs:
        check_task(task)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    device = pick_device() if device is None else torch.device(device)
    models = []
    for _, seed in jobs:
        torch.manual_seed(seed)
        models.append(new_model(scheme, settings).to(device))
    params, buffers = torch.func.stack_module_state(models)  # name -> (M, ...) tensors
    template = copy.deepcopy(models[0]).to("meta")  # the architecture, without weights

    def logits_of_one(one_params, one_buffers, ids):  # ids (B, T) -> (B, T, K)
        return torch.func.functional_call(template, (one_params, one_buffers), (ids,), {"check": False})

    run_all = torch.vmap(logits_of_one)
    optimizer = torch.optim.AdamW(params.values(), lr=settings.learning_rate, weight_decay=0.0, foreach=True)
    generators = [torch.Generator().manual_seed(seed) for _, seed in jobs]
    for _ in range(settings.steps):
        batches = [make_batch(task, settings.batch_size, settings.train_len, generator)
                   for (task, _), generator in zip(jobs, generators, strict=True)]
        ids = torch.stack([batch[0] for batch in batches]).to(device)  # (M, B, T)
        targets = torch.stack([batch[1] for batch in batches]).to(device)  # (M, B, T)
        logits = run_all(params, buffers, ids)  # (M, B, T, K)
        losses = F.cross_entropy(logits.flatten(0, 2), targets.flatten(), ignore_index=IGNORE,
                                 reduction="none").view(len(jobs), -1)  # (M, B*T), 0 where ignored
        counts = (targets != IGNORE).flatten(1).sum(1)  # (M,)
        loss = (losses.sum(1) / counts).sum()  # each model's mean loss; the sum keeps them apart
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        for index, model in enumerate(models):
            for name, value in model.named_parameters():
                value.copy_(params[name][index])
    return [model.eval() for model in models]


def train_model(task: str, scheme: str, settings: RunSettings, seed: int = SEED,
                device=None) -> TinyTransformer:
    """Train one tiny transformer on ``task`` with sequences of ``settings.train_len`` tokens.

    Returns:
        The trained model, in eval mode, on ``device`` (by default the course's device).
    """
    return train_models(scheme, [(task, seed)], settings, device)[0]


@torch.no_grad()
def accuracy_by_length(model: TinyTransformer, task: str, test_len: int, batch_size: int = 256,
                       seed: int = SEED) -> np.ndarray:
    """Accuracy of the answer at the last token of sequences of every length 1..test_len.

    One pass over ``batch_size`` sequences of ``test_len`` tokens: since the model is
    causal, its answer at position ``p`` is its answer for the first ``p + 1`` tokens.
    A model that cannot read long inputs (a learned table raises ``IndexError``) is read
    only as far as it can: lengths past that are NaN, "no prediction possible".

    Returns:
        Array of shape (test_len,): entry ``n - 1`` is the accuracy at length ``n``
        (NaN where a length has no answer or no prediction).
    """
    check_task(task)
    check_whole(test_len, "test_len", "a positive whole number of tokens")
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(10_000 + seed)  # test data never equals training data
    ids, targets = make_batch(task, batch_size, test_len, generator)  # (B, T) each
    readable = test_len
    try:
        logits = model(ids.to(device))  # (B, T, n_classes)
    except IndexError:
        if model.scheme != "learned" or test_len <= model.max_len:
            raise
        readable = model.max_len  # the table's last row
        logits = model(ids[:, :readable].to(device))  # (B, max_len, n_classes)
    right = (logits.argmax(-1).cpu() == targets[:, :readable]).float()  # (B, T')
    answered = targets[:, :readable] != IGNORE  # (B, T')
    accuracy = np.full(test_len, np.nan)
    counts = answered.sum(0)  # (T',)
    has_answer = (counts > 0).numpy()
    accuracy[:readable][has_answer] = ((right * answered).sum(0)[counts > 0] / counts[counts > 0]).numpy()
    return accuracy


@dataclass
class Results:
    """Accuracies of every (task, scheme, seed) at every test length, and how they were made."""

    settings: RunSettings
    accuracy: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)
    """``(task, scheme, seed)`` -> (test_len,) accuracy per length (NaN: no prediction)."""
    device: str = "cpu"
    seconds: float = 0.0

    @property
    def lengths(self) -> np.ndarray:
        """The test lengths 1..test_len."""
        return np.arange(1, self.settings.test_len + 1)

    def curves(self, task: str, scheme: str) -> np.ndarray:
        """All seeds' accuracies for one task and scheme, shape (seeds, test_len)."""
        return np.stack([self.accuracy[(task, scheme, seed)] for seed in self.settings.seeds])

    def mean_accuracy(self, task: str, scheme: str, low: int, high: int, seed: int | None = None) -> float:
        """Mean accuracy over test lengths ``low..high`` (inclusive), over all seeds or one.

        NaN when the model gave no prediction at any of those lengths.
        """
        curves = self.curves(task, scheme) if seed is None else self.accuracy[(task, scheme, seed)][None]
        window = curves[:, low - 1:high]  # (seeds, lengths)
        if np.isnan(window).all():
            return math.nan
        return float(np.nanmean(window))

    def window_accuracy(self, task: str, scheme: str, window: str, seed: int | None = None) -> float:
        """Mean accuracy in a named window: ``"seen"`` (lengths up to train_len), ``"2x"``
        (train_len+1 .. 2*train_len) or ``"4x"`` (2*train_len+1 .. 4*train_len)."""
        low, high = self.window_bounds(window)
        return self.mean_accuracy(task, scheme, low, high, seed)

    def window_bounds(self, window: str) -> tuple[int, int]:
        """The (first, last) test length of a named window."""
        L = self.settings.train_len
        bounds = {"seen": (1, L), "2x": (L + 1, 2 * L), "4x": (2 * L + 1, self.settings.test_len)}
        if window not in bounds:
            raise ValueError(f"window must be one of {', '.join(bounds)}; got {window!r}")
        return bounds[window]

    def rows(self) -> list[dict]:
        """One dict per (task, scheme, seed, length): a tidy table for pandas or a CSV."""
        return [{"task": task, "scheme": scheme, "seed": seed, "length": int(n), "accuracy": float(a)}
                for (task, scheme, seed), curve in self.accuracy.items()
                for n, a in zip(self.lengths, curve, strict=True)]


def run_experiment(settings: RunSettings | None = None, device=None) -> Results:
    """Train and test every (task, scheme, seed) of ``settings``; deterministic on the CPU.

    Returns:
        :class:`Results` with the accuracy per length, the device and the seconds it took.
    """
    settings = RunSettings() if settings is None else settings
    if not isinstance(settings, RunSettings):
        raise ValueError(f"settings must be a RunSettings, got {type(settings).__name__}")
    device = pick_device() if device is None else torch.device(device)
    results = Results(settings, device=device.type)
    start = time.perf_counter()
    jobs = [(task, seed) for task in settings.tasks for seed in settings.seeds]
    with deterministic(device):
        for scheme in settings.schemes:
            models = train_models(scheme, jobs, settings, device)
            for (task, seed), model in zip(jobs, models, strict=True):
                results.accuracy[(task, scheme, seed)] = accuracy_by_length(
                    model, task, settings.test_len, settings.eval_batch, seed)
    results.seconds = time.perf_counter() - start
    return results
