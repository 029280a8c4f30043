"""Tests of the shared argument rules, pinned once here, and of every public function using them."""

import functools
import importlib
import inspect
import math
import os
import pkgutil

import numpy as np
import pytest
import torch

import embedding_course
from embedding_course import (
    attention_order,
    batching,
    checks,
    device,
    glove,
    length_generalisation,
    lookup,
    one_hot,
    pipeline,
    positional,
    projection,
    rope,
    rope_extension,
    rope_scaling,
    rotary,
    similarity,
    tiny_transformer,
    tokens,
    training,
    untouched_rows,
)
from embedding_course.figures import lookup as lookup_figures
from embedding_course.figures import one_hot as one_hot_figures
from embedding_course.figures import positional as positional_figures
from embedding_course.figures import rotary as rotary_figures
from embedding_course.figures import sinusoidal_variants as variant_figures
from embedding_course.figures import tokens as token_figures

# ---------------------------------------------------------------- the rules


@pytest.mark.parametrize("value", [1, 7, np.int64(3), np.int32(5), np.uint8(2)])
def test_whole_numbers_include_numpy_integers(value):
    assert checks.whole(value, "n") == int(value)
    assert type(checks.whole(value, "n")) is int


def test_token_ids_name_what_they_index_in_their_messages():
    with pytest.raises(IndexError, match=r"^position -1 is negative; the position table runs from 0 to 1$"):
        checks.token_ids([-1], 2, name="position", of="the position table")
    with pytest.raises(ValueError, match=r"^positions must be whole numbers, got 'a' \(dtype <U1\)$"):
        checks.token_ids(["a"], 2, name="position", of="the position table")


def test_a_zero_dimensional_tensor_or_array_counts_as_the_number_it_holds():
    """``for p in torch.arange(4)`` hands out 0-d tensors: a position, a size or a rate may be one."""
    assert checks.whole(torch.tensor(3), "n") == 3 and type(checks.whole(torch.tensor(3), "n")) is int
    assert checks.whole(np.array(3), "n") == 3
    assert checks.index(torch.tensor(2), "position", 4) == 2
    assert checks.number(torch.tensor(2.5), "x") == 2.5 and checks.number(np.array(0.5), "x") == 0.5
    assert checks.probability(torch.tensor(0.1), "p") == pytest.approx(0.1)
    for not_a_number in (torch.tensor(True), torch.tensor([3]), torch.tensor(3.0), np.array([1, 2])):
        with pytest.raises(ValueError, match="must be a whole number"):
            checks.whole(not_a_number, "n")
    with pytest.raises(IndexError, match=r"^position 4 is outside the table \(0..3\)$"):
        checks.index(torch.tensor(4), "position", 4, of="the table")


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 2.0, "2", None, 0, -1, np.int64(0)])
def test_whole_numbers_reject_bools_floats_strings_and_too_small(value):
    with pytest.raises(ValueError, match=r"^n must be a whole number >= 1, got "):
        checks.whole(value, "n")


def test_whole_number_minimum_and_hint():
    assert checks.whole(0, "span", minimum=0) == 0
    with pytest.raises(ValueError, match=r"^dim must be a whole number >= 1, got 0 \(the width C\)$"):
        checks.whole(0, "dim", hint="the width C")
    assert checks.optional_whole(None, "max_len") is None


def test_even_widths_name_the_even_numbers_beside_an_odd_one():
    assert checks.even(np.int64(8), "d_model") == 8
    with pytest.raises(ValueError, match=r"^d_model must be even, got 7 \(sin and cos pair; try 6 or 8\)$"):
        checks.even(7, "d_model", hint="sin and cos pair")
    with pytest.raises(ValueError, match=r"^dim must be even, got 5 \(try 4 or 6\)$"):
        checks.even(5, "dim", minimum=4)
    with pytest.raises(ValueError, match=r"^d_model must be even, got 1 \(try 2\)$"):
        checks.even(1, "d_model", minimum=1)
    with pytest.raises(ValueError, match=r"^dim must be a whole number >= 4, got 2$"):
        checks.even(2, "dim", minimum=4)
    with pytest.raises(ValueError, match=r"^dim must be a whole number >= 2, got True$"):
        checks.even(True, "dim")


