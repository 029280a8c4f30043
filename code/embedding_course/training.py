"""A tiny training run: words that share contexts end up with similar vectors.

The corpus is generated from sentence templates. Each group of words (animals, foods,
colours, vehicles) fills the slot of its own templates, so the words of one group appear
between the same neighbours. A skip-gram model (an ``nn.Embedding`` whose rows must
predict the surrounding words through an output layer) is trained on it. Words with the
same neighbours receive the same gradient signal, so their rows drift together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from embedding_course import SEED, checks
from embedding_course.device import pick_device, to_numpy
from embedding_course.similarity import cosine_similarity_matrix
from embedding_course.tokens import WordVocabulary

TOY_GROUPS: dict[str, list[str]] = {
    "animals": ["cat", "dog", "horse", "rabbit", "sheep"],
    "foods": ["bread", "cheese", "apple", "rice", "soup"],
    "colours": ["red", "blue", "green", "yellow", "purple"],
    "vehicles": ["car", "bus", "train", "bike", "truck"],
}
"""Groups of words; the words of a group share the sentence templates below."""

TEMPLATES: dict[str, list[str]] = {
    "animals": ["the {} sleeps in the barn", "a {} eats grass in the field", "we fed the hungry {}",
                "the farmer keeps a {}"],
    "foods": ["we ate warm {} for lunch", "the {} tastes good", "she cooked some {} tonight",
              "fresh {} is on the plate"],
    "colours": ["the wall is painted {}", "her dress is bright {}", "he likes the colour {}",
                "a {} light shines"],
    "vehicles": ["he drove the {} to town", "the {} needs fuel", "we took the {} home",
                 "a {} is parked on the road"],
}
"""Sentence templates per group; ``{}`` is filled with a word of that group."""


def toy_corpus(seed: int = SEED, sentences: int = 400) -> list[str]:
    """Generated sentences in which the words of a group share their contexts.

    Args:
        seed: seed of the random choice of template and word.
        sentences: how many sentences to generate (at least 1).

    Returns:
        A list of lower-case sentences.
    """
    sentences = checks.whole(sentences, "sentences")
    rng = np.random.default_rng(checks.seed(seed))
    group_names = list(TOY_GROUPS)
    corpus = []
    for _ in range(sentences):
        group = group_names[rng.integers(len(group_names))]
        template = TEMPLATES[group][rng.integers(len(TEMPLATES[group]))]
        word = TOY_GROUPS[group][rng.integers(len(TOY_GROUPS[group]))]
        corpus.append(template.format(word))
    return corpus


CONTEXT_WINDOW = 2
"""How many words on each side of a centre word count as its context."""


def context_pairs(corpus: Sequence[str], vocabulary: WordVocabulary,
                  window: int = CONTEXT_WINDOW) -> np.ndarray:
    """Every (centre word, context word) ID pair within ``window`` words: shape (N, 2), int64."""
    if len(corpus) == 0:
        raise ValueError("corpus is empty; give at least one sentence")
    window = checks.whole(window, "window")
    pairs = []
    for sentence in corpus:
        ids = vocabulary.encode(sentence)
        for i, centre in enumerate(ids):
            for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                if j != i:
                    pairs.append((centre, ids[j]))
    if not pairs:
        raise ValueError("the corpus has no sentence with two or more words; no context pairs to learn from")
    return np.array(pairs, dtype=np.int64)


class SkipGram(nn.Module):
    """Centre word -> its row of the table -> scores over the vocabulary for a context word."""

    def __init__(self, vocab_size: int, dim: int, seed: int = SEED):
        super().__init__()
        vocab_size = checks.whole(vocab_size, "vocab_size")
        dim = checks.whole(dim, "dim", hint="the width C")
        generator = torch.Generator().manual_seed(checks.seed(seed))
        initial = torch.randn(vocab_size, dim, generator=generator)  # (V, C), N(0, 1) like nn.Embedding
        self.embedding = nn.Embedding(vocab_size, dim, _weight=initial)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        with torch.no_grad():
            self.output.weight.copy_(torch.randn(vocab_size, dim, generator=generator) * dim ** -0.5)

    def forward(self, centre_ids: torch.Tensor) -> torch.Tensor:
        vectors = self.embedding(centre_ids)  # (N, C)
        return self.output(vectors)  # (N, V)


@dataclass
class ToyTrainingRun:
    """What :func:`train_toy_embeddings` recorded.

    Attributes:
        vocabulary: the word vocabulary of the toy corpus.
        words: the group words, in :data:`TOY_GROUPS` order.
        groups: the group name of each entry of ``words``.
        steps: the training steps at which snapshots were taken (the first is 0, before training).
        snapshots: float32 arrays (len(words), dim), the vectors of ``words`` at each of ``steps``.
        losses: the loss at every training step.
        table: the final full embedding table (len(vocabulary), dim), float32.
    """

    vocabulary: WordVocabulary
    words: list[str]
    groups: list[str]
    steps: list[int]
    snapshots: list[np.ndarray]
    losses: list[float]
    table: np.ndarray


def train_toy_embeddings(dim: int = 16, steps: int = 300, snapshot_every: int = 25, seed: int = SEED,
                         lr: float = 0.01, device=None) -> ToyTrainingRun:
    """Train skip-gram embeddings on :func:`toy_corpus` (full batch, Adam).

    Args:
        dim: width C of each word vector.
        steps: number of optimisation steps.
        snapshot_every: take a snapshot of the group words' vectors every this many steps
            (and always at step 0 and at the last step).
        seed: seeds the corpus and the initial table, so two runs give identical results.
        lr: Adam's learning rate.
        device: where to train; by default :func:`~embedding_course.device.pick_device`.

    Returns:
        A :class:`ToyTrainingRun`.
    """
    dim, steps = checks.whole(dim, "dim"), checks.whole(steps, "steps")
    snapshot_every = checks.whole(snapshot_every, "snapshot_every")
    lr = checks.positive(lr, "lr")
    device = pick_device() if device is None else torch.device(device)

    corpus = toy_corpus(seed)
    vocabulary = WordVocabulary.from_texts(corpus)
    words = [word for group in TOY_GROUPS.values() for word in group]
    groups = [name for name, group in TOY_GROUPS.items() for _ in group]
    word_ids = torch.tensor([vocabulary.token_to_id[word] for word in words], device=device)  # (W,)
    pairs = torch.as_tensor(context_pairs(corpus, vocabulary), device=device)  # (N, 2)
    centres, contexts = pairs[:, 0], pairs[:, 1]  # (N,), (N,)

    model = SkipGram(len(vocabulary), dim, seed=seed).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def snapshot() -> np.ndarray:
        return to_numpy(model.embedding.weight[word_ids], dtype=np.float32).copy()

    taken_steps, snapshots, losses = [0], [snapshot()], []
    for step in range(1, steps + 1):
        logits = model(centres)  # (N, V)
        loss = nn.functional.cross_entropy(logits, contexts)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.item()))
        if step % snapshot_every == 0 or step == steps:
            taken_steps.append(step)
            snapshots.append(snapshot())
    table = to_numpy(model.embedding.weight, dtype=np.float32).copy()
    return ToyTrainingRun(vocabulary, words, groups, taken_steps, snapshots, losses, table)


# ---------------------------------------------------------------- measuring the groups

def similarity_matrix(vectors) -> np.ndarray:
    """Cosine similarity of every pair of rows, in float64 (the snapshots are float32)."""
    return cosine_similarity_matrix(checks.array(vectors, "vectors", ndim=2))  # (W, W)


def group_similarity(vectors, groups: Sequence[str]) -> tuple[float, float]:
    """Mean cosine similarity within groups and across groups (distinct words only).

    Args:
        vectors: array (W, C), one row per word.
        groups: the group of each row.

    Returns:
        ``(within, across)``.
    """
    similarity = similarity_matrix(vectors)  # (W, W)
    if len(groups) != similarity.shape[0]:
        raise ValueError(f"{len(groups)} group labels for {similarity.shape[0]} vectors; give one per row")
    labels = np.asarray(groups)
    same = labels[:, None] == labels[None, :]  # (W, W)
    off_diagonal = ~np.eye(len(labels), dtype=bool)
    if not (same & off_diagonal).any() or not (~same).any():
        raise ValueError("need at least two groups and a group with two or more words")
    return float(similarity[same & off_diagonal].mean()), float(similarity[~same].mean())


def group_similarity_over_seeds(seeds: Sequence[int], **training_options) -> dict[str, list[float]]:
    """:func:`group_similarity` before and after training, for one run per seed.

    One run's numbers show that run; how far they move from seed to seed says which of its
    digits mean something (before training, the gap between within and across is noise).

    Args:
        seeds: one training run per seed (each seeds its corpus and its table).
        training_options: passed on to :func:`train_toy_embeddings` (``dim``, ``steps``, ...).

    Returns:
        ``{"within_before", "across_before", "within_after", "across_after"}``, each a list
        with one mean cosine per seed.
    """
    seeds = [checks.seed(seed) for seed in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got none")
    spread: dict[str, list[float]] = {"within_before": [], "across_before": [],
                                      "within_after": [], "across_after": []}
    for seed in seeds:
        run = train_toy_embeddings(seed=seed, **training_options)
        for when, snapshot in (("before", run.snapshots[0]), ("after", run.snapshots[-1])):
            within, across = group_similarity(snapshot, run.groups)
            spread[f"within_{when}"].append(within)
            spread[f"across_{when}"].append(across)
    return spread


# ---------------------------------------------------------------- figures


