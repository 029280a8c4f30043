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
from functools import partial

import numpy as np
import torch
from torch.nn import functional as F

from embedding_course import SEED, checks
from embedding_course.device import pick_device
from embedding_course.tiny_transformer import SCHEMES, TinyTransformer, check_scheme

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
DTYPES = {"float32": torch.float32, "float64": torch.float64}
"""The number formats a model can train in, by name."""


PUBLISHED_SIZES = {
    "GPT-2 small": 124_000_000,  # the released checkpoint's count (Radford et al. 2019 say 117M)
    "the smallest model of Press et al. (2022)": 247_000_000,
    "the largest model of Press et al. (2022)": 1_300_000_000,
}
"""Parameter counts of published models, to say how small the lesson's models are."""


def size_ratio(published: int, ours: int) -> int:
    """How many times ``published`` parameters exceed ``ours``, to two significant figures."""
    checks.whole(published, "published")
    checks.whole(ours, "ours")
    ratio = published / ours
    return int(round(ratio, 1 - math.floor(math.log10(ratio))))


def check_task(task) -> None:
    """Raise a ValueError naming the allowed tasks when ``task`` is not one of them."""
    checks.one_of(task, "task", TASKS)


def chance_level(task: str) -> float | None:
    """The accuracy of a guess among the ordinary tokens, for the tasks whose answer is one of them.

    None for ``marked_token``: its answer is a marked token or "none", which the input shows.
    """
    check_task(task)
    return None if task == "marked_token" else 1 / PLAIN_TOKENS


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
        An int64 tensor shaped like ``ids``.
    """
    checks.whole(offset, "offset", hint="a number of places back")
    ids = torch.as_tensor(ids)
    whole = not (ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool)
    if ids.ndim not in (1, 2) or not whole:
        raise ValueError(f"ids must be a (T,) or (B, T) tensor of whole numbers, got shape "
                         f"{tuple(ids.shape)} and dtype {ids.dtype}")
    targets = torch.full(ids.shape, IGNORE, dtype=torch.long, device=ids.device)  # -100 would wrap in uint8
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
    checks.whole(batch_size, "batch_size", hint="a number of sequences")
    checks.whole(seq_len, "seq_len", hint="a number of tokens")
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
    steps: int = 400
    batch_size: int = 16
    d_model: int = 32
    n_heads: int = 8
    n_layers: int = 2
    learning_rate: float = 1e-2
    eval_batch: int = 256
    seeds: tuple[int, ...] = (0, 1, 2)
    schemes: tuple[str, ...] = SCHEMES
    tasks: tuple[str, ...] = TASKS
    dtype: str = "float64"
    check_every: int = 50
    check_batch: int = 64
    patience: int = 4
    min_gain: float = 0.02

    def __post_init__(self):
        for name in ("train_len", "test_factor", "steps", "batch_size", "d_model", "n_heads", "n_layers",
                     "eval_batch", "check_every", "check_batch", "patience"):
            checks.whole(getattr(self, name), name)
        checks.probability(self.min_gain, "min_gain", hint="a gain in accuracy")
        checks.one_of(self.dtype, "dtype", DTYPES)
        if self.train_len <= COPY_OFFSET:
            raise ValueError(f"train_len must exceed {COPY_OFFSET} so that copy_back has answers, "
                             f"got {self.train_len}")
        checks.number(self.learning_rate, "learning_rate", above=0, below=1)
        checks.many(self.seeds, "seeds", "seed", checks.seed)
        checks.many(self.schemes, "schemes", "scheme", partial(checks.one_of, allowed=SCHEMES))
        checks.many(self.tasks, "tasks", "task", partial(checks.one_of, allowed=TASKS))

    @property
    def test_len(self) -> int:
        """The longest test sequence."""
        return self.train_len * self.test_factor


PAGE_SETTINGS = RunSettings()
"""The experiment of lesson 7 (the defaults): its tests rerun exactly these settings.

