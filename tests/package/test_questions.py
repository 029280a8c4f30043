"""The claims of "Questions learners ask", pinned on the real tables and small controlled cases."""

import math

import numpy as np
import pytest
import torch

from embedding_course import (
    batching,
    lookup,
    pipeline,
    positional,
    pretrained,
    rope,
    table_measures,
    token_identity,
)
from embedding_course.exercises import questions as ex
from embedding_course.figures import questions as figures

# The page's sample: every 100th word piece after the special and [unused] entries.
WORD_IDS = np.arange(1996, 30522, 100)
TEST_POSITIONS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 510, 511]


@pytest.fixture(scope="module")
def tables():
    return pretrained.bert_token_table(), pretrained.bert_position_table()


@pytest.fixture(scope="module")
def recovery(tables):
    tokens, positions = tables
    nearest = token_identity.token_recovery(tokens, positions, WORD_IDS, TEST_POSITIONS)
    return nearest, (nearest == WORD_IDS[None, :]).mean(axis=1)


# ---------------------------------------------------------------- 1. the sqrt(d) scale

def test_minilm_tokens_are_a_little_longer_than_positions_and_the_scale_would_drown_them(tables):
    tokens, positions = tables
    plain = pipeline.norm_ratio(tokens, positions)
    scaled = pipeline.norm_ratio(tokens, positions, math.sqrt(384))
    assert 1.5 < plain < 3  # comparable sizes, tokens somewhat longer
    assert scaled == pytest.approx(plain * math.sqrt(384))
    assert scaled > 30


def test_norm_ratio_is_the_ratio_of_mean_lengths():
    tokens = np.array([[3.0, 4.0], [0.0, 1.0]])  # lengths 5 and 1
    positions = np.array([[1.0, 0.0], [0.0, 2.0]])  # lengths 1 and 2
    assert pipeline.norm_ratio(tokens, positions) == pytest.approx(3 / 1.5)
    assert pipeline.norm_ratio(tokens, positions, scale=2) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="scale"):
        pipeline.norm_ratio(tokens, positions, scale=0)
    with pytest.raises(ValueError, match="token_table"):
        pipeline.norm_ratio(np.ones(3), positions)


def test_only_the_small_start_makes_the_scaled_tokens_comparable_at_width_384():
    fresh = pipeline.measure_scale([384], vocab_size=500, device="cpu")
    assert 1 < fresh["ratio_small_scaled"][0] < 2  # sqrt(2): unit variance against PE's 1/2
    assert fresh["ratio_default_scaled"][0] > 15
    assert fresh["ratio_small_unscaled"][0] < 0.1


# ---------------------------------------------------------------- 2. sin and cos

def test_sines_alone_collide_more_and_lose_the_linear_shift():
    full = positional.sinusoidal_encoding(128, 64, device="cpu", dtype=torch.float64)
    sines = positional.sine_only_encoding(128, 64)
    assert sines.shape == (128, 32)
    assert torch.equal(sines, full[:, 0::2])
    assert float(sines[0].norm()) == 0  # position 0 is the zero vector
    assert positional.closest_positions(sines)[2] < positional.closest_positions(full)[2] / 2
    assert positional.linear_shift_residual(full, 1) < 1e-12
    assert positional.linear_shift_residual(sines, 1) > 0.1


def test_closest_positions_finds_the_nearest_pair():
    table = torch.tensor([[0.0, 0.0], [5.0, 0.0], [0.0, 0.3], [9.0, 9.0]])
    assert positional.closest_positions(table) == (0, 2, pytest.approx(0.3))
    with pytest.raises(ValueError, match="at least two rows"):
        positional.closest_positions(torch.ones(1, 4))