@pytest.mark.parametrize("value", [0.5, 3, np.float32(2.5), np.int64(4)])
def test_positive_numbers(value):
    assert checks.positive(value, "lr") == float(value)


@pytest.mark.parametrize("value", [0, -1.0, True, "1", float("nan"), float("inf"), None])
def test_positive_numbers_reject(value):
    with pytest.raises(ValueError, match=r"^lr must be a finite number > 0, got "):
        checks.positive(value, "lr")


@pytest.mark.parametrize("value", [0, 0.0, 6.3e-13, np.float64(2.5), np.int64(4)])
def test_non_negative_numbers(value):
    assert checks.non_negative(value, "error") == float(value)


@pytest.mark.parametrize("value", [-1e-13, -1, True, "0", float("nan"), float("inf"), None])
def test_non_negative_numbers_reject(value):
    with pytest.raises(ValueError, match=r"^error must be a finite number >= 0, got "):
        checks.non_negative(value, "error")


def test_numbers_above_a_bound():
    assert checks.number(10000, "base", above=1) == 10000.0
    with pytest.raises(ValueError, match=r"^base must be a finite number > 1, got 1 \(the paper"):
        checks.number(1, "base", above=1, hint="the paper uses 10000")


@pytest.mark.parametrize("value", [0, 1, 1.0, -0.5, True, float("nan"), "0.5"])
def test_numbers_between_two_bounds(value):
    assert checks.number(0.01, "learning_rate", above=0, below=1) == 0.01
    with pytest.raises(ValueError, match=r"^learning_rate must be a finite number > 0 and < 1, got "):
        checks.number(value, "learning_rate", above=0, below=1)


@pytest.mark.parametrize("value", ["cosine", "ROPE", None, 0, ["rope"], np.array(["rope", "none"])])
def test_a_choice_names_what_is_allowed(value):
    assert checks.one_of("rope", "scheme", ("none", "rope")) == "rope"
    assert checks.one_of("2x", "window", {"seen": 1, "2x": 2}) == "2x"  # the keys of a dict
    with pytest.raises(ValueError, match=r"^scheme must be one of none, rope, got "):
        checks.one_of(value, "scheme", ("none", "rope"))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: positional.SinusoidalPositionalEncoding(4, 8, layout="blocks"),
     "layout must be one of interleaved, halves, got 'blocks'"),
    (lambda: rope.apply_rope(torch.zeros(2, 4), layout="halves"),
     "layout must be one of interleaved, rotate_half, got 'halves'"),
    (lambda: lookup.table_memory_mib(lookup.MODEL_CONFIGS[0], "fp8"),
     "dtype must be one of fp32, bf16, int8, got 'fp8'"),
    (lambda: one_hot.memory_bytes(10, "fp64"), "dtype must be one of fp32, bf16, int8, got 'fp64'"),
    (lambda: pipeline.InputEmbedding(10, 8, 4, positions="rotary"),
     r"positions must be one of sinusoidal, learned, none, got 'rotary' \(or None, which is none\)"),
    (lambda: rope_scaling.scaled_frequencies("longrope", 8, 10000.0, 2.0, 16),
     "method must be one of none, linear, ntk, dynamic, yarn, llama3, got 'longrope'"),
])
def test_named_choices_share_one_rule(call, message):
    with pytest.raises(ValueError, match="^" + message + "$"):
        call()


@pytest.mark.parametrize(("value", "ok"), [(0, True), (0.1, True), (0.999, True), (1, False), (1.0, False),
                                           (-0.1, False), (True, False), ("0.1", False)])
def test_probabilities_are_in_zero_to_one(value, ok):
    if ok:
        assert checks.probability(value, "dropout") == float(value)
    else:
        with pytest.raises(ValueError, match=r"^dropout must be a probability in \[0, 1\), got "):
            checks.probability(value, "dropout")
    assert checks.probability(1, "p", include_one=True) == 1.0