Eight heads, so that ALiBi gets the slopes its paper gives for eight heads, 1/2, 1/4, ...,
1/256: with two heads they would be 1/16 and 1/256, a bias of at most 0.44 over eight
positions, and ALiBi would be almost NoPE. Every scheme gets the same heads. The models
train in float64: a rounding difference between two CPUs then stays near 1e-12 instead of
1e-5, far too small to flip a prediction, so every machine reports the same accuracies.
"""

FIT_ACCURACY = 0.95
"""A model has learned a task when its mean accuracy at the training lengths reaches this."""


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
    model = TinyTransformer(VOCAB_SIZE, scheme, n_classes=N_CLASSES, d_model=settings.d_model,
                            n_heads=settings.n_heads, n_layers=settings.n_layers, max_len=settings.train_len)
    return model.to(DTYPES[settings.dtype])


def train_models(scheme: str, jobs: list[tuple[str, int]], settings: RunSettings,
                 device=None) -> list[TinyTransformer]:
    """Train one model per ``(task, seed)`` job, all with the same position scheme, side by side.

    Returns:
        The trained models, in the order of ``jobs``, in eval mode on ``device``
        (see :func:`train_with_history` for how, and for their learning curves).
    """
    return train_with_history(scheme, jobs, settings, device)[0]


def train_with_history(scheme: str, jobs: list[tuple[str, int]], settings: RunSettings,
                       device=None) -> tuple[list[TinyTransformer], np.ndarray]:
    """Train one model per ``(task, seed)`` job side by side, and record their learning curves.

    The models are independent (own start from ``torch.manual_seed(seed)``, own data from
    a generator seeded with ``seed``, own loss), but their weights are stacked and one
    ``torch.vmap`` call runs them all: many small models cost little more than one.
    Adam works element by element, so each model takes the steps it would take alone.
    Every ``settings.check_every`` steps, each model is scored on a fixed batch of
    ``settings.check_batch`` fresh sequences of the training length. A model stops (its
    weights are kept as they are) once it is right on all of them, or once its best score
    has not grown by ``settings.min_gain`` in ``settings.patience`` checks; training ends
    when every model has stopped, or after ``settings.steps`` steps. A model therefore
    trains exactly as it would alone.

    Returns:
        ``(models, history)``: the trained models, in the order of ``jobs``, in eval mode on
        ``device``; and a (jobs, checks) array, the accuracy at the training lengths after
        steps :func:`check_steps` ``(settings)``, NaN after a model stopped.
    """
    check_scheme(scheme)
    if not jobs:
        raise ValueError("jobs is empty; give at least one (task, seed) pair")
    for task, seed in jobs:
        check_task(task)
        checks.seed(seed)
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

    def stacked(batches):  # one (M, B, T) tensor of ids and one of targets
        return (torch.stack([batch[0] for batch in batches]).to(device),
                torch.stack([batch[1] for batch in batches]).to(device))

    check_ids, check_targets = stacked([  # a fixed batch per model, never used for training
        make_batch(task, settings.check_batch, settings.train_len,
                   torch.Generator().manual_seed(20_000 + seed))
        for task, seed in jobs])

    def score_now() -> np.ndarray:  # (M,) accuracy on the fixed batches
        with torch.no_grad():
            right = run_all(params, buffers, check_ids).argmax(-1) == check_targets  # (M, B, T)
        answered = check_targets != IGNORE  # (M, B, T)
        return ((right & answered).flatten(1).sum(1) / answered.flatten(1).sum(1)).cpu().double().numpy()

    optimizer = torch.optim.AdamW(params.values(), lr=settings.learning_rate, weight_decay=0.0, foreach=True)
    generators = [torch.Generator().manual_seed(seed) for _, seed in jobs]
    history = [score_now()]
    running = np.ones(len(jobs), dtype=bool)  # (M,) models still training
    stopped = torch.zeros(len(jobs), dtype=torch.bool, device=device)  # (M,) the others, as a tensor
    for step in range(1, settings.steps + 1):
        ids, targets = stacked([make_batch(task, settings.batch_size, settings.train_len, generator)
                                for (task, _), generator in zip(jobs, generators, strict=True)])  # (M, B, T)
        logits = run_all(params, buffers, ids)  # (M, B, T, K)
        losses = F.cross_entropy(logits.flatten(0, 2), targets.flatten(), ignore_index=IGNORE,
                                 reduction="none").view(len(jobs), -1)  # (M, B*T), 0 where ignored
        counts = (targets != IGNORE).flatten(1).sum(1)  # (M,)
        loss = (losses.sum(1) / counts).sum()  # each model's mean loss; the sum keeps them apart
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if not running.all():  # stopped models keep their weights
            kept = {name: value[stopped].clone() for name, value in params.items()}
        optimizer.step()
        if not running.all():
            with torch.no_grad():
                for name, value in params.items():
                    value[stopped] = kept[name]
        if step % settings.check_every == 0 or step == settings.steps:
            history.append(np.where(running, score_now(), np.nan))  # (M,)
            running[running] = ~_has_stopped(np.stack(history, axis=1)[running], settings)
            stopped = torch.as_tensor(~running, device=device)
            if not running.any():
                break
    with torch.no_grad():
        for index, model in enumerate(models):
            for name, value in model.named_parameters():
                value.copy_(params[name][index])
    history = np.stack(history, axis=1)  # (M, checks so far)
    missing = len(check_steps(settings)) - history.shape[1]  # checks after every model stopped
    history = np.pad(history, ((0, 0), (0, missing)), constant_values=np.nan)
    return [model.eval() for model in models], history


def _has_stopped(history: np.ndarray, settings: RunSettings) -> np.ndarray:
    """(M,) True where a model's last check was perfect, or its best has stalled for ``patience`` checks.

    ``history`` is (M, checks) of models that are still running (no NaN).
    """
    last = history[:, -1]  # (M,)
    perfect = last >= 1.0
    if history.shape[1] <= settings.patience:
        return perfect
    best_before = np.nanmax(history[:, :-settings.patience], axis=1)  # (M,)
    best_since = np.nanmax(history[:, -settings.patience:], axis=1)  # (M,)
    return perfect | ~(best_since >= best_before + settings.min_gain)


def check_steps(settings: RunSettings) -> np.ndarray:
    """The training steps after which :func:`train_with_history` scores the models (0 = untrained)."""
    steps = list(range(0, settings.steps + 1, settings.check_every))
    if steps[-1] != settings.steps:
        steps.append(settings.steps)
    return np.array(steps)


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
    checks.whole(test_len, "test_len", hint="a number of tokens")
    seed = checks.seed(seed)
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
    history: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)
    """``(task, scheme, seed)`` -> accuracy at the training lengths after each of :attr:`steps`
    (NaN once the model had stopped)."""
    device: str = "cpu"
    seconds: float = 0.0

    @property
    def steps(self) -> np.ndarray:
        """The training steps at which :attr:`history` scored the models."""
        return check_steps(self.settings)

    def fits(self, task: str, scheme: str, seed: int) -> bool:
        """Whether one model learned its task: mean accuracy >= :data:`FIT_ACCURACY` at the training
        lengths."""
        return self.window_accuracy(task, scheme, "seen", seed, fitted_only=False) >= FIT_ACCURACY

    def fitted_seeds(self, task: str, scheme: str) -> tuple[int, ...]:
        """The seeds whose model learned the task (only these get an extrapolation score)."""
        return tuple(seed for seed in self.settings.seeds if self.fits(task, scheme, seed))

    def stopped_at(self, task: str, scheme: str, seed: int) -> int:
        """The step at which a model stopped training (its last score in :attr:`history`)."""
        scored = ~np.isnan(self.history[(task, scheme, seed)])
        return int(self.steps[np.nonzero(scored)[0][-1]])

    @property
    def lengths(self) -> np.ndarray:
        """The test lengths 1..test_len."""
        return np.arange(1, self.settings.test_len + 1)

    def curves(self, task: str, scheme: str, seeds: tuple[int, ...] | None = None) -> np.ndarray:
        """The accuracies of some seeds (all by default) for one task and scheme, shape (seeds, test_len)."""
        seeds = self.settings.seeds if seeds is None else seeds
        return np.stack([self.accuracy[(task, scheme, seed)] for seed in seeds])

    def shown_curves(self, task: str, scheme: str) -> np.ndarray:
        """:meth:`curves` with NaN past the training length for every model that did not learn the task."""
        curves = self.curves(task, scheme).copy()  # (seeds, test_len)
        for row, seed in enumerate(self.settings.seeds):
            if not self.fits(task, scheme, seed):
                curves[row, self.settings.train_len:] = np.nan
        return curves

    def mean_accuracy(self, task: str, scheme: str, low: int, high: int, seed: int | None = None) -> float:
        """Mean accuracy over test lengths ``low..high`` (inclusive), over all seeds or one.

        NaN when the model gave no prediction at any of those lengths.
        """
        curves = self.curves(task, scheme) if seed is None else self.accuracy[(task, scheme, seed)][None]
        window = curves[:, low - 1:high]  # (seeds, lengths)
        if np.isnan(window).all():
            return math.nan
        return float(np.nanmean(window))

    def window_accuracy(self, task: str, scheme: str, window: str, seed: int | None = None,
                        fitted_only: bool = True) -> float:
        """Mean accuracy in a named window: ``"seen"`` (lengths up to train_len), ``"2x"``
        (train_len+1 .. 2*train_len) or ``"4x"`` (2*train_len+1 .. 4*train_len).

        Past the training length only models that learned the task count (``fitted_only``):
        NaN for one that did not, the mean of those that did over all seeds.
        """
        low, high = self.window_bounds(window)
        if window == "seen" or not fitted_only:
            return self.mean_accuracy(task, scheme, low, high, seed)
        if seed is None:
            seeds = self.fitted_seeds(task, scheme)
        else:
            seeds = (seed,) if self.fits(task, scheme, seed) else ()
        if not seeds:
            return math.nan
        window_values = self.curves(task, scheme, seeds)[:, low - 1:high]  # (seeds, lengths)
        return math.nan if np.isnan(window_values).all() else float(np.nanmean(window_values))

    def window_bounds(self, window: str) -> tuple[int, int]:
        """The (first, last) test length of a named window."""
        L = self.settings.train_len
        bounds = {"seen": (1, L), "2x": (L + 1, 2 * L), "4x": (2 * L + 1, self.settings.test_len)}
        checks.one_of(window, "window", bounds)
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
    with deterministic(device):
        for scheme in settings.schemes:
            for task in settings.tasks:  # a group per task ends once its models have all stopped
                jobs = [(task, seed) for seed in settings.seeds]
                models, history = train_with_history(scheme, jobs, settings, device)
                for (_, seed), model, curve in zip(jobs, models, history, strict=True):
                    results.accuracy[(task, scheme, seed)] = accuracy_by_length(
                        model, task, settings.test_len, settings.eval_batch, seed)
                    results.history[(task, scheme, seed)] = curve
    results.seconds = time.perf_counter() - start
    return results
