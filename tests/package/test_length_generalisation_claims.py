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
from embedding_course import rounding
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


def test_claim_nope_and_alibi_rise_slowly_after_the_first_steps_and_most_ran_out_of_budget(page):
    """The learning-curve evidence: after the first checks NoPE gains little, ALiBi more, neither
    learns, and most of their models were still training when the budget ended (so the page does
    not say a longer run would not help)."""
    early = 2 * page.settings.check_every
    nope_gain = _score(page, "none") - _score(page, "none", early)
    alibi_gain = _score(page, "alibi") - _score(page, "alibi", early)
    assert 0 < nope_gain < 0.1 and nope_gain < alibi_gain  # "NoPE gains less than 0.1, ALiBi's ends higher"
    for scheme in ("none", "alibi"):  # "rise quickly over the first 100 steps, then slowly"
        assert _score(page, scheme, early) - _score(page, scheme, 0) > 0.2, scheme
    assert _score(page, "none") < _score(page, "alibi") < experiment.FIT_ACCURACY
    stops = [page.stopped_at("copy_back", scheme, seed) for scheme in ("none", "alibi")
             for seed in page.settings.seeds]
    assert 2 * stops.count(page.settings.steps) > len(stops)  # "most of their models were still training"
    learners = [page.stopped_at("copy_back", s, seed) for s in ("sinusoidal", "learned", "rope")
                for seed in page.settings.seeds]
    assert max(learners) <= 4 * page.settings.check_every  # "learned within 200 steps"


def test_claim_rope_slips_first_where_a_far_key_turns_its_fast_pair_like_the_answer(page):
    """With 4-channel heads RoPE has two pairs, turning 1 and 0.01 rad a position. Every seed
    holds up to length 9 and slips at 10, the first length with a key 9 back: 9 rad is 2.72 rad
    round the circle, near the answer's 3 rad, while 8 back (also unseen, 1.72 rad) costs nothing."""
    from embedding_course.positional import inverse_frequencies

    settings = page.settings
    frequencies = inverse_frequencies(settings.d_model // settings.n_heads).numpy()
    assert frequencies.tolist() == pytest.approx([1.0, 0.01])
    curves = page.curves("copy_back", "rope")  # (seeds, lengths)
    slips = 1 + int(np.argmax(curves.min(axis=0) < experiment.FIT_ACCURACY))
    assert slips == 10 and (curves[:, 3:slips - 1] >= experiment.FIT_ACCURACY).all()
    assert curves[:, slips - 1].mean() < 0.85  # a clear drop, not a tipped seed
    offsets = (3, settings.train_len, slips - 1)
    turned = {offset: np.mod(offset * frequencies, 2 * np.pi) for offset in offsets}
    assert abs(turned[slips - 1][0] - turned[3][0]) < 0.3  # the far key looks like the answer to pair 0
    assert abs(turned[settings.train_len][0] - turned[3][0]) > 1.0  # 8 back does not
    assert turned[slips - 1][1] - turned[3][1] < 0.1  # and pair 1 barely tells them apart

    def telling_apart(head):  # pairs turning 9 back more than half a radian from 3 back
        return sum(abs(math.remainder(6 * speed, 2 * math.pi)) > 0.5
                   for speed in inverse_frequencies(head).tolist())
    assert (telling_apart(4), telling_apart(64), telling_apart(128)) == (0, 8, 17)


def test_claim_every_accuracy_the_text_quotes_rounds_the_same_on_any_machine(page):
    """The means the page quotes to one decimal lie away from a rounding boundary, and the seed
    ranges it quotes have ends that stay put (the page's own cells raise otherwise); the table
    writes those ranges as the text does."""
    schemes = page.settings.schemes
    readers = [s for s in schemes if s != "learned"]
    worst = min(readers, key=lambda s: _window(page, "marked_token", s, "4x"))
    holders = [s for s in readers if _window(page, "first_token", s, "4x") >= experiment.FIT_ACCURACY]
    means = ([("marked_token", s, "seen") for s in schemes] + [("marked_token", s, "2x") for s in readers]
             + [("copy_back", "rope", "2x"), ("copy_back", "rope", "4x"), ("copy_back", "sinusoidal", "2x")]
             + [("first_token", s, "4x") for s in holders] + [("first_token", "rope", "4x")])
    for task, scheme, window in means:
        rounding.steady(_window(page, task, scheme, window))
    ranges = [("marked_token", worst, "4x"), ("copy_back", "rope", "2x"), ("copy_back", "rope", "4x"),
              ("copy_back", "sinusoidal", "2x"), ("first_token", "rope", "4x")]
    for task, scheme, window in ranges:
        quoted = rounding.enclosing_range([_window(page, task, scheme, window, seed)
                                           for seed in page.fitted_seeds(task, scheme)], within=(0, 1))
        assert f"({quoted})" in figures.results_table(page, task), (task, scheme, window)
    assert rounding.enclosing_range([_window(page, "copy_back", "rope", "4x", seed)
                                     for seed in page.settings.seeds]) == "0.5–0.7"  # best seed 0.6504


def test_claim_sinusoidal_collapses_to_near_chance_right_after_the_training_length(page):
    L = page.settings.train_len
    assert _window(page, "copy_back", "sinusoidal", "2x") < 0.3
    assert page.curves("copy_back", "sinusoidal")[:, L + 1].mean() < 0.2  # "near chance", 0.125


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
