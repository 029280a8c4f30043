"""The toy training run: words that share contexts become similar; the run is deterministic."""

import itertools

import numpy as np
import plotly.graph_objects as go
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from embedding_course import SEED, plotting, rounding, training
from embedding_course.figures import training as training_figures
from embedding_course.tokens import WordVocabulary


@pytest.fixture(scope="module")
def run() -> training.ToyTrainingRun:
    return training.train_toy_embeddings(device="cpu")


def test_groups_have_four_to_six_distinct_words():
    assert list(training.TOY_GROUPS) == ["animals", "foods", "colours", "vehicles"]
    words = [word for group in training.TOY_GROUPS.values() for word in group]
    assert len(words) == len(set(words))
    assert all(4 <= len(group) <= 6 for group in training.TOY_GROUPS.values())


def test_corpus_is_seeded_and_uses_every_word():
    corpus = training.toy_corpus()
    assert corpus == training.toy_corpus()
    assert corpus != training.toy_corpus(seed=1)
    text = " ".join(corpus).split()
    assert all(word in text for group in training.TOY_GROUPS.values() for word in group)


def test_words_of_a_group_share_their_contexts():
    corpus = training.toy_corpus()
    vocabulary = WordVocabulary.from_texts(corpus)
    pairs = training.context_pairs(corpus, vocabulary)
    contexts = {word: set(pairs[pairs[:, 0] == vocabulary.token_to_id[word], 1].tolist())
                for group in training.TOY_GROUPS.values() for word in group}
    assert contexts["cat"] == contexts["dog"]
    assert len(contexts["cat"] & contexts["car"]) < len(contexts["cat"])


def test_context_pairs_of_a_short_sentence():
    vocabulary = WordVocabulary(["a", "b", "c"])
    pairs = training.context_pairs(["a b c"], vocabulary, window=1)
    a, b, c = 2, 3, 4
    assert pairs.tolist() == [[a, b], [b, a], [b, c], [c, b]]


def test_run_records_what_the_api_promises(run):
    words = [word for group in training.TOY_GROUPS.values() for word in group]
    assert run.words == words
    assert run.groups == [name for name, group in training.TOY_GROUPS.items() for _ in group]
    assert run.steps[0] == 0 and run.steps[-1] == 300
    assert run.steps == list(range(0, 301, 25))
    assert len(run.snapshots) == len(run.steps)
    assert all(s.shape == (len(words), 16) and s.dtype == np.float32 for s in run.snapshots)
    assert len(run.losses) == 300
    assert run.table.shape == (len(run.vocabulary), 16) and run.table.dtype == np.float32
    ids = [run.vocabulary.token_to_id[word] for word in words]
    assert np.array_equal(run.table[ids], run.snapshots[-1])


def test_two_runs_with_one_seed_are_identical(run):
    again = training.train_toy_embeddings(device="cpu")
    assert all(np.array_equal(a, b) for a, b in zip(run.snapshots, again.snapshots, strict=True))
    assert run.losses == again.losses


def test_loss_goes_down(run):
    assert run.losses[-1] < 0.6 * run.losses[0]
    assert np.mean(run.losses[-10:]) < np.mean(run.losses[:10])


def test_training_makes_group_words_closer_than_other_words(run):
    within_before, across_before = training.group_similarity(run.snapshots[0], run.groups)
    within_after, across_after = training.group_similarity(run.snapshots[-1], run.groups)
    assert within_after > across_after + 0.4
    assert within_after - across_after > 3 * abs(within_before - across_before)
    assert abs(within_before - across_before) < 0.2


@pytest.mark.retrains  # trains lesson 3's five seeds again
def test_lesson_3_quotes_the_seeds_spread_not_one_run_s_digits():
    """Lesson 3: before training the groups do not show (within is sometimes above across,
    sometimes below); after it, every seed's within stands far above every seed's across.
    The ends it quotes at two decimals are ones no rounding difference moves."""
    spread = training.group_similarity_over_seeds(range(SEED, SEED + 5), device="cpu", snapshot_every=300)
    assert all(len(per_seed) == 5 for per_seed in spread.values())
    ends = {name: rounding.outward_ends(per_seed, decimals=2) for name, per_seed in spread.items()}
    assert all(low > -0.1 and high < 0.1 for name, (low, high) in ends.items() if name.endswith("before"))
    gaps = np.subtract(spread["within_before"], spread["across_before"])
    assert gaps.min() < 0 < gaps.max()  # one run's gap (0.08 against -0.01) was noise
    assert ends["within_after"][0] > ends["across_after"][1] + 0.5


def test_group_similarity_over_seeds_refuses_no_seeds_and_bad_seeds():
    with pytest.raises(ValueError, match="at least one seed"):
        training.group_similarity_over_seeds([])
    with pytest.raises(ValueError, match="seed"):
        training.group_similarity_over_seeds([-1])