def test_index_ranges():
    assert checks.index(np.int64(2), "padding_idx", 4, of="the vocabulary") == 2
    with pytest.raises(IndexError, match=r"^padding_idx 4 is outside the vocabulary \(0\.\.3\)$"):
        checks.index(4, "padding_idx", 4, of="the vocabulary")
    with pytest.raises(IndexError, match=r"^position -1 is outside the valid range \(0\.\.3\)$"):
        checks.index(-1, "position", 4)
    with pytest.raises(ValueError, match=r"^padding_idx must be a whole number, got True$"):
        checks.index(True, "padding_idx", 4)
    assert checks.optional_index(None, "padding_idx", 4) is None
    assert [checks.index(i, "step", 4, from_end=True) for i in (-4, -1, 0, 3)] == [0, 3, 0, 3]
    from_the_end = r"^step -5 is outside the valid range \(0\.\.3, or -4\.\.-1 from the end\)$"
    with pytest.raises(IndexError, match=from_the_end):
        checks.index(-5, "step", 4, from_end=True)


def test_arrays_read_tensors_with_gradients_and_check_their_rank():
    weight = torch.nn.Embedding(3, 2).weight  # requires grad
    assert checks.array(weight, "table", ndim=2).dtype == np.float64
    assert checks.array(weight, "table", keep_float32=True).dtype == np.float32
    assert checks.array([[1, 2]], "m", keep_float32=True).dtype == np.float64  # ints become float64
    with pytest.raises(ValueError, match=r"^m must be a non-empty 2-D array, got shape \(3,\)$"):
        checks.array([1, 2, 3], "m", ndim=2)
    with pytest.raises(ValueError, match=r"^m must be a non-empty array, got shape \(0,\)$"):
        checks.array([], "m")
    with pytest.raises(ValueError, match="m holds NaN or infinite values"):
        checks.vectors([[1.0, math.nan]], "m")
    with pytest.raises(ValueError, match="m must hold numbers"):
        checks.array(["a"], "m")


# ---------------------------------------------------------------- every public function uses them

