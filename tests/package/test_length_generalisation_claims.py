"""Every claim lesson 7 makes about its experiment, checked on a rerun of the page's settings.

The claims are checked on a rerun of the page's own settings (``PAGE_SETTINGS``), so if a
change to the code flips a result, these tests fail before the page's prose can be wrong. The
rerun trains the page's models again (about a minute): these tests sit in their own file, so
that a second test worker runs the experiment's other tests beside them, and carry the
``retrains`` mark (``make check`` leaves them to ``make test``).
"""

import math

import numpy as np
import pytest

from embedding_course import length_generalisation as experiment
from embedding_course.figures import length_generalisation as figures

pytestmark = pytest.mark.retrains


# ---------------------------------------------------------------- the page's claims

@pytest.fixture(scope="module")
def page():
    return experiment.run_experiment(experiment.PAGE_SETTINGS, device="cpu")


def _window(page, task, scheme, window, seed=None):
    return page.window_accuracy(task, scheme, window, seed)


def _learned_by_all(page, task):
    return [s for s in page.settings.schemes if page.fitted_seeds(task, s) == page.settings.seeds]


def test_page_settings_match_the_prose():
    settings = experiment.PAGE_SETTINGS
    assert settings.test_len == 4 * settings.train_len  # "tested up to four times longer"
    assert len(settings.seeds) >= 3  # "several seeds"
    assert settings.n_layers == 2  # "two blocks of causal self-attention"
    assert settings.schemes == ("none", "sinusoidal", "learned", "rope", "alibi")
    assert settings.dtype == "float64"  # "the models train in float64"


def test_claim_alibi_gets_the_papers_slopes_for_eight_heads_and_two_would_be_too_weak():
    from embedding_course import rope

    settings = experiment.PAGE_SETTINGS
    assert settings.n_heads == 8
    assert [round(1 / s) for s in rope.alibi_slopes(8).tolist()] == [2, 4, 8, 16, 32, 64, 128, 256]
    assert round(float(rope.alibi_slopes(2).max()) * (settings.train_len - 1), 2) == 0.44


def test_claim_size_ratios_are_computed_from_the_counts():
    ours = sum(p.numel() for p in experiment.new_model("none", experiment.PAGE_SETTINGS).parameters())
    assert experiment.size_ratio(124_000_000, 7_005) == 18_000  # the old model: about 18,000 times
    assert experiment.size_ratio(experiment.PUBLISHED_SIZES["GPT-2 small"], ours) < 10_000  # not "millions"
    assert experiment.size_ratio(1_300_000_000, 7_005) == 190_000
    with pytest.raises(ValueError, match="ours must be"):
        experiment.size_ratio(10, 0)


def test_claim_the_learned_table_gives_no_prediction_past_its_training_length(page):
    L = page.settings.train_len
    for task in page.settings.tasks:
        curves = page.curves(task, "learned")
        assert np.isnan(curves[:, L:]).all()
        assert not np.isnan(curves[:, L - 1]).any()


def test_claim_the_budget_is_enough_for_the_schemes_that_learn(page):
    """Every model that learned a task stopped because it was perfect, at most half-way into the budget."""
    for task in page.settings.tasks:
        for scheme in page.settings.schemes:
            for seed in page.settings.seeds:
                if page.fits(task, scheme, seed):
                    stop = page.stopped_at(task, scheme, seed)
                    assert stop <= page.settings.steps // 2, (task, scheme, seed)


def test_claim_every_scheme_learns_the_control_and_keeps_it_to_twice_the_length(page):
    assert _learned_by_all(page, "marked_token") == list(page.settings.schemes)
    for scheme in page.settings.schemes:
        if scheme != "learned":
            assert _window(page, "marked_token", scheme, "2x") >= 0.95, scheme


def test_claim_every_scheme_learns_every_task_except_nope_and_alibi_on_copy_back(page):
    for task in ("marked_token", "first_token"):
        assert _learned_by_all(page, task) == list(page.settings.schemes), task
    assert _learned_by_all(page, "copy_back") == ["sinusoidal", "learned", "rope"]
    for scheme in ("none", "alibi"):
        assert page.fitted_seeds("copy_back", scheme) == (), scheme  # "with any seed"
        assert 1 / experiment.PLAIN_TOKENS < _window(page, "copy_back", scheme, "seen") < 0.9, scheme


