"""Tests of the tiny transformer: shapes, causality, each position scheme, argument checks."""

import pytest
import torch

from embedding_course import pipeline, positional, rope
from embedding_course.tiny_transformer import SCHEMES, TinyTransformer, parameter_count


def _model(scheme: str, **options) -> TinyTransformer:
    torch.manual_seed(0)
    settings = dict(d_model=16, n_heads=2, n_layers=2, max_len=8)
    settings.update(options)
    return TinyTransformer(12, scheme, n_classes=13, **settings).eval()


def _ids(batch: int, length: int, seed: int = 0) -> torch.Tensor:
    return torch.randint(12, (batch, length), generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_logits_have_one_row_per_position_and_class(scheme):
    assert _model(scheme)(_ids(3, 8)).shape == (3, 8, 13)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_answer_at_a_position_never_sees_later_tokens(scheme):
    """Causal: the page reads every test length from one pass because of this."""
    model = _model(scheme)
    ids = _ids(4, 8)
    changed = ids.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 12
    with torch.no_grad():
        before, after = model(ids), model(changed)
    torch.testing.assert_close(before[:, :5], after[:, :5])
    assert not torch.allclose(before[:, 5:], after[:, 5:])


@pytest.mark.parametrize("scheme", ["none", "sinusoidal", "rope", "alibi"])
def test_every_scheme_but_the_learned_table_reads_inputs_four_times_longer(scheme):
    assert _model(scheme, max_len=8)(_ids(2, 32)).shape == (2, 32, 13)


def test_a_learned_table_raises_the_package_index_error_past_its_training_length():
    model = _model("learned", max_len=8)
    assert model(_ids(2, 8)).shape == (2, 8, 13)
    with pytest.raises(IndexError, match=r"position 8 is past the learned table.*0\.\.7"):
        model(_ids(2, 9))


def test_only_the_learned_table_adds_parameters():
    counts = {scheme: parameter_count(_model(scheme)) for scheme in SCHEMES}
    assert counts["learned"] == counts["none"] + 8 * 16
    assert counts["sinusoidal"] == counts["rope"] == counts["alibi"] == counts["none"]


def test_sinusoidal_scheme_adds_the_package_table():
    model = _model("sinusoidal")
    torch.testing.assert_close(model.positions(8), positional.sinusoidal_encoding(8, 16, device="cpu"))


def test_alibi_scheme_adds_the_package_bias_per_head():
    attention = _model("alibi").blocks[0].attn
    bias = attention.score_bias(6, torch.device("cpu"))
    for head, slope in enumerate(rope.alibi_slopes(2).tolist()):
        torch.testing.assert_close(bias[head], rope.alibi_bias(6, slope).float())


def test_rope_scheme_scores_do_not_depend_on_where_a_pair_of_tokens_sits():
    """Same two tokens, same distance, different place: RoPE's attention weights agree."""
    model = _model("rope", n_layers=1)
    attention = model.blocks[0].attn
    captured = []
    original = torch.nn.functional.softmax

    def spy(scores, dim):
        captured.append(scores)
        return original(scores, dim=dim)

    torch.nn.functional.softmax = spy
    try:
        with torch.no_grad():
            x = torch.randn(1, 12, 16, generator=torch.Generator().manual_seed(1))
            x[0, 7], x[0, 9] = x[0, 2], x[0, 4]  # the pair (2, 4) repeated at (7, 9)
            attention(x)
    finally:
        torch.nn.functional.softmax = original
    scores = captured[0][0]  # (H, T, T)
    torch.testing.assert_close(scores[:, 4, 2], scores[:, 9, 7])


@pytest.mark.parametrize("options, message", [
    (dict(scheme="cosine"), r"^scheme must be one of none, sinusoidal, learned, rope, alibi, got 'cosine'$"),
    (dict(scheme=None), "scheme must be one of"),
    (dict(vocab_size=0), "vocab_size must be a whole number >= 1"),
    (dict(n_classes=2.5), "n_classes must be"),
    (dict(d_model=18, n_heads=4), "must split into 4 heads of even size"),
    (dict(d_model=12, n_heads=4), "must split into 4 heads of even size"),
    (dict(n_layers=True), "n_layers must be"),
    (dict(max_len=0), "max_len must be"),
])
def test_bad_arguments_raise_a_clear_value_error(options, message):
    arguments = dict(vocab_size=12, scheme="none")
    arguments.update(options)
    with pytest.raises(ValueError, match=message):
        TinyTransformer(arguments.pop("vocab_size"), arguments.pop("scheme"), **arguments)


def test_bad_token_ids_are_rejected():
    model = _model("none")
    with pytest.raises(ValueError, match="token ids must have an integer dtype"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"token ids must have shape \(B, T\)"):
        model(torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="empty"):
        model(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(IndexError, match=r"token id 12 is outside the vocabulary \(0\.\.11\)"):
        model(torch.tensor([[0, 12]]))


@pytest.mark.parametrize("make", [lambda: TinyTransformer(4), lambda: pipeline.InputEmbedding(4, 8, 4)])
def test_ids_are_moved_to_the_models_device(make):
    """Like InputEmbedding, the model moves the ids to its table's device ("meta" stands in for a GPU)."""
    model = make().to("meta")
    table = model.token_embedding if isinstance(model, TinyTransformer) else model.tokens
    seen = []
    table.register_forward_pre_hook(lambda module, inputs: seen.append(inputs[0].device))
    model(torch.tensor([[0, 1]]))
    assert seen == [torch.device("meta")]