WHOLE = "must be a whole number >= 1, got "
NOT_WHOLE = "must be a whole number, got "
POSITIVE = "must be a finite number > 0, got "


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda bad: positional.sinusoidal_encoding(bad, 8, device="cpu"), ValueError, "max_len " + WHOLE),
    (lambda bad: positional.sinusoidal_encoding(4, bad, device="cpu"), ValueError, "d_model " + WHOLE),
    (lambda bad: positional.naive_positions(bad), ValueError, "length " + WHOLE),
    (lambda bad: positional.binary_counter(bad, 3), ValueError, "max_len " + WHOLE),
    (lambda bad: positional.binary_counter(4, bad), ValueError, "bits " + WHOLE),
    (lambda bad: positional.rotation_error(4, 8, bad), ValueError, "offset " + WHOLE),
    (lambda bad: positional.rotation_error(bad, 8, 3), ValueError, "max_len " + WHOLE),
    (lambda bad: positional.SinusoidalPositionalEncoding(4, 8)(bad), ValueError, "seq_len " + WHOLE),
    (lambda bad: positional.LearnedPositionalEmbedding(bad, 8), ValueError, "max_len " + WHOLE),
    (lambda bad: positional.worked_example_rows(1, (8,), bad), ValueError, "dims " + WHOLE),
    (lambda bad: rope.rope_score_matrix(torch.ones(8), torch.ones(8), bad), ValueError, "seq_len " + WHOLE),
    (lambda bad: rope.alibi_slopes(bad), ValueError, "num_heads " + WHOLE),
    (lambda bad: attention_order.random_projections(bad), ValueError, "d_model " + WHOLE),
    (lambda bad: pipeline.InputEmbedding(bad, 8, 4), ValueError, "vocab_size " + WHOLE),
    (lambda bad: pipeline.InputEmbedding(10, 8, bad), ValueError, "max_len " + WHOLE),
    (lambda bad: pipeline.measure_scale([bad]), ValueError, "d_model " + WHOLE),
    (lambda bad: lookup.NumpyEmbedding(bad, 4), ValueError, "vocab_size " + WHOLE),
    (lambda bad: lookup.make_embedding(4, bad, device="cpu"), ValueError, "dim " + WHOLE),
    (lambda bad: one_hot.one_hot([0], bad), ValueError, "vocab_size " + WHOLE),
    (lambda bad: one_hot.dense_numbers(bad, 4), ValueError, "seq_len " + WHOLE),
    (lambda bad: batching.encode_batch("a b", tokens.WordVocabulary(["a", "b"]), max_len=bad), ValueError,
     "max_len " + WHOLE),
    (lambda bad: tokens.WordVocabulary.from_texts(["a b"], min_count=bad), ValueError, "min_count " + WHOLE),
    (lambda bad: training.toy_corpus(sentences=bad), ValueError, "sentences " + WHOLE),
    (lambda bad: training.train_toy_embeddings(dim=bad), ValueError, "dim " + WHOLE),
    (lambda bad: training.SkipGram(bad, 4), ValueError, "vocab_size " + WHOLE),
    (lambda bad: untouched_rows.NextTokenModel(6, bad, 0, True), ValueError, "dim " + WHOLE),
    (lambda bad: rope_extension.fine_tune(None, "copy_back", 8, bad, 4, 0.1, 0), ValueError,
     "steps " + WHOLE),
    (lambda bad: similarity.top_k([1.0, 2.0], bad), ValueError, "k " + WHOLE),
    (lambda bad: projection.fit_pca(np.eye(4), bad), ValueError, "n_components " + WHOLE),
    (lambda bad: glove.sample_groups(["capitals"], bad), ValueError, "per_group " + WHOLE),
    (lambda bad: positional_figures.compare_similarity_figure({"a": torch.eye(4)}, step=bad), ValueError,
     "step " + WHOLE),
])
@pytest.mark.parametrize("bad", [True, 2.0, "2", 0])
def test_sizes_share_the_whole_number_rule(call, error, message, bad):
    with pytest.raises(error, match="^" + message):
        call(bad)


@pytest.mark.parametrize("good", [np.int64(4), 4])
def test_sizes_accept_numpy_integers(good):
    assert positional.sinusoidal_encoding(good, 8, device="cpu").shape == (4, 8)
    assert lookup.NumpyEmbedding(good, 2).weight.shape == (4, 2)
    assert pipeline.InputEmbedding(good, 8, good).vocab_size == 4
    assert one_hot.one_hot([0], good).shape == (1, 4)


def test_many_items_are_a_non_empty_list_each_checked():
    assert checks.many((2, np.int64(3)), "d_models", "width", checks.whole) == [2, 3]
    counts = functools.partial(checks.whole, minimum=0)
    assert checks.many(torch.arange(2), "positions", "position", counts) == [0, 1]
    assert checks.many(range(2), "n", "item") == [0, 1]
    for single in (8, "ab", {"a": 1}, None, np.array(3)):
        with pytest.raises(ValueError, match=r"^d_models must be a list of widths, got "):
            checks.many(single, "d_models", "width")
    with pytest.raises(ValueError, match=r"^d_models is empty; give at least one width$"):
        checks.many([], "d_models", "width")
    with pytest.raises(ValueError, match=r"^d_models\[1\] must be a whole number >= 1, got 2\.5$"):
        checks.many([4, 2.5], "d_models", "width", checks.whole)


def test_text_is_a_string_and_the_message_names_the_type_it_got():
    assert checks.text("", "text") == ""  # a box the reader cleared
    with pytest.raises(ValueError, match=r"^text must be a string, got list \['the', 'cat'\]$"):
        checks.text(["the", "cat"], "text")
    vocabulary = tokens.WordVocabulary(["a"])
    for user in (tokens.split_words, lambda text: batching.encode_batch([text], vocabulary)):
        with pytest.raises(ValueError, match=r"must be a string, got int 3$"):
            user(3)