def test_linear_shift_residual_is_zero_for_a_linear_recurrence_and_checks_its_offset():
    rotation = torch.tensor([[0.6, -0.8], [0.8, 0.6]], dtype=torch.float64)
    rows = [torch.tensor([1.0, 0.5], dtype=torch.float64)]
    for _ in range(9):
        rows.append(rotation @ rows[-1])
    assert positional.linear_shift_residual(torch.stack(rows), 3) < 1e-12
    with pytest.raises(ValueError, match="more than offset"):
        positional.linear_shift_residual(torch.stack(rows), 10)


def test_worked_row_labels_dimensions_2i_and_2i_plus_1():
    table = positional.worked_example_rows(position=1, d_models=(512,), dims=6)
    assert "| 2 (sin, pair 1) | 0.822 |" in table and "| 3 (cos, pair 1) | 0.570 |" in table


# ---------------------------------------------------------------- 3 and 4. adding keeps the token

def test_concatenation_is_a_sum_with_zero_blocks():
    concatenated, summed = token_identity.concatenation_as_sum([1.0, 2.0], [3.0, 4.0, 5.0])
    assert concatenated.tolist() == [1, 2, 3, 4, 5]
    assert np.array_equal(concatenated, summed)


def test_minilm_keeps_every_sampled_token_after_position_0_and_loses_some_to_cls_there(tables, recovery):
    nearest, recovered = recovery
    assert len(WORD_IDS) == 286
    assert np.all(recovered[1:] == 1.0)  # every tested position after the first
    assert 0.5 < recovered[0] < 0.9
    lost = nearest[0][nearest[0] != WORD_IDS]
    assert set(lost.tolist()) == {pretrained.wordpiece_tokenizer().token_to_id("[CLS]")}
    # "a word piece with a short vector": every lost one is shorter than the median kept one
    tokens, _ = tables
    lengths, lost_here = np.linalg.norm(tokens[WORD_IDS], axis=1), nearest[0] != WORD_IDS
    assert lengths[lost_here].max() < np.median(lengths[~lost_here])


def test_position_0_is_the_longest_row_and_several_times_the_median(tables):
    _, positions = tables
    lengths = np.linalg.norm(positions, axis=1)
    assert int(lengths.argmax()) == 0
    assert 4 < lengths[0] / np.median(lengths) < 6
    assert lengths[511] > 1.5 * np.median(lengths)  # the last row is long too, yet every token survives it


def test_positions_live_in_few_directions_mostly_outside_the_token_tables_main_ones(tables):
    tokens, positions = tables
    own = token_identity.principal_directions(positions, 16)
    words = token_identity.principal_directions(tokens[1996:], 64)
    assert token_identity.subspace_share(positions, own) > 0.95
    assert token_identity.subspace_share(positions, words) < 0.2 * 64 / 384  # far below a random subspace


def test_token_recovery_on_a_tiny_table_and_its_errors():
    tokens = np.eye(3)  # three orthogonal tokens
    positions = np.array([[0.1, 0.0, 0.0], [0.0, 5.0, 0.0]])  # a small one, and one that swamps token 1
    nearest = token_identity.token_recovery(tokens, positions, [0, 2], [0, 1])
    assert nearest.tolist() == [[0, 2], [1, 1]]
    with pytest.raises(IndexError, match="token id 3"):
        token_identity.token_recovery(tokens, positions, [3], [0])
    with pytest.raises(IndexError, match="position 2"):
        token_identity.token_recovery(tokens, positions, [0], [2])
    with pytest.raises(ValueError, match="same width"):
        token_identity.token_recovery(tokens, np.ones((2, 4)), [0], [0])


def test_token_recovery_reads_ids_and_positions_as_tensors():
    tokens, positions = np.eye(3), np.array([[0.1, 0.0, 0.0], [0.0, 5.0, 0.0]])
    nearest = token_identity.token_recovery(tokens, positions, torch.tensor([0, 2]), torch.arange(2))
    assert nearest.tolist() == [[0, 2], [1, 1]]
    with pytest.raises(ValueError, match=r"^token ids must be whole numbers, got booleans$"):
        token_identity.token_recovery(tokens, positions, [True], [0])


