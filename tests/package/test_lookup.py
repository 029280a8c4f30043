"""Dense lookup: the NumPy table and nn.Embedding agree; gradients, padding, tying, real sizes."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch import nn

from embedding_course import lookup
from embedding_course.one_hot import lookup_by_product

VOCAB, DIM = 12, 5


def batches(vocab_size: int = VOCAB):
    """ID arrays of shape (B, T)."""
    return hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5),
                      elements=st.integers(0, vocab_size - 1))


def test_numpy_table_shapes_b_t_to_b_t_c():
    table = lookup.NumpyEmbedding(VOCAB, DIM)
    assert table.weight.shape == (VOCAB, DIM) and table.weight.dtype == np.float32
    assert table(np.zeros((2, 7), dtype=int)).shape == (2, 7, DIM)
    assert table([3]).shape == (1, DIM)


def test_numpy_table_is_seeded():
    assert np.array_equal(lookup.NumpyEmbedding(VOCAB, DIM, seed=3).weight,
                          lookup.NumpyEmbedding(VOCAB, DIM, seed=3).weight)
    assert not np.array_equal(lookup.NumpyEmbedding(VOCAB, DIM, seed=3).weight,
                              lookup.NumpyEmbedding(VOCAB, DIM, seed=4).weight)


@settings(max_examples=25, deadline=None)
@given(batches())
def test_numpy_table_equals_nn_embedding_and_one_hot_product(ids):
    table = lookup.NumpyEmbedding(VOCAB, DIM)
    embedding = lookup.embedding_from_table(table, device="cpu")
    from_torch = lookup.lookup(embedding, ids).detach().numpy()  # (B, T, C)
    assert np.array_equal(table(ids), from_torch)
    assert np.array_equal(from_torch, embedding.weight.detach().numpy()[ids])  # emb(ids) == emb.weight[ids]
    assert np.array_equal(lookup_by_product(ids, table.weight), table(ids))


@settings(max_examples=25, deadline=None)
@given(batches())
def test_gradient_reaches_only_the_rows_that_were_used(ids):
    embedding = lookup.make_embedding(VOCAB, DIM, device="cpu")
    rng = np.random.default_rng(0)
    upstream = rng.standard_normal((*ids.shape, DIM)).astype(np.float32) + 3.0  # never cancels to 0
    grad = lookup.table_gradient(embedding, ids, upstream)
    used = np.zeros(VOCAB, dtype=bool)
    used[ids.reshape(-1)] = True
    assert (np.abs(grad[~used]) == 0).all()
    assert (np.abs(grad[used]).sum(axis=1) > 0).all()


@settings(max_examples=25, deadline=None)
@given(batches())
def test_repeated_ids_add_up_and_numpy_backward_matches_torch(ids):
    table = lookup.NumpyEmbedding(VOCAB, DIM)
    embedding = lookup.embedding_from_table(table, device="cpu")
    upstream = np.random.default_rng(1).standard_normal((*ids.shape, DIM)).astype(np.float32)
    grad = lookup.table_gradient(embedding, ids, upstream)
    np.testing.assert_allclose(table.backward(ids, upstream), grad, rtol=1e-5, atol=1e-6)
    # With an all-ones upstream gradient, a row used k times has norm k * sqrt(C).
    norms = lookup.row_gradient_norms(lookup.table_gradient(embedding, ids))
    counts = np.bincount(ids.reshape(-1), minlength=VOCAB)
    np.testing.assert_allclose(norms, counts * np.sqrt(DIM), rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(batches())
def test_padding_row_stays_zero_with_zero_gradient(ids):
    padding = 0
    embedding = lookup.make_embedding(VOCAB, DIM, padding_idx=padding, device="cpu")
    assert (embedding.weight[padding] == 0).all()
    ids = ids.copy()
    ids[:, 0] = padding  # every sequence uses the padding row at least once
    grad = lookup.table_gradient(embedding, ids)
    assert (grad[padding] == 0).all()
    optimizer = torch.optim.SGD(embedding.parameters(), lr=0.5)
    loss = lookup.lookup(embedding, ids).pow(2).sum()
    loss.backward()
    optimizer.step()
    assert (embedding.weight[padding] == 0).all()
    assert (lookup.lookup(embedding, ids)[:, 0] == 0).all()
    numpy_table = lookup.NumpyEmbedding(VOCAB, DIM, padding_idx=padding)
    assert (numpy_table.weight[padding] == 0).all()
    assert (numpy_table.backward(ids, np.ones((*ids.shape, DIM)))[padding] == 0).all()


def test_table_gradient_leaves_existing_grad_alone():
    embedding = lookup.make_embedding(VOCAB, DIM, device="cpu")
    assert embedding.weight.grad is None
    lookup.table_gradient(embedding, [1, 2])
    assert embedding.weight.grad is None


def test_make_embedding_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    first = lookup.make_embedding(VOCAB, DIM, device="cpu")
    after = torch.rand(1)
    assert torch.equal(before, after)
    assert torch.equal(first.weight, lookup.make_embedding(VOCAB, DIM, device="cpu").weight)
    assert isinstance(first, nn.Embedding)


def test_weight_tying_shares_one_tensor():
    tied = lookup.TinyLanguageModel(100, 8, tie_weights=True)
    untied = lookup.TinyLanguageModel(100, 8, tie_weights=False)
    assert tied.output.weight is tied.embedding.weight
    assert tied.output.weight.data_ptr() == tied.embedding.weight.data_ptr()
    assert lookup.count_parameters(tied) == 100 * 8
    assert lookup.count_parameters(untied) == 2 * 100 * 8
    ids = torch.tensor([[1, 2, 3]])
    logits = tied(ids)
    assert logits.shape == (1, 3, 100)
    # The logit of token v is the dot product of the input vector with row v of the same table.
    expected = tied.embedding.weight[ids] @ tied.embedding.weight.T
    torch.testing.assert_close(logits, expected)
    logits.sum().backward()
    assert tied.embedding.weight.grad is not None


def test_gpt2_small_numbers():
    gpt2 = lookup.model_config("GPT-2 small")
    assert gpt2.table_parameters == 50_257 * 768 == 38_597_376
    assert lookup.table_memory_mib(gpt2, "fp32") == pytest.approx(147.24, abs=0.01)
    assert lookup.table_memory_mib(gpt2, "bf16") == pytest.approx(147.24 / 2, abs=0.01)
    assert lookup.table_memory_mib(gpt2, "int8") == pytest.approx(147.24 / 4, abs=0.01)
    assert gpt2.vocabulary_parameters == gpt2.table_parameters  # tied


def test_untied_models_count_the_output_layer_twice():
    llama3 = lookup.model_config("LLaMA-3-8B")
    assert llama3.table_parameters == 128_256 * 4096
    assert llama3.vocabulary_parameters == 2 * llama3.table_parameters
    assert {c.name for c in lookup.MODEL_CONFIGS} >= {"GPT-2 small", "BERT-base (uncased)", "LLaMA-2-7B"}


def test_parameter_table_is_computed_from_the_configs():
    header, rows = lookup.parameter_table_rows()
    assert len(rows) == len(lookup.MODEL_CONFIGS)
    assert all(len(row) == len(header) for row in rows)
    assert rows[0][:6] == ["GPT-2 small", "50,257\u00a0x\u00a0768", "38.6\u00a0M", "147", "74", "37"]
    assert rows[0][-1] == "31%"  # 38.6 M of GPT-2's 124.4 M parameters
    assert rows[0][-2] == "tied" and rows[3][-2] == "separate"
    assert rows[3][1] == "128,256\u00a0x\u00a04,096" and rows[3][3] == "2,004"
    assert rows[1][:2] == ["BERT-base (uncased)", "30,522\u00a0x\u00a0768"]


def test_embedding_from_table_keeps_the_padding_row_values():
    table = np.ones((3, 2), dtype=np.float32)
    embedding = lookup.embedding_from_table(table, padding_idx=0, device="cpu")
    assert (embedding.weight[0] == 1).all()  # not zeroed, as in nn.Embedding.from_pretrained
    assert (lookup.table_gradient(embedding, [0, 1])[0] == 0).all()


def test_from_pretrained_freezes_the_whole_table_unless_told_and_never_zeroes_the_padding_row():
    """Lesson 3's pitfall: frozen by default; with freeze=False only row 0's gradient stays zero."""
    table = torch.ones(3, 2)
    assert not torch.nn.Embedding.from_pretrained(table, padding_idx=0).weight.requires_grad
    embedding = torch.nn.Embedding.from_pretrained(table, freeze=False, padding_idx=0)
    embedding(torch.tensor([0, 1])).sum().backward()
    assert (embedding.weight[0] == 1).all() and (embedding.weight.grad[0] == 0).all()
    assert (embedding.weight.grad[1] == 1).all()


# ---------------------------------------------------------------- bad inputs

@pytest.mark.parametrize(("ids", "error", "message"), [
    ([], ValueError, "token ids are empty"),
    ([[0, 12]], IndexError, r"token id 12 is outside the vocabulary \(0..11\)"),
    ([-3], IndexError, "token id -3 is negative"),
    ([0.5], ValueError, "token ids must be whole numbers, got 0.5"),
    (torch.tensor([1.0]), ValueError, "integer dtype"),
])
def test_bad_ids_are_clear_errors_everywhere(ids, error, message):
    table = lookup.NumpyEmbedding(VOCAB, DIM)
    embedding = lookup.make_embedding(VOCAB, DIM, device="cpu")
    for call in (lambda: table(ids), lambda: lookup.lookup(embedding, ids),
                 lambda: lookup.table_gradient(embedding, ids)):
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: lookup.NumpyEmbedding(0, 4), ValueError, "vocab_size must be a whole number >= 1, got 0"),
    (lambda: lookup.NumpyEmbedding(4, 0), ValueError, r"dim must be a whole number >= 1, got 0 \(the width"),
    (lambda: lookup.make_embedding(4, 2.5), ValueError, "dim must be a whole number"),
    (lambda: lookup.make_embedding(4, 2, padding_idx=4), IndexError,
     r"padding_idx 4 is outside the vocabulary \(0..3\)"),
    (lambda: lookup.NumpyEmbedding(4, 2, padding_idx=1.0), ValueError, "padding_idx must be a whole number"),
    (lambda: lookup.embedding_from_table(np.zeros(3)), ValueError, "table must be a non-empty 2-D array"),
    (lambda: lookup.lookup(np.zeros((3, 2)), [0]), ValueError, "embedding must be an nn.Embedding"),
    (lambda: lookup.table_gradient(lookup.make_embedding(4, 2, device="cpu"), [[0, 1]], np.ones((2, 2))),
     ValueError, r"grad_output must have shape \(1, 2, 2\)"),
    (lambda: lookup.NumpyEmbedding(4, 2).backward([0, 1], np.ones((2, 3))), ValueError,
     r"grad_output must have shape \(2, 2\)"),
    (lambda: lookup.row_gradient_norms(np.zeros(3)), ValueError, "grad must be a non-empty 2-D array"),
    (lambda: lookup.count_parameters("model"), ValueError, "module must be an nn.Module"),
    (lambda: lookup.model_config("GPT-5"), ValueError, "unknown model 'GPT-5'; known: GPT-2 small"),
    (lambda: lookup.table_memory_mib(lookup.MODEL_CONFIGS[0], "fp8"), ValueError, "dtype must be one of"),
    (lambda: lookup.parameter_table_rows([]), ValueError, "configs is empty"),
    (lambda: lookup.parameter_table_rows(dtypes=("fp64",)), ValueError, r"^dtypes\[0\] must be one of"),
    (lambda: lookup.parameter_table_rows(dtypes="fp32"), ValueError,
     r"^dtypes must be a list of number formats"),
    (lambda: lookup.tying_rows(configs=["GPT-2"]), ValueError,
     r"^configs\[0\] must be a ModelConfig, got 'GPT-2'$"),
])
def test_bad_arguments_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()




def test_tables_and_gradients_may_be_tensors_that_require_grad():
    """Tensors go through device.to_numpy: an nn.Embedding weight or an upstream gradient needs no detach."""
    embedding = lookup.make_embedding(5, 3, device="cpu")
    copy = lookup.embedding_from_table(embedding.weight, device="cpu")
    assert torch.equal(copy.weight, embedding.weight)
    np.testing.assert_allclose(lookup.row_gradient_norms(embedding.weight),
                               embedding.weight.detach().norm(dim=1).numpy(), rtol=1e-6)
    upstream = torch.full((1, 2, 3), 2.0, requires_grad=True)  # (B, T, C)
    grad = lookup.table_gradient(embedding, [[0, 0]], upstream)
    assert (grad[0] == 4).all() and (grad[1:] == 0).all()
    from_scratch = lookup.NumpyEmbedding(5, 3).backward([[0, 0]], upstream)
    np.testing.assert_array_equal(from_scratch, grad)


@pytest.mark.parametrize("call", [
    lambda bad: lookup.embedding_from_table(np.array([[0.0, bad]])),
    lambda bad: lookup.row_gradient_norms(np.array([[0.0, bad]])),
    lambda bad: lookup.table_gradient(lookup.make_embedding(4, 2, device="cpu"), [[0]], [[[0.0, bad]]]),
    lambda bad: lookup.NumpyEmbedding(4, 2).backward([[0]], [[[0.0, bad]]]),
])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_tables_and_gradients_must_be_finite(call, bad):
    with pytest.raises(ValueError, match="holds NaN or infinite values"):
        call(bad)