def test_a_path_is_a_str_or_any_path_like_and_its_users_share_the_rule(tmp_path):
    class PathLike(os.PathLike):  # not a pathlib.Path: any os.PathLike is a path
        def __fspath__(self):
            return str(tmp_path)

    assert checks.path(str(tmp_path), "folder", "folder") == tmp_path
    assert checks.path(PathLike(), "folder", "folder") == tmp_path
    for bad in (8, True, None, [str(tmp_path)]):
        with pytest.raises(ValueError, match=r"^folder must be a folder's path \(a str or a Path\), got "):
            checks.path(bad, "folder", "folder")
    with pytest.raises(ValueError, match=r"^cpuinfo must be a file's path \(a str or a Path\), got 8$"):
        device.cpu_name(8)
    for bad in (8, [str(tmp_path)]):  # a list is unhashable: the check runs before the cache
        with pytest.raises(ValueError, match=r"^folder must be a folder's path \(a str or a Path\), got "):
            glove.load_glove(bad)
    default = glove.load_glove()
    assert glove.load_glove(str(glove.glove_data_folder())) is default  # one cache entry a folder
    # a path-like folder is read as a path: here it holds no table
    with pytest.raises(FileNotFoundError, match="no GloVe table at"):
        glove.load_glove(PathLike())


def test_named_items_are_a_non_empty_mapping_each_checked():
    assert checks.named({"BERT": np.int64(30522)}, "vocab_sizes", "size", checks.whole) == {"BERT": 30522}
    with pytest.raises(ValueError, match=r"^vocab_sizes must be a mapping of names to sizes, got \[1\]$"):
        checks.named([1], "vocab_sizes", "size")
    with pytest.raises(ValueError, match=r"^vocab_sizes is empty; give at least one name -> size pair$"):
        checks.named({}, "vocab_sizes", "size")
    with pytest.raises(ValueError, match=r"^vocab_sizes\['BERT'\] must be a whole number >= 1, got 0$"):
        checks.named({"BERT": 0}, "vocab_sizes", "size", checks.whole)


# Every public function that takes a list of things: (call with the list, its name).
LIST_USERS = [
    (lambda values: positional.worked_example_rows(d_models=values), "d_models"),
    (lambda values: lookup.parameter_table_rows(configs=values), "configs"),
    (lambda values: lookup.parameter_table_rows(dtypes=values), "dtypes"),
    (lambda values: lookup.tying_rows(configs=values), "configs"),
    (lambda values: one_hot.memory_table(seq_lens=values), "seq_lens"),
    (lambda values: one_hot_figures.memory_slider_figure(seq_lens=values), "seq_lens"),
    (lambda values: glove.curated_words(names=values), "names"),
    (lambda values: length_generalisation.RunSettings(seeds=values), "seeds"),
    (lambda values: length_generalisation.RunSettings(schemes=values), "schemes"),
    (lambda values: length_generalisation.RunSettings(tasks=values), "tasks"),
    (lambda values: rope_extension.ExtensionSettings(methods=values), "methods"),
    (lambda values: rotary_figures.rotation_explorer_figure(positions=values), "positions"),
    (lambda values: rotary_figures.scaling_explorer_figure(factors=values), "factors"),
    (lambda values: rotary_figures.scaling_explorer_figure(methods=values), "methods"),
    (lambda values: positional_figures.encoding_grid_figure(d_models=values), "d_models"),
    (lambda values: positional_figures.encoding_grid_figure(bases=values), "bases"),
    (lambda values: positional_figures.position_explorer_figure(positions=values), "positions"),
    (lambda values: lookup_figures.explorer_setup(sentences=values), "sentences"),
    (lambda values: variant_figures.frequency_spacing_figure(d_models=values), "d_models"),
    (lambda values: token_figures.token_neighbours_figure(words=values), "words"),
    (lambda values: pipeline.measure_scale(values, device="cpu"), "d_models"),
]