def test_claim_models_that_did_not_learn_get_no_score_past_the_training_length(page):
    for scheme in ("none", "alibi"):
        for window in ("2x", "4x"):
            assert math.isnan(_window(page, "copy_back", scheme, window))
        assert np.isnan(page.shown_curves("copy_back", scheme)[:, page.settings.train_len:]).all()
    table = figures.results_table(page, "copy_back")
    assert table.count(figures.DID_NOT_LEARN) == 2 * 2  # two schemes, two windows


def _score(page, scheme, step=None):
    """Mean over seeds of the copy-back score at the training lengths after ``step`` steps.

    ``step=None``: each model's last score, where it stopped.
    """
    steps = list(page.steps)
    return float(np.mean([page.history[("copy_back", scheme, seed)][
        steps.index(page.stopped_at("copy_back", scheme, seed) if step is None else step)]
        for seed in page.settings.seeds]))


def test_claim_nope_is_nearly_flat_and_alibi_rises_slowly_on_copy_back(page):
    """The learning-curve evidence: NoPE gains little after the first checks, ALiBi more, neither learns."""
    early = 2 * page.settings.check_every
    nope_gain = _score(page, "none") - _score(page, "none", early)
    alibi_gain = _score(page, "alibi") - _score(page, "alibi", early)
    assert nope_gain < 0.1 < alibi_gain
    assert _score(page, "none") < _score(page, "alibi") < experiment.FIT_ACCURACY
    learners = [page.stopped_at("copy_back", s, seed) for s in ("sinusoidal", "learned", "rope")
                for seed in page.settings.seeds]
    assert max(learners) <= 4 * page.settings.check_every  # "learned within 200 steps"; NoPE flat after


def test_claim_sinusoidal_collapses_to_near_chance_right_after_the_training_length(page):
    L = page.settings.train_len
    assert _window(page, "copy_back", "sinusoidal", "2x") < 0.3
    assert page.curves("copy_back", "sinusoidal")[:, L + 1].mean() < 0.3  # two tokens later


def test_claim_rope_extrapolates_copy_back_best_but_not_perfectly(page):
    for window in ("2x", "4x"):
        rope = _window(page, "copy_back", "rope", window)
        assert rope > _window(page, "copy_back", "sinusoidal", window) + 0.1, window
    assert round(_window(page, "copy_back", "rope", "4x"), 1) < 1.0  # "not 1.0"
    assert _window(page, "copy_back", "rope", "4x") < _window(page, "copy_back", "rope", "2x")


def test_claim_nope_sinusoidal_and_alibi_hold_the_first_token_and_rope_falls_below(page):
    readers = [s for s in page.settings.schemes if s != "learned"]
    holders = [s for s in readers if _window(page, "first_token", s, "4x") >= experiment.FIT_ACCURACY]
    assert holders == ["none", "sinusoidal", "alibi"]
    rope = [_window(page, "first_token", "rope", "4x", seed) for seed in page.settings.seeds]
    assert max(rope) - min(rope) > 0.1  # "its seeds disagree"


def test_claim_one_seed_can_mislead(page):
    """Pitfall: moved to single seeds, the slider shows a scheme much better or worse than on the mean.

    The figure's single-seed curves against the mean curve, past the training length.
    """
    L = page.settings.train_len
    gaps = [np.nanmax(np.abs(curves - curves.mean(axis=0)))
            for t in page.settings.tasks for s in page.settings.schemes
            if s != "learned" and page.fitted_seeds(t, s) == page.settings.seeds
            for curves in [page.curves(t, s)[:, L:]]]
    assert max(gaps) > 0.1


def test_claim_every_number_on_the_page_is_finite_where_a_model_can_answer(page):
    for task in page.settings.tasks:
        for scheme in page.settings.schemes:
            learned = bool(page.fitted_seeds(task, scheme))
            for window in ("seen", "2x", "4x"):
                value = _window(page, task, scheme, window)
                expected_nan = window != "seen" and (scheme == "learned" or not learned)
                assert math.isnan(value) == expected_nan, (task, scheme, window)