def test_claim_the_groups_settle_within_the_first_200_steps_on_any_machine(run):
    """Lesson 6: "90% of its final value within the first 200 steps". The snapshot where it first
    does is 175, with 150 a hair below (0.693 against 0.695), so the text quotes hundreds; 200 and
    after stand well above, and 100 well below."""
    within = [training.group_similarity(snapshot, run.groups)[0] for snapshot in run.snapshots]
    threshold = 0.9 * within[-1]
    at = dict(zip(run.steps, within, strict=True))
    assert next(step for step in run.steps if at[step] >= threshold) in (150, 175)
    assert all(at[step] > threshold + 0.02 for step in run.steps if step >= 200)
    assert at[100] < threshold - 0.05


def test_the_toy_s_blocks_are_as_tight_as_glove_s_and_stand_apart_where_glove_s_do_not(run):
    """Lesson 6: within the groups the toy's cosines are about GloVe's; across them the toy's are
    near 0 and GloVe's well above it (the common direction of frequent words)."""
    from embedding_course import glove

    words, groups = glove.sample_groups(["animals", "colours", "countries", "royalty"], per_group=4)
    glove_within, glove_across = training.group_similarity(glove.load_glove().vectors(words), groups)
    toy_within, toy_across = training.group_similarity(run.snapshots[-1], run.groups)
    assert abs(toy_within - glove_within) < 0.1
    assert abs(toy_across) < 0.15 < glove_across - 0.1


def test_snapshot_schedule_ends_at_the_last_step():
    short = training.train_toy_embeddings(dim=4, steps=7, snapshot_every=3, device="cpu")
    assert short.steps == [0, 3, 6, 7]
    assert len(short.losses) == 7


def test_group_similarity_of_known_vectors():
    vectors = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    within, across = training.group_similarity(vectors, ["a", "a", "b", "b"])
    assert within > 0.99 and across < 0.2


def test_before_after_figure_names_every_word_without_overlap_wide_and_on_a_phone(run):
    wide = training_figures.before_after_figure(run)
    for figure in (wide, plotting.narrow_figure(wide)):
        plotting.figure_png(figure)  # lays it out
        renderer = FigureCanvasAgg(figure).get_renderer()
        for axes in figure.axes[:2]:
            for labels in (axes.get_xticklabels(), axes.get_yticklabels()):
                assert [label.get_text() for label in labels if label.get_visible()] == run.words
                boxes = [label.get_window_extent(renderer) for label in labels]
                assert not any(box.overlaps(after) for box, after in itertools.pairwise(boxes))
                assert min(label.get_fontsize() for label in labels) >= 10


def test_figures(run):
    assert isinstance(training_figures.loss_figure(run), Figure)
    assert isinstance(training_figures.similarity_heatmap(run, 0), Figure)
    assert len(training_figures.before_after_figure(run).axes) == 3  # two panels and a colour bar
    slider = training_figures.similarity_slider_figure(run)
    assert isinstance(slider, go.Figure)
    assert len(slider.layout.sliders[0].steps) == len(run.steps)
    first, last = np.asarray(slider.data[0].z), np.asarray(slider.data[-1].z)
    assert not np.allclose(first, last)


# ---------------------------------------------------------------- bad inputs

@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: training.train_toy_embeddings(dim=0), ValueError, "dim must be a whole number >= 1"),
    (lambda: training.train_toy_embeddings(steps=2.5), ValueError, "steps must be a whole number >= 1"),
    (lambda: training.train_toy_embeddings(snapshot_every=0), ValueError, "snapshot_every must be"),
    (lambda: training.train_toy_embeddings(lr=0), ValueError, "lr must be a finite number > 0, got 0"),
    (lambda: training.toy_corpus(sentences=0), ValueError, "sentences must be a whole number >= 1"),
    (lambda: training.context_pairs([], WordVocabulary(["a"])), ValueError, "corpus is empty"),
    (lambda: training.context_pairs(["a"], WordVocabulary(["a"])), ValueError, "no context pairs"),
    (lambda: training.context_pairs(["a b"], WordVocabulary(["a"]), window=0), ValueError,
     "window must be a whole number >= 1"),
    (lambda: training.group_similarity(np.eye(3), ["a", "b"]), ValueError, "2 group labels for 3 vectors"),
    (lambda: training.group_similarity(np.eye(2), ["a", "b"]), ValueError, "need at least two groups"),
])
def test_bad_arguments_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_similarity_heatmap_counts_snapshots_as_a_list_does_and_rejects_a_missing_one(run):
    last = training_figures.similarity_heatmap(run, -1)
    assert last.axes[0].get_title() == training_figures.similarity_heatmap(run, 12).axes[0].get_title()
    for missing in (13, -14):
        with pytest.raises(IndexError, match=rf"^snapshot index {missing} is outside the snapshots "
                                             r"\(0\.\.12, or -13\.\.-1 from the end\)$"):
            training_figures.similarity_heatmap(run, missing)
    with pytest.raises(ValueError, match=r"^snapshot index must be a whole number, got 2\.5$"):
        training_figures.similarity_heatmap(run, 2.5)


def test_before_after_figure_reads_whole_on_a_desktop_and_on_a_phone(run):
    from .figure_checks import assert_lesson_figure_reads_whole

    assert_lesson_figure_reads_whole(training_figures.before_after_figure(run))