@pytest.mark.parametrize(("user", "name"), LIST_USERS)
def test_lists_share_one_rule(user, name):
    """A single number or string, or an empty list, is refused by name, rather than by a TypeError."""
    for single in (8, 2.5, "ab"):
        with pytest.raises(ValueError, match=rf"^{name} must be a list of \w[\w ]*s, got {single!r}$"):
            user(single)
    with pytest.raises(ValueError, match=rf"^{name} is empty; give at least one \w"):
        user([])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: one_hot.memory_table(vocab_sizes=[30522]), r"^vocab_sizes must be a mapping of names to"),
    (lambda: glove.curated_words(groups=["animals"]), r"^groups must be a mapping of names to word lists"),
    (lambda: rotary_figures.wavelength_figure(bases=10_000), r"^bases must be a mapping of names to"),
    (lambda: rotary_figures.wavelength_figure(dim=None), r"^dim must be a whole number >= 2, got None"),
    (lambda: rotary_figures.wavelength_figure(context=None), r"^context must be a whole number >= 1"),
    (lambda: rotary_figures.decay_figure(max_distance="x"), r"^max_distance must be a whole number >= 1"),
    (lambda: rope_extension.run_extension(settings=3), r"^settings must be an ExtensionSettings, got int$"),
    (lambda: positional.worked_example_rows(position=None), r"^position must be a whole number >= 0"),
    (lambda: positional.closest_positions(None), r"^table must hold numbers, got dtype object$"),
    (lambda: positional.linear_shift_residual("x", 1), r"^table must hold numbers, got dtype <U1$"),
])
def test_mappings_sizes_and_settings_are_checked_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


SEED_USERS = [
    lambda seed: attention_order.random_projections(4, seed=seed),
    lambda seed: lookup.NumpyEmbedding(4, 2, seed=seed),
    lambda seed: lookup.make_embedding(4, 2, seed=seed, device="cpu"),
    lambda seed: lookup.TinyLanguageModel(4, 2, seed=seed),
    lambda seed: lookup_figures.explorer_setup(seed=seed),
    lambda seed: glove.band_cosines(glove.WordVectors(np.eye(4), list("abcd")), bands=[(1, 4)], sample=2,
                                    seed=seed),
    lambda seed: pipeline.measure_scale([8], vocab_size=4, max_len=4, seed=seed, device="cpu"),
    lambda seed: rope_scaling.fitted_score(dim=4, length=8, n_points=4, seed=seed),
    lambda seed: training.toy_corpus(seed=seed, sentences=2),
    lambda seed: training.SkipGram(4, 2, seed=seed),
    lambda seed: training.group_similarity_over_seeds([seed], steps=1),
    lambda seed: untouched_rows.NextTokenModel(4, 2, 0, True, seed=seed),
    lambda seed: length_generalisation.accuracy_by_length(None, "copy_back", 4, seed=seed),
    lambda seed: rope_extension.fine_tune(None, "copy_back", 4, 1, 2, 0.1, seed=seed),
    lambda seed: rope_extension.logit_gap_by_position(None, None, "copy_back", 4, seed=seed),
]


@pytest.mark.parametrize("user", SEED_USERS)
@pytest.mark.parametrize("bad", [-1, 2.5, "0", True, None])
def test_seeds_share_one_rule(user, bad):
    """Every seeded function says what a seed may be, rather than NumPy's or PyTorch's own error."""
    rule = r"^seed must be a whole number >= 0, got .* \(any whole number >= 0 gives a repeatable draw\)$"
    with pytest.raises(ValueError, match=rule):
        user(bad)


def test_a_numpy_integer_seeds_like_the_int_it_holds():
    assert torch.equal(lookup.make_embedding(4, 2, seed=np.int64(3), device="cpu").weight,
                       lookup.make_embedding(4, 2, seed=3, device="cpu").weight)
    assert training.toy_corpus(seed=np.uint8(5), sentences=3) == training.toy_corpus(seed=5, sentences=3)


@pytest.mark.parametrize(("call", "name"), [
    (lambda odd: positional.sinusoidal_encoding(4, odd, device="cpu"), "d_model"),
    (lambda odd: rotary.theta(0, odd), "dim"),
    (lambda odd: rope_scaling.linear_frequencies(odd, 10000.0, 2.0), "dim"),
    (lambda odd: rope.apply_rope(torch.zeros(3, odd)), "the last dimension of x"),
    (lambda odd: rope.pairs_telling_apart(odd, 3, 9), "head_width"),
])
def test_even_widths_share_one_rule(call, name):
    with pytest.raises(ValueError, match=f"^{name} must be even, got 7 \\(.*try 6 or 8\\)$"):
        call(7)