def test_principal_directions_are_orthonormal_and_ordered():
    generator = np.random.default_rng(0)
    points = generator.standard_normal((500, 3)) * np.array([5.0, 1.0, 0.1])
    directions = token_identity.principal_directions(points, 2)
    assert np.allclose(directions @ directions.T, np.eye(2))
    assert abs(directions[0, 0]) > 0.99 and abs(directions[1, 1]) > 0.99
    with pytest.raises(ValueError, match="k must be at most 3"):
        token_identity.principal_directions(points, 4)


# ---------------------------------------------------------------- 5. the base

def test_offset_similarity_matches_the_full_table():
    table = positional.sinusoidal_encoding(64, 32, base=100, device="cpu", dtype=torch.float64)
    similarity = positional.position_similarity(table)
    profile = positional.offset_similarity(np.arange(20), 32, base=100)
    assert np.allclose(profile, similarity[10, 10:30].numpy())


def test_a_larger_base_keeps_far_positions_more_alike_and_more_pairs_slow():
    far = np.arange(1024, 2049)
    mean_abs = [float(np.abs(positional.offset_similarity(far, 512, base)).mean())
                for base in (100, 10_000, 500_000)]
    assert mean_abs[0] < mean_abs[1] < mean_abs[2]
    assert positional.wavelengths(512, 100)[-1] < 2048 < positional.wavelengths(512, 10_000)[-1]
    assert positional.pairs_slower_than(2048, 512, 100) == 0
    assert positional.pairs_slower_than(8192, 128, 10_000) < positional.pairs_slower_than(8192, 128, 500_000)


def test_pairs_slower_than_counts_wavelengths_above_the_length():
    lengths = positional.wavelengths(128, 10_000).numpy()
    assert positional.pairs_slower_than(2048, 128) == int((lengths > 2048).sum())
    assert positional.pairs_slower_than(1, 128) == 64  # even the fastest pair needs 2 pi > 1
    with pytest.raises(ValueError, match="length"):
        positional.pairs_slower_than(0, 128)


# ---------------------------------------------------------------- 6 and 7. learned tables, rotation

def test_learned_table_stops_at_512_and_explains_less_by_offset_than_sinusoids(tables):
    _, positions = tables
    learned = positional.LearnedPositionalEmbedding.from_table(positions)
    with pytest.raises(IndexError):
        learned(600)
    share = table_measures.offset_explained_variance(
        positional.position_similarity(torch.as_tensor(positions, dtype=torch.float64)))
    sinusoidal = table_measures.offset_explained_variance(positional.position_similarity(
        positional.sinusoidal_encoding(512, 384, device="cpu", dtype=torch.float64)))
    assert 0.2 < share < 0.8 < 0.99 < sinusoidal


def test_every_arrow_of_the_rotation_picture_turns_by_the_same_angle():
    for pair in (0, 24):
        omega = float(positional.inverse_frequencies(512)[pair])
        start = positional.encode_positions([0, 7, 20], 512, device="cpu", dtype=torch.float64)
        moved = positional.encode_positions([2, 9, 22], 512, device="cpu", dtype=torch.float64)
        before = torch.atan2(start[:, 2 * pair], start[:, 2 * pair + 1])
        after = torch.atan2(moved[:, 2 * pair], moved[:, 2 * pair + 1])
        turn = torch.remainder(after - before, 2 * math.pi)
        assert torch.allclose(turn, torch.full_like(turn, (2 * omega) % (2 * math.pi)))
    assert max(positional.rotation_error(1000, 512, k) for k in (1, 5, 50)) < 1e-12


# ---------------------------------------------------------------- 8. weight tying

