"""Why order matters: attention scores with and without position vectors.

Attention compares tokens through scores ``(x W_q)(x W_k)^T / sqrt(d_head)``. Without
positions, reordering the tokens only reorders the rows and columns of that matrix
(``S' = P S P^T``); with positions added, it does not. :func:`order_experiment` measures
both, for two reorderings of the same words.

That holds for *unmasked* (bidirectional) attention. A decoder such as GPT-2 or LLaMA masks
the future: token m may only attend to tokens 0 .. m. Reorder the tokens and each one sees a
different set of earlier tokens, so its output changes even without any position vectors:
the causal mask alone breaks permutation equivariance (and decoders trained without position
encodings do learn positions; Haviv et al. 2022, Kazemnejad et al. 2023).
:func:`causal_order_experiment` shows both masks side by side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from embedding_course import SEED, checks
from embedding_course.batching import encode_batch
from embedding_course.pipeline import InputEmbedding
from embedding_course.tokens import WordVocabulary


def random_projections(d_model: int, d_head: int | None = None, seed: int = SEED
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """Fixed random query and key projections W_q, W_k of shape (C, d_head), std ``C ** -0.5``."""
    checks.whole(d_model, "d_model")
    d_head = d_model if d_head is None else d_head
    checks.whole(d_head, "d_head")
    generator = torch.Generator().manual_seed(checks.seed(seed))
    w_q = torch.randn(d_model, d_head, generator=generator) / math.sqrt(d_model)
    w_k = torch.randn(d_model, d_head, generator=generator) / math.sqrt(d_model)
    return w_q, w_k


def attention_scores(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor) -> torch.Tensor:
    """Scaled dot-product scores ``(x W_q)(x W_k)^T / sqrt(d_head)``: (..., T, C) -> (..., T, T)."""
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, C), got {tuple(x.shape)}")
    if not x.dtype.is_floating_point:  # W_q and W_k would be cast to x's dtype: zeros
        raise ValueError(f"x must hold floating-point numbers, got dtype {x.dtype} "
                         "(convert it with x.float())")
    if w_q.shape != w_k.shape or w_q.ndim != 2 or w_q.shape[0] != x.shape[-1]:
        raise ValueError(f"w_q and w_k must both have shape (C, d_head) with C = {x.shape[-1]}, "
                         f"got {tuple(w_q.shape)} and {tuple(w_k.shape)}")
    queries = x @ w_q.to(x.device, x.dtype)  # (..., T, d_head)
    keys = x @ w_k.to(x.device, x.dtype)  # (..., T, d_head)
    return queries @ keys.transpose(-2, -1) / math.sqrt(w_q.shape[1])  # (..., T, T)


def permutation_between(tokens_a: Sequence[str], tokens_b: Sequence[str]) -> list[int]:
    """``perm`` with ``tokens_b[i] == tokens_a[perm[i]]`` (a repeated token takes its next unused slot)."""
    if sorted(tokens_a) != sorted(tokens_b):
        raise ValueError(f"the two token lists are not reorderings of each other: {list(tokens_a)} "
                         f"vs {list(tokens_b)}")
    unused: dict[str, list[int]] = {}
    for slot, token in enumerate(tokens_a):
        unused.setdefault(token, []).append(slot)
    return [unused[token].pop(0) for token in tokens_b]


def permuted_gap(scores_a: torch.Tensor, scores_b: torch.Tensor, perm: Sequence[int]) -> float:
    """Largest ``|scores_b - P scores_a P^T|``: 0 when B's scores are A's, reordered."""
    if scores_a.shape != scores_b.shape or scores_a.ndim != 2 or scores_a.shape[0] != len(perm):
        raise ValueError(f"need two (T, T) score matrices and a permutation of length T; got "
                         f"{tuple(scores_a.shape)}, {tuple(scores_b.shape)} and {len(perm)}")
    index = torch.as_tensor(list(perm), device=scores_a.device)
    return float((scores_b - scores_a[index][:, index]).abs().max())


@dataclass(frozen=True)
class OrderExperiment:
    """Scores of two reordered sentences, with and without positions."""

    tokens: tuple[list[str], list[str]]
    perm: list[int]
    scores_without: tuple[torch.Tensor, torch.Tensor]
    scores_with: tuple[torch.Tensor, torch.Tensor]

    @property
    def gap_without(self) -> float:
        return permuted_gap(*self.scores_without, self.perm)

    @property
    def gap_with(self) -> float:
        return permuted_gap(*self.scores_with, self.perm)


def order_experiment(text_a: str, text_b: str, vocab: WordVocabulary, model: InputEmbedding,
                     seed: int = SEED) -> OrderExperiment:
    """Attention scores of two reorderings of the same words, before and after adding positions.

    The model runs in eval mode (no dropout). "Without positions" uses the scaled token
    vectors; "with positions" adds the model's position vectors.
    """
    if model.positions is None:
        raise ValueError("the model has no positions (positions='none'); "
                         "build it with positions='sinusoidal' or 'learned'")
    was_training = model.training
    model.eval()
    try:
        w_q, w_k = random_projections(model.d_model, seed=seed)
        batches = [encode_batch(text, vocab, device=model.tokens.weight.device) for text in (text_a, text_b)]
        perm = permutation_between(batches[0].tokens[0], batches[1].tokens[0])
        without, with_positions = [], []
        with torch.no_grad():
            for batch in batches:
                stages = model.stages(batch.ids)
                without.append(attention_scores(stages["scaled token vectors"][0], w_q, w_k).cpu())
                with_positions.append(attention_scores(stages["output"][0], w_q, w_k).cpu())
    finally:
        model.train(was_training)
    return OrderExperiment((batches[0].tokens[0], batches[1].tokens[0]), perm,
                           tuple(without), tuple(with_positions))


# ---------------------------------------------------------------- causal vs unmasked attention

def attention_weights(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, causal: bool) -> torch.Tensor:
    """Softmax of the scores over the keys; with ``causal``, keys after the query are masked out.

    Returns:
        Tensor of shape (..., T, T); each row sums to 1.
    """
    scores = attention_scores(x, w_q, w_k)  # (..., T, T)
    if causal:
        length = scores.shape[-1]
        future = torch.ones(length, length, dtype=torch.bool, device=scores.device).triu(1)  # (T, T)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1)


def attention_outputs(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor,
                      causal: bool) -> torch.Tensor:
    """One attention head: ``softmax(mask(scores)) @ (x W_v)``, (..., T, C) -> (..., T, d_head)."""
    if w_v.ndim != 2 or w_v.shape[0] != x.shape[-1]:
        raise ValueError(f"w_v must have shape (C, d_head) with C = {x.shape[-1]}, got {tuple(w_v.shape)}")
    return attention_weights(x, w_q, w_k, causal) @ (x @ w_v.to(x.device, x.dtype))  # (..., T, d_head)


def output_gap(outputs_a: torch.Tensor, outputs_b: torch.Tensor, perm: Sequence[int]) -> float:
    """Largest ``|outputs_b - P outputs_a|``: 0 when B's outputs are A's, reordered (equivariance)."""
    if outputs_a.shape != outputs_b.shape or outputs_a.ndim != 2 or outputs_a.shape[0] != len(perm):
        raise ValueError(f"need two (T, d) output matrices and a permutation of length T; got "
                         f"{tuple(outputs_a.shape)}, {tuple(outputs_b.shape)} and {len(perm)}")
    index = torch.as_tensor(list(perm), device=outputs_a.device)
    return float((outputs_b - outputs_a[index]).abs().max())


@dataclass(frozen=True)
class MaskExperiment:
    """Attention of two reordered sentences *without positions*, unmasked and causal."""

    tokens: tuple[list[str], list[str]]
    perm: list[int]
    weights: dict[str, tuple[torch.Tensor, torch.Tensor]]
    """Per mask ("unmasked", "causal"), the (T, T) attention weights of each sentence."""
    outputs: dict[str, tuple[torch.Tensor, torch.Tensor]]
    """Per mask, the (T, d_head) outputs of each sentence."""

    def gap(self, mask: str) -> float:
        """Largest difference between B's outputs and A's outputs reordered; 0 = equivariant."""
        checks.one_of(mask, "mask", self.outputs)
        return output_gap(*self.outputs[mask], self.perm)


def causal_order_experiment(text_a: str, text_b: str, vocab: WordVocabulary, model: InputEmbedding,
                            seed: int = SEED) -> MaskExperiment:
    """One attention head over two reorderings of the same words, with no position vectors.

    Uses the model's scaled token vectors (eval mode), fixed random W_q, W_k, W_v.
    """
    was_training = model.training
    model.eval()
    try:
        w_q, w_k = random_projections(model.d_model, seed=seed)
        w_v, _ = random_projections(model.d_model, seed=seed + 1)
        batches = [encode_batch(text, vocab, device=model.tokens.weight.device) for text in (text_a, text_b)]
        perm = permutation_between(batches[0].tokens[0], batches[1].tokens[0])
        weights: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
        outputs: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
        with torch.no_grad():
            inputs = [model.stages(batch.ids)["scaled token vectors"][0] for batch in batches]  # (T, C) each
            for mask, causal in (("unmasked", False), ("causal", True)):
                weights[mask] = tuple(attention_weights(x, w_q, w_k, causal).cpu() for x in inputs)
                outputs[mask] = tuple(attention_outputs(x, w_q, w_k, w_v, causal).cpu() for x in inputs)
    finally:
        model.train(was_training)
    return MaskExperiment((batches[0].tokens[0], batches[1].tokens[0]), perm, weights, outputs)