@pytest.mark.parametrize(("call", "message"), [
    (lambda bad: training.train_toy_embeddings(lr=bad), "lr " + POSITIVE),
    (lambda bad: rope.alibi_bias(4, bad), "slope " + POSITIVE),
    (lambda bad: pipeline.InputEmbedding(10, 8, 4, init_std=bad), "init_std " + POSITIVE),
    (lambda bad: positional.LearnedPositionalEmbedding(4, 8, init_std=bad), "init_std " + POSITIVE),
])
@pytest.mark.parametrize("bad", [True, 0, -1.0, "1", float("nan")])
def test_positive_numbers_share_one_rule(call, message, bad):
    with pytest.raises(ValueError, match="^" + message):
        call(bad)


@pytest.mark.parametrize("bad", [True, -0.1, 1.0, "0.1"])
def test_dropout_is_a_probability(bad):
    with pytest.raises(ValueError, match=r"^dropout must be a probability in \[0, 1\)"):
        pipeline.InputEmbedding(10, 8, 4, dropout=bad)


@pytest.mark.parametrize("call", [
    lambda bad: lookup.NumpyEmbedding(4, 2, padding_idx=bad),
    lambda bad: lookup.make_embedding(4, 2, padding_idx=bad, device="cpu"),
    lambda bad: lookup.embedding_from_table(np.zeros((4, 2)), padding_idx=bad, device="cpu"),
    lambda bad: pipeline.InputEmbedding(4, 8, 4, padding_idx=bad),
])
def test_padding_idx_is_one_rule_everywhere(call):
    with pytest.raises(IndexError, match=r"^padding_idx 4 is outside the vocabulary \(0\.\.3\)$"):
        call(4)
    with pytest.raises(IndexError, match=r"^padding_idx -1 is outside the vocabulary"):
        call(-1)
    with pytest.raises(ValueError, match=r"^padding_idx must be a whole number, got True$"):
        call(True)
    call(np.int64(0))  # a NumPy integer is a whole number


def test_index_rule_in_the_figures():
    with pytest.raises(IndexError, match=r"^position 9 is outside the table \(0\.\.4\)$"):
        positional_figures.position_explorer_figure(max_len=5, d_model=8, positions=[9])


@pytest.mark.parametrize("call", [
    lambda values: similarity.cosine_similarity_matrix(values),
    lambda values: positional.position_similarity(values),
    lambda values: training.group_similarity(values, ["a", "b"]),
])
def test_cosine_has_one_zero_vector_rule(call):
    with pytest.raises(ValueError, match="row 1 is all zeros"):
        call(np.array([[1.0, 0.0], [0.0, 0.0]]))


# ---------------------------------------------------------------- token ids: one rule for every consumer

TOKEN_ID_USERS = {  # each takes a (B, T) batch of ids for a vocabulary of 4 tokens
    "NumpyEmbedding": lambda ids: lookup.NumpyEmbedding(4, 2)(ids),
    "lookup": lambda ids: lookup.lookup(lookup.make_embedding(4, 2, device="cpu"), ids),
    "one_hot": lambda ids: one_hot.one_hot(ids, 4),
    "InputEmbedding": lambda ids: pipeline.InputEmbedding(4, 8, 4)(ids),
    "TinyTransformer": lambda ids: tiny_transformer.TinyTransformer(4)(ids),
    "train_rows": lambda ids: untouched_rows.train_rows(ids, 4, unseen=3, steps=1),
}