def test_tied_weights_share_storage_and_untied_do_not():
    tied = lookup.TinyLanguageModel(10, 4, tie_weights=True)
    untied = lookup.TinyLanguageModel(10, 4, tie_weights=False)
    assert lookup.shares_storage(tied.output.weight, tied.embedding.weight)
    assert not lookup.shares_storage(untied.output.weight, untied.embedding.weight)
    weight = tied.embedding.weight.detach()
    assert not lookup.shares_storage(weight, weight.t())  # same memory, another layout
    with pytest.raises(ValueError, match="tensor"):
        lookup.shares_storage(weight, [1, 2])


def test_tying_savings_for_real_configurations():
    saved, share = lookup.tying_saving(lookup.model_config("GPT-2 small"))
    assert saved == 50_257 * 768 == 38_597_376
    assert share == pytest.approx(saved / (124_439_808 + saved))
    llama_saved, llama_share = lookup.tying_saving(lookup.model_config("LLaMA-2-7B"))
    assert llama_saved == 32_000 * 4096 and llama_share == pytest.approx(llama_saved / 6_738_415_616)
    tied = {config.name for config in lookup.TYING_EXAMPLES if config.tied_output}
    assert tied == {"GPT-2 small", "BERT-base (uncased)", "Gemma-2B", "Llama-3.2-1B"}
    header, rows = lookup.tying_rows()
    assert len(rows) == len(lookup.TYING_EXAMPLES) and rows[0][3] == "38.6\u00a0M"
    # A separate output layer: what tying would save, said once in the header, not in each cell.
    assert header[3] == "tying saves (or would)" and rows[2][2:4] == ["separate", "131.1\u00a0M"]


def test_gemma_and_llama_3_2_totals_follow_from_their_architectures():
    def llama_like(vocab, width, layers, ffn, heads, kv_heads, head_dim):
        attention = width * heads * head_dim * 2 + width * kv_heads * head_dim * 2
        per_layer = attention + 3 * width * ffn + 2 * width
        return vocab * width + layers * per_layer + width  # tied: no separate output layer

    gemma = next(c for c in lookup.TYING_EXAMPLES if c.name == "Gemma-2B")
    small_llama = next(c for c in lookup.TYING_EXAMPLES if c.name == "Llama-3.2-1B")
    assert gemma.total_parameters == llama_like(256_000, 2048, 18, 16_384, 8, 1, 256)
    assert small_llama.total_parameters == llama_like(128_256, 2048, 16, 8192, 32, 8, 64)


# ---------------------------------------------------------------- 9 and 10. layouts, long contexts

def test_the_interleaved_table_reordered_is_the_halves_table():
    interleaved = positional.sinusoidal_encoding(64, 16, device="cpu")
    halves = positional.sinusoidal_encoding(64, 16, layout="halves", device="cpu")
    assert torch.equal(halves, interleaved[:, positional.halves_permutation(16)])


def test_pairs_unseen_past_the_training_length():
    assert positional.pairs_slower_than(2048, 128, 10_000) == 23
    assert positional.pairs_slower_than(8192, 128, 500_000) == 29


# ---------------------------------------------------------------- left padding

def test_position_ids_from_mask_with_right_padding_repeat_the_last_position():
    """Right-padded slots keep the last real position (Hugging Face's generate writes 0 there)."""
    assert batching.position_ids_from_mask([1, 1, 1, 0, 0]).tolist() == [0, 1, 2, 2, 2]


def test_position_ids_from_mask():
    assert batching.position_ids_from_mask([0, 0, 1, 1, 1]).tolist() == [0, 0, 0, 1, 2]
    batch = torch.tensor([[1, 1, 0], [0, 1, 1]])
    assert batching.position_ids_from_mask(batch).tolist() == [[0, 1, 1], [0, 0, 1]]
    with pytest.raises(ValueError, match="only True/1"):
        batching.position_ids_from_mask([0, 2, 1])
    with pytest.raises(ValueError, match="non-empty"):
        batching.position_ids_from_mask([])


