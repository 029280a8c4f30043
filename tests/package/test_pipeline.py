"""Tests of the text front end and the input embedding pipeline."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from embedding_course import SEED, batching, pipeline, positional
from embedding_course.tokens import WordVocabulary

from .toy_model import make_model

FAST = settings(max_examples=25, deadline=None)


# ---------------------------------------------------------------- the text front end


def test_batch_pads_and_masks(vocab):
    batch = batching.encode_batch(["the dog", "a zebra saw the cat"], vocab)
    assert batch.ids.shape == batch.mask.shape == (2, 5)
    assert batch.ids.dtype == torch.long and batch.mask.dtype == torch.bool
    assert batch.mask.tolist() == [[True, True, False, False, False], [True] * 5]
    assert batch.ids[0, 2:].tolist() == [vocab.pad_id] * 3
    assert batch.ids[1, 1].item() == vocab.unk_id  # "zebra" is not in the vocabulary
    assert batch.tokens[1][1] == "<unk>" and batch.lengths == [2, 5]
    assert batch.padded_tokens()[0] == ["the", "dog", "<pad>", "<pad>", "<pad>"]
    table = batch.to_markdown()
    assert "*`<pad>` (0)*" in table and "`<unk>` (1)" in table


@pytest.mark.parametrize("token", ["a | b", "|", "`", "x``y", "`a`"])
def test_batch_table_keeps_every_token_in_its_own_cell(token):
    """A token holding | or ` must not split its cell or end its code span early."""
    from markdown_it import MarkdownIt

    ids, mask = torch.tensor([[2, 3, 0]]), torch.tensor([[True, True, False]])  # (B, T)
    batch = batching.Batch(ids, mask, [["a", token]], [False])
    html = MarkdownIt("commonmark").enable("table").render(batch.to_markdown())
    assert html.split("<tbody>")[1].count("<td>") == 4  # "sequence" + 3 slots (extra cells are dropped)
    assert "<td><code>" + token + "</code> (3)</td>" in html  # the token, whole, as code


def test_batch_truncates(vocab):
    batch = batching.encode_batch(["the cat sat on the mat", "a dog"], vocab, max_len=3)
    assert batch.ids.shape == (2, 3)
    assert batch.truncated == [True, False]
    assert batch.tokens[0] == ["the", "cat", "sat"]


@FAST
@given(lengths=st.lists(st.integers(1, 9), min_size=1, max_size=5), max_len=st.none() | st.integers(1, 6))
def test_mask_counts_the_real_tokens(lengths, max_len):
    vocab = WordVocabulary(["w"])
    texts = [" ".join(["w"] * n) for n in lengths]
    batch = batching.encode_batch(texts, vocab, max_len=max_len)
    kept = [n if max_len is None else min(n, max_len) for n in lengths]
    assert batch.ids.shape == (len(lengths), max(kept))
    assert batch.mask.sum(dim=1).tolist() == kept
    assert torch.equal(batch.ids == vocab.pad_id, ~batch.mask)


@pytest.mark.parametrize(
    ("texts", "options", "match"),
    [
        ([], {}, "texts is empty"),
        (["the dog", ""], {}, "text 1 is empty"),
        (["   "], {}, "text 0 is empty"),
        ([3], {}, "text 0 must be a string"),
        (["the dog"], {"max_len": 0}, "max_len must be a whole number >= 1, got 0"),
    ],
)
def test_front_end_bad_inputs(vocab, texts, options, match):
    with pytest.raises(ValueError, match=match):
        batching.encode_batch(texts, vocab, **options)


def test_front_end_needs_a_vocabulary():
    with pytest.raises(ValueError, match="WordVocabulary"):
        batching.encode_batch(["a"], {"a": 0})


# ---------------------------------------------------------------- the embedding module


@pytest.mark.parametrize("positions", ["sinusoidal", "learned", "none", None])
def test_shapes_through_the_pipeline(vocab, positions):
    model = make_model(vocab, positions=positions)
    batch, output = pipeline.text_to_vectors(["the dog bites", "a man saw a dog"], vocab, model)
    assert output.shape == (2, 5, 16)
    stages = model.stages(batch.ids)
    assert stages["token vectors"].shape == (2, 5, 16)
    if positions in ("sinusoidal", "learned"):
        assert stages["position vectors"].shape == (5, 16)
    else:
        assert "position vectors" not in stages


def test_sum_is_scaled_tokens_plus_positions(vocab):
    model = make_model(vocab, dropout=0.0)
    ids = torch.tensor([[2, 3, 4]])
    stages = model.stages(ids)
    expected = model.tokens.weight[ids] * math.sqrt(16) + positional.sinusoidal_encoding(3, 16, device="cpu")
    torch.testing.assert_close(stages["output"], expected)
    unscaled = make_model(vocab, scale=False, dropout=0.0)
    torch.testing.assert_close(unscaled.stages(ids)["scaled token vectors"], unscaled.tokens.weight[ids])


def test_padding_row_is_zero_and_dropout_only_in_training(vocab):
    model = make_model(vocab, dropout=0.5)
    assert torch.all(model.tokens.weight[vocab.pad_id] == 0)
    ids = torch.tensor([[vocab.pad_id, 2, 3, 4]])
    stages = model.eval().stages(ids)
    torch.testing.assert_close(stages["output"], stages["sum"])
    torch.testing.assert_close(stages["token vectors"][0, 0], torch.zeros(16))
    model.train()
    torch.manual_seed(1)
    dropped = model(ids)
    assert (dropped == 0).float().mean() > 0.2  # about half the entries are zeroed in training


def test_same_token_at_two_positions_gives_two_vectors(vocab):
    model = make_model(vocab).eval()
    batch, output = pipeline.text_to_vectors("the dog bites the man", vocab, model)
    slots, vectors = pipeline.vectors_of_token(batch, output, "the")
    assert slots == [0, 3]
    tokens_only = model.stages(batch.ids)["scaled token vectors"][0, slots]
    torch.testing.assert_close(tokens_only[0], tokens_only[1])  # same row of the token table
    assert (vectors[0] - vectors[1]).norm() > 0.5  # positions make them differ
    with pytest.raises(ValueError, match="does not occur"):
        pipeline.vectors_of_token(batch, output, "zebra")
    for sequence in (1, 5, -1):  # a batch of one sequence: 'list index out of range', or the last row
        with pytest.raises(IndexError, match=rf"^sequence {sequence} is outside the batch \(0\.\.0\)$"):
            pipeline.vectors_of_token(batch, output, "the", sequence=sequence)


def test_learned_positions_stop_at_max_len_but_sinusoidal_do_not(vocab):
    ids = torch.full((1, 14), 2)
    with pytest.raises(IndexError, match="position 12 is past the learned table"):
        make_model(vocab, positions="learned")(ids)
    assert make_model(vocab, positions="sinusoidal")(ids).shape == (1, 14, 16)


def test_default_init_is_standard_normal_and_init_std_is_honoured(vocab):
    torch.manual_seed(SEED)
    default = pipeline.InputEmbedding(400, 64, 8)
    assert default.tokens.weight.std().item() == pytest.approx(1.0, rel=0.05)
    small = pipeline.InputEmbedding(400, 64, 8, init_std=0.125)
    assert small.tokens.weight.std().item() == pytest.approx(0.125, rel=0.05)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        (dict(vocab_size=0), "vocab_size"),
        (dict(d_model=7), "d_model must be even"),
        (dict(max_len=0), "max_len"),
        (dict(positions="rotary"), "positions must be one of"),
        (dict(dropout=1.0), "dropout"),
        (dict(padding_idx=1.5), "padding_idx must be a whole number"),
        (dict(init_std=-1.0), "init_std"),
    ],
)
def test_constructor_bad_arguments(options, match):
    arguments = dict(vocab_size=10, d_model=8, max_len=4)
    arguments.update(options)
    with pytest.raises(ValueError, match=match):
        pipeline.InputEmbedding(**arguments)


def test_padding_idx_is_checked_like_the_lookup_does():
    with pytest.raises(IndexError, match=r"padding_idx 99 is outside the vocabulary \(0\.\.9\)"):
        pipeline.InputEmbedding(10, 8, 4, padding_idx=99)
    model = pipeline.InputEmbedding(10, 8, 4, padding_idx=np.int64(0))  # a NumPy integer is fine
    assert model.tokens.padding_idx == 0


def test_odd_width_is_fine_without_sinusoids():
    assert pipeline.InputEmbedding(10, 7, 4, positions="learned")(torch.tensor([[1, 2]])).shape == (1, 2, 7)


def test_forward_bad_inputs(vocab):
    model = make_model(vocab)
    with pytest.raises(ValueError, match=r"shape \(B, T\).*ids\[None, :\]"):
        model(torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="whole numbers"):
        model(torch.tensor([[0.5, 1.0]]))
    with pytest.raises(ValueError, match="empty"):
        model(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(IndexError, match=rf"token id 99 is outside the vocabulary \(0\.\.{len(vocab) - 1}\)"):
        model(torch.tensor([[1, 99]]))
    with pytest.raises(ValueError, match="vocabulary has"):
        pipeline.text_to_vectors("the dog", WordVocabulary(["x"]), model)


# ---------------------------------------------------------------- tracing and the step slider


def test_trace_lists_every_stage_with_its_shape(vocab):
    model = make_model(vocab).eval()
    _, stages = pipeline.trace_pipeline(["the dog", "a cat sat"], vocab, model)
    names = [stage.name for stage in stages]
    assert names[0] == "token ids" and names[1] == "attention mask" and names[-1].startswith("after dropout")
    shapes = {stage.name: stage.shape_text for stage in stages}
    assert shapes["token ids"] == "(B, T) = (2, 3)"
    assert shapes["position vectors (sinusoidal)"] == "(T, C) = (3, 16)"
    assert shapes["tokens + positions"] == "(B, T, C) = (2, 3, 16)"
    assert stages[-1].tensor.shape == (2, 3, 16)


def test_trace_without_scale_or_positions_skips_those_steps(vocab):
    model = make_model(vocab, scale=False, positions=None)
    _, stages = pipeline.trace_pipeline("the dog", vocab, model)
    assert len(stages) == 4


# ---------------------------------------------------------------- the sqrt(d_model) scale


def test_scale_measurements_tell_the_truth():
    results = pipeline.measure_scale([8, 128], vocab_size=500, device="cpu")
    assert results["d"] == [8.0, 128.0]
    for d, default, small in zip(results["d"], results["var_default_scaled"], results["var_small_scaled"],
                                 strict=True):
        assert default == pytest.approx(d, rel=0.15)  # N(0, 1) init: scaled variance ~ d
        assert small == pytest.approx(1.0, rel=0.15)  # d^-1/2 init: scaled variance ~ 1
    # token norm / position norm: sqrt(2 d) for the default init, sqrt(2) for the small one
    assert results["ratio_default_scaled"][1] == pytest.approx(math.sqrt(2 * 128), rel=0.05)
    assert results["ratio_small_scaled"][1] == pytest.approx(math.sqrt(2), rel=0.05)
    with pytest.raises(ValueError, match="d_models is empty"):
        pipeline.measure_scale([])


def test_live_explorers_build():
    import ipywidgets

    from embedding_course.live import pipeline as live_pipeline

    assert isinstance(live_pipeline.pipeline_explorer(), ipywidgets.Widget)
    assert isinstance(live_pipeline.order_explorer(), ipywidgets.Widget)