@pytest.mark.parametrize("user", TOKEN_ID_USERS)
@pytest.mark.parametrize(("ids", "error", "message"), [
    ([[0, 4]], IndexError, r"^token id 4 is outside the vocabulary \(0\.\.3\)$"),
    ([[-1, 0]], IndexError, r"^token id -1 is negative; the vocabulary runs from 0 to 3$"),
    ([[0.5, 1.0]], ValueError, r"^token ids must be whole numbers, got 0\.5$"),
    (torch.tensor([[1.0, 2.0]], requires_grad=True), ValueError,
     r"^token ids must have an integer dtype, got float32 \(values like 1\.0\)"),
    ([[True, False]], ValueError, r"^token ids must be whole numbers, got booleans$"),
    ([["a", "b"]], ValueError, r"^token ids must be whole numbers, got 'a' \(dtype <U1\)"),
    ([[0, 1], [2]], ValueError, r"^token ids must form a rectangular array"),
    (np.zeros((0, 2), dtype=int), ValueError, r"^token ids are empty"),
])
def test_token_ids_are_one_rule_everywhere(user, ids, error, message):
    with pytest.raises(error, match=message):
        TOKEN_ID_USERS[user](ids)


@pytest.mark.parametrize("user", ["InputEmbedding", "TinyTransformer", "train_rows"])
def test_token_id_batches_must_be_b_by_t(user):
    with pytest.raises(ValueError, match=r"^token ids must have shape \(B, T\) = \(batch, tokens\), "
                                         r"got shape \(2,\); for one sentence use ids\[None, :\]$"):
        TOKEN_ID_USERS[user]([0, 1])


def test_token_ids_rule():
    checked = checks.token_ids(torch.tensor([[1, 2]]), 3)
    assert checked.dtype == np.int64 and checked.tolist() == [[1, 2]]
    assert checks.token_ids(np.uint8(2), 3).tolist() == 2  # one id, of any integer type
    with pytest.raises(IndexError, match=r"^position 5 is outside the position table \(0\.\.4\)$"):
        checks.token_ids([0, 5], 5, name="position", of="the position table")
    with pytest.raises(ValueError, match=r"^token ids must have shape \(T,\), got shape \(1, 2\)$"):
        checks.token_ids([[0, 1]], 3, ndim=1)
    with pytest.raises(ValueError, match=r"^vocab_size must be a whole number >= 1, got 0$"):
        checks.token_ids([0], 0)


# ---------------------------------------------------------------- every public function


def _public_functions_without_required_arguments():
    """Every public function and class of the package (the notebook explorers in ``live`` too)
    that runs with its defaults alone, with the names of its arguments."""
    found = []
    for module_info in pkgutil.walk_packages(embedding_course.__path__, "embedding_course."):
        module = importlib.import_module(module_info.name)
        for name, function in vars(module).items():
            mine = getattr(function, "__module__", "") == module.__name__  # not one it imported
            if name.startswith("_") or not callable(function) or not mine:
                continue
            try:
                parameters = list(inspect.signature(function).parameters.values())
            except (TypeError, ValueError):
                continue
            named = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            if named and all(p.default is not p.empty for p in named):
                found.append((f"{module.__name__}.{name}", function, named))
    return found


PUBLIC_FUNCTIONS = _public_functions_without_required_arguments()
WRONG_VALUES = [None, -1, 2.5, "x", True, float("nan")]


@pytest.mark.parametrize(("name", "function", "parameters"), PUBLIC_FUNCTIONS,
                         ids=[name for name, _, _ in PUBLIC_FUNCTIONS])
def test_every_public_function_refuses_a_wrong_argument_by_name(name, function, parameters):
    """Each argument in turn gets None, -1, 2.5, "x", True and NaN: the function either takes it
    or says what was wrong (ValueError, IndexError, or a missing file named), never a TypeError
    or an AttributeError from deep inside."""
    for parameter in parameters:
        if parameter.name == "device" or isinstance(parameter.default, bool):
            continue
        for value in WRONG_VALUES:
            if value is None and parameter.default is None:
                continue  # None is this argument's own default
            try:
                function(**{parameter.name: value})
            except (ValueError, IndexError, FileNotFoundError):
                pass
            except Exception as error:  # any other exception is the failure
                pytest.fail(f"{name}({parameter.name}={value!r}) raised {type(error).__name__}: {error}")