def test_left_padding_changes_minilms_inputs_unless_the_ids_are_corrected():
    tokenizer = pretrained.wordpiece_tokenizer()
    ids = np.asarray(tokenizer.encode("the cat sat on the mat").ids)
    padded = np.concatenate([[tokenizer.token_to_id("[PAD]")] * 3, ids])
    mask = torch.tensor([0, 0, 0] + [1] * len(ids))
    alone = pretrained.bert_embedding_output(ids, np.arange(len(ids)))
    shifted = pretrained.bert_embedding_output(padded, np.arange(len(padded)))[3:]
    corrected = pretrained.bert_embedding_output(padded, batching.position_ids_from_mask(mask).numpy())[3:]
    assert np.array_equal(alone, corrected)
    lengths = np.linalg.norm(alone, axis=1) * np.linalg.norm(shifted, axis=1)
    cosines = np.sum(alone * shifted, axis=1) / lengths
    assert np.all(cosines < 0.99)
    assert int(cosines.argmin()) == 0  # [CLS], moved off its special row 0


def test_left_padding_leaves_a_rope_head_s_scores_as_they_were():
    """A RoPE model needs no corrected ids: shifting every position keeps each score (rounding)."""
    queries, keys = torch.randn(2, 8, 64, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert rope.shifted_scores_gap(queries, keys, 3) < 1e-14  # three pad tokens, as on the page


def test_bert_embedding_output_is_layer_normalised_and_checks_its_arguments():
    output = pretrained.bert_embedding_output([101, 1996], [0, 1])
    assert output.shape == (2, 384) and output.dtype == np.float32
    with pytest.raises(IndexError, match="position id 512"):
        pretrained.bert_embedding_output([101], [512])
    with pytest.raises(ValueError, match="one length"):
        pretrained.bert_embedding_output([101, 1996], [0])


# ---------------------------------------------------------------- figures and exercises

LESSON_FIGURES = {  # lesson 9's static figures, with its arguments and numbers like its own
    "norm ratios": lambda: figures.norm_ratio_figure({
        "MiniLM as trained (no scale)": 2.2, "MiniLM x sqrt(384)": 44.0, "N(0, 1) start x sqrt(d)": 28.0,
        "N(0, 1/d) start x sqrt(d)": 1.4, "N(0, 1/d) start, no scale": 0.072}),
    "recovery": lambda: figures.recovery_figure(
        [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 510, 511], np.array([0.73] + [1.0] * 12),
        np.array([2.36, 0.5, 0.45, 0.44, 0.45, 0.44, 0.41, 0.47, 0.48, 0.49, 0.5, 0.85, 0.97])),
    "base similarity": lambda: figures.base_similarity_figure([100, 10_000, 500_000], 512, 2048),
    "rotation": lambda: figures.rotation_figure(512, pairs=(0, 24), offset=2, positions=(0, 10, 20)),
    "padding": lambda: figures.padding_figure(
        ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"],
        np.array([0.46, 0.86, 0.96, 0.96, 0.89, 0.87, 0.95, 0.89]), np.ones(8)),
}


@pytest.mark.parametrize("name", list(LESSON_FIGURES))
def test_the_lesson_s_figures_read_whole_on_a_desktop_and_on_a_phone(name):
    """No text past the edge or over another, wide and in the phone drawing, and no marker cut off
    at a panel's edge (the recovery figure's points at positions 0 and 511 once were)."""
    from .figure_checks import assert_lesson_figure_reads_whole

    assert_lesson_figure_reads_whole(LESSON_FIGURES[name]())


def test_figures_draw():
    assert figures.norm_ratio_figure({"a": 2.0, "b": 0.5}).axes
    assert len(figures.recovery_figure([0, 1, 2], np.array([0.5, 1, 1]), np.array([2.0, 0.4, 0.4])).axes) == 2
    assert figures.base_similarity_figure([100, 10_000], 64, 128).axes
    assert len(figures.rotation_figure(64, (0, 4), 5, (0, 7)).axes) == 2
    assert figures.padding_figure(["a", "b"], np.array([0.5, 0.9]), np.array([1.0, 1.0])).axes
    explorer = figures.base_explorer([100, 10_000], 64, 128)
    assert len(explorer.layout.sliders[0].steps) == 2
    with pytest.raises(ValueError, match="ratios is empty"):
        figures.norm_ratio_figure({})


def test_exercises_accept_the_worked_answers_and_name_the_mistakes(tables):
    tokens, positions = tables
    lengths = np.linalg.norm(tokens, axis=1).mean(), np.linalg.norm(positions, axis=1).mean()
    right = float(lengths[0] / math.sqrt(384) / lengths[1])
    assert ex.check_scaled_ratio(right)
    assert "without the scale" in str(ex.check_scaled_ratio(pipeline.norm_ratio(tokens, positions)))
    assert "as the paper does" in str(ex.check_scaled_ratio(right * 384))
    assert "a position vector's length over" in str(ex.check_scaled_ratio(1 / right))
    # the answers are not those the page quotes just above the checks (44 times; 29 pairs)
    assert 0.1 < right < 0.2
    assert ex.check_slow_pairs(22)
    assert "base 10,000" in str(ex.check_slow_pairs(4))
    assert "do complete a turn" in str(ex.check_slow_pairs(42))
    # the count the page quotes just above (8,192 tokens) is named; the hint gives this context
    assert "this head runs on 32,768" in str(ex.check_slow_pairs(29))
    assert "8,192" not in ex.slow_pairs_exercise().hint and "32,768" in ex.slow_pairs_exercise().hint
    assert ex.check_padded_positions([0, 0, 0, 0, 1, 2, 3])
    assert "arange(T)" in str(ex.check_padded_positions(list(range(7))))
    assert "off by one" in str(ex.check_padded_positions([0, 0, 0, 1, 2, 3, 4]))


def test_rotation_figure_s_arrows_end_clear_of_the_other_positions_dots():
    """Lesson 9's rotation figure: in each pair's panel an arrow that ends on another position's
    dot reads as a chain from one to the other (at positions 0, 7 and 20, pair 24's arrow from 20
    ended on the dot of 7). Every arrow's end is a tenth of the radius or more from every dot
    but its own start's."""
    figure = figures.rotation_figure(512, pairs=(0, 24), offset=2, positions=(0, 10, 20))
    for axes in figure.axes:
        dots = [np.array([line.get_xdata()[0], line.get_ydata()[0]]) for line in axes.lines
                if line.get_marker() == "o"]
        ends = [np.array(arrow.xy) for arrow in axes.texts]  # the arrows, in the dots' order
        assert len(dots) == len(ends) == 3
        for index, end in enumerate(ends):
            others = [dot for other, dot in enumerate(dots) if other != index]
            assert min(np.linalg.norm(end - dot) for dot in others) > 0.1, axes.get_title()


def test_rotation_figure_legend_reads_whole_wide_and_on_a_phone():
    from embedding_course.plotting import narrow_figure

    from .figure_checks import assert_legends_read_whole

    wide = figures.rotation_figure(512, pairs=(0, 24), offset=2, positions=(0, 10, 20))
    assert_legends_read_whole(wide)
    assert_legends_read_whole(narrow_figure(wide))


def test_position_ids_from_the_mask_are_those_hugging_faces_generate_makes():
    """Lesson 9: cumsum(mask) - 1 with the padded slots set to 0, as generate does."""
    from transformers.generation.utils import GenerationMixin

    mask = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]])  # left padding, none
    ids = torch.ones_like(mask)
    theirs = GenerationMixin._prepare_position_ids_for_generation(None, ids, {"attention_mask": mask})
    assert torch.equal(batching.position_ids_from_mask(mask), theirs)
    assert theirs[0, :3].tolist() == [0, 0, 0] and theirs[0, 3:].tolist() == [0, 1, 2, 3]
