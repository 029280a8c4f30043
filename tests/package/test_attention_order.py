"""Tests of the attention-order experiment: without positions, reordering only permutes the scores."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from embedding_course import attention_order, pipeline
from embedding_course.tokens import WordVocabulary

from .toy_model import make_model

FAST = settings(max_examples=25, deadline=None)


def test_without_positions_scores_are_only_permuted(vocab):
    model = make_model(vocab)
    experiment = attention_order.order_experiment("dog bites man", "man bites dog", vocab, model)
    assert experiment.perm == [2, 1, 0]
    assert experiment.gap_without < 1e-5
    assert experiment.gap_with > 0.1
    assert model.training  # the experiment restores the mode


@FAST
@given(seed=st.integers(0, 10_000), order=st.permutations(range(5)))
def test_permutation_equivariance_for_any_reordering(seed, order):
    words = ["the", "dog", "bites", "a", "man"]
    vocab = WordVocabulary(words)
    model = make_model(vocab)
    text_a, text_b = " ".join(words), " ".join(words[i] for i in order)
    experiment = attention_order.order_experiment(text_a, text_b, vocab, model, seed=seed)
    assert experiment.perm == list(order)
    assert experiment.gap_without < 1e-5


def test_permutation_helpers_check_their_inputs():
    assert attention_order.permutation_between(["a", "b", "a"], ["a", "a", "b"]) == [0, 2, 1]
    with pytest.raises(ValueError, match="not reorderings"):
        attention_order.permutation_between(["a", "b"], ["a", "c"])
    with pytest.raises(ValueError, match="permutation of length"):
        attention_order.permuted_gap(torch.zeros(2, 2), torch.zeros(2, 2), [0, 1, 2])
    w_q, w_k = attention_order.random_projections(8, 4)
    with pytest.raises(ValueError, match="C = 6"):
        attention_order.attention_scores(torch.zeros(3, 6), w_q, w_k)
    with pytest.raises(ValueError, match="no positions"):
        attention_order.order_experiment("a b", "b a", WordVocabulary(["a", "b"]),
                                         pipeline.InputEmbedding(4, 8, 4, positions=None))


def test_attention_scores_refuse_whole_number_vectors():
    """W_q and W_k would be cast to integers and the scores all be zeros: an error instead."""
    w_q, w_k = attention_order.random_projections(2)
    with pytest.raises(ValueError, match=r"^x must hold floating-point numbers, got dtype torch\.int64"):
        attention_order.attention_scores(torch.tensor([[1, 2], [3, 4]]), w_q, w_k)
    assert attention_order.attention_scores(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), w_q, w_k).abs().max() > 0


# ---------------------------------------------------------------- causal vs unmasked


def test_causal_mask_breaks_permutation_equivariance_unmasked_keeps_it(vocab):
    model = make_model(vocab)
    experiment = attention_order.causal_order_experiment("dog bites man", "man bites dog", vocab, model)
    assert experiment.perm == [2, 1, 0]
    assert experiment.gap("unmasked") < 1e-6  # lesson 5: "below 10⁻⁶, float32 rounding"
    assert experiment.gap("causal") > 0.1
    first = experiment.weights["causal"][0]
    assert first[0].tolist() == [1.0, 0.0, 0.0]  # the first token sees only itself
    assert torch.allclose(first.sum(-1), torch.ones(3))
    assert model.training
    with pytest.raises(ValueError, match="mask"):
        experiment.gap("sliding")


@FAST
@given(seed=st.integers(0, 10_000), order=st.permutations(range(4)))
def test_unmasked_outputs_are_equivariant_for_any_reordering_causal_ones_are_not(seed, order):
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    w_q, w_k = attention_order.random_projections(8, seed=seed)
    w_v, _ = attention_order.random_projections(8, seed=seed + 1)
    index = torch.as_tensor(list(order))
    for causal in (False, True):
        before = attention_order.attention_outputs(x, w_q, w_k, w_v, causal)
        after = attention_order.attention_outputs(x[index], w_q, w_k, w_v, causal)
        gap = attention_order.output_gap(before, after, list(order))
        if not causal:
            assert gap < 1e-9
        elif order[0] != 0:  # a new first token: it now sees only itself
            assert gap > 1e-6


def test_causal_helpers_check_their_inputs():
    w_q, w_k = attention_order.random_projections(8, 4)
    with pytest.raises(ValueError, match="w_v"):
        attention_order.attention_outputs(torch.zeros(3, 8), w_q, w_k, torch.zeros(5, 4), causal=True)
    with pytest.raises(ValueError, match="permutation of length"):
        attention_order.output_gap(torch.zeros(2, 4), torch.zeros(2, 4), [0])
