"""Tests of rope_extension.py: the scaling hook, and every claim lesson 8 makes about its experiment."""

import numpy as np
import pytest
import torch

from embedding_course import rope, rope_extension, rope_scaling, rounding
from embedding_course.length_generalisation import RunSettings, train_model


@pytest.fixture(scope="module")
def model():
    return train_model("copy_back", "rope", RunSettings(steps=40, seeds=(0,)), 0, "cpu")


def test_no_scaling_is_the_model_itself_and_linear_divides_positions(model):
    ids = torch.randint(8, (3, 12), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.equal(rope_extension.with_scaling(model, "none", 4, 8)(ids), model(ids))
        scaled = rope_extension.with_scaling(model, "linear", 4, 8)
        assert all(block.attn.rope_scaling is None for block in model.blocks)  # the original is untouched
        q = torch.randn(2, 12, model.blocks[0].attn.head_dim, dtype=torch.float64)
        hook = scaled.blocks[0].attn.rope_scaling
        inv_freq, factor = hook(12)
        assert factor == 1.0
        assert torch.allclose(rope.apply_rope(q, inv_freq=inv_freq), rope.apply_rope(q, torch.arange(12) / 4))


def test_yarn_hook_multiplies_queries_and_keys(model):
    hook = rope_extension.with_scaling(model, "yarn", 4, 8).blocks[0].attn.rope_scaling
    assert hook(32)[1] == pytest.approx(rope_scaling.yarn_attention_factor(4))
    with pytest.raises(ValueError, match="rope"):
        rope_extension.with_scaling(
            train_model("copy_back", "none", RunSettings(steps=1, seeds=(0,)), 0, "cpu"), "linear", 4, 8
        )


def test_settings_are_checked():
    with pytest.raises(ValueError, match=r"^methods\[0\] must be one of none, linear, ntk, yarn, "
                                         r"got 'dynamic'$"):
        rope_extension.ExtensionSettings(methods=("dynamic",))
    with pytest.raises(ValueError, match="finetune_steps"):
        rope_extension.ExtensionSettings(finetune_steps=0)


@pytest.fixture(scope="module")
def results():
    return rope_extension.run_extension()


def overlaps(a, b):
    return a.min() <= b.max() and b.min() <= a.max()


@pytest.mark.retrains  # trains lesson 8's extension models again
def test_page_claims(results):
    models = results.settings.models
    chance = 1 / 8
    plain = results.beyond("zero-shot", "none")
    assert results.seen("zero-shot", "none").min() == 1.0
    assert 0.3 < plain.mean() < 0.9  # "keeps some of its answers past them"
    for method in ("ntk", "yarn"):
        assert results.seen("zero-shot", method).min() == 1.0
        assert overlaps(results.beyond("zero-shot", method), plain)
    assert results.seen("zero-shot", "linear").max() < 0.5  # PI breaks the trained lengths
    assert results.beyond("fine-tuned", "linear").max() < 2 * chance  # still near chance
    for method in ("none", "ntk", "yarn"):  # "nearly every answer right at every length"
        assert results.beyond("fine-tuned", method).min() > 0.95
    # the layout bug: exactly equal at position 0, worse accuracy, the conversion changes nothing
    mean_gap = np.mean([results.layout_gap[("swapped", seed)] for seed in models.seeds], axis=0)
    assert mean_gap[models.train_len :].mean() > 3 * mean_gap[1:4].mean()  # "several times larger"
    for seed in models.seeds:
        assert results.layout_gap[("swapped", seed)][0] == 0.0
        assert results.layout_gap[("swapped", seed)][1:].min() > 0
        assert np.abs(results.layout_gap[("converted", seed)]).max() < 1e-5
        right, swapped = results.layout_accuracy[("right", seed)], results.layout_accuracy[("swapped", seed)]
        assert np.nanmean(swapped[models.train_len :]) < np.nanmean(right[models.train_len :])
        # "on the training lengths its accuracy barely moves" (the right model gets every answer)
        seen_right = np.nanmean(right[: models.train_len])
        seen_swapped = np.nanmean(swapped[: models.train_len])
        assert seen_right == 1.0 and 0.9 < seen_swapped < seen_right
        # "past them it falls": further than on the training lengths
        assert seen_swapped - np.nanmean(swapped[models.train_len :]) > 0.3
    # the trained numbers lesson 8 quotes, as it quotes them: none near a rounding boundary
    def window(name, low, high):
        return [np.nanmean(results.layout_accuracy[(name, seed)][low:high]) for seed in models.seeds]

    seen, longer = (0, models.train_len), (models.train_len, models.test_len)
    rounding.enclosing_range(window("swapped", *seen), decimals=2, within=(0, 1))
    rounding.steady(np.mean(window("swapped", *longer)))
    rounding.enclosing_range(window("right", *longer), within=(0, 1))
    assert max(window("swapped", *longer)) < min(window("right", *longer))  # "below every seed of"
    rounding.outward_ends(plain.tolist(), within=(0, 1))
    rounding.steady(results.seen("zero-shot", "linear").mean())
    rounding.steady(results.beyond("fine-tuned", "linear").mean())
    worst = min(results.beyond("fine-tuned", method).min() for method in ("none", "ntk", "yarn"))
    rounding.outward_ends([worst], decimals=2, within=(0, 1))


def test_fitted_score_explodes_outside_and_stays_bounded_inside():
    fit = rope_scaling.fitted_score()
    assert fit["inside_max"] < 2
    rounding.outward_ends([fit["inside_max"]], within=(0, float("inf")))  # quoted as "within"
    # lesson 8: "more than a billion times larger" (4.4e9 here; OPENBLAS_CORETYPE set to Prescott,
    # Nehalem, Sandybridge, Haswell or Zen moves it by 0.2 % at most)
    assert fit["outside_max"] > 1e9 * fit["inside_max"]


@pytest.mark.retrains  # drawn from lesson 8's extension models, trained again
def test_extension_figure_reads_whole_on_a_desktop_and_on_a_phone(results):
    from embedding_course.figures import rotary as rotary_figures

    from .figure_checks import assert_lesson_figure_reads_whole

    figure = rotary_figures.extension_figure(results)
    assert_lesson_figure_reads_whole(figure)
    # the shaded training lengths are named (Fig. 8.7 shaded them and said nothing of it)
    names = [text.get_text() for text in figure.legends[0].get_texts()]
    assert f"training length {results.settings.models.train_len}" in names, names


@pytest.mark.retrains  # drawn from lesson 8's extension models, trained again
def test_extension_figure_draws_each_seed_range_between_thin_lines_in_its_methods_colour(results):
    """Zero-shot, three methods' bands coincide: filled alone, they mixed into an unnamed grey.
    No translucent fill is drawn over the panels (a stack of them mixes so again)."""
    from matplotlib.colors import same_color

    from embedding_course import plotting
    from embedding_course.figures import rotary as rotary_figures

    figure = rotary_figures.extension_figure(results)
    for axes, phase in zip(figure.axes, rope_extension.PHASES, strict=True):
        for index, method in enumerate(results.settings.methods):
            curves = np.stack([results.accuracy[(phase, method, seed)] for seed in results.seeds])
            answered = ~np.isnan(curves).all(axis=0)
            color = plotting.PALETTE[index % len(plotting.PALETTE)]
            thin = [line.get_ydata() for line in axes.get_lines()
                    if same_color(line.get_color(), color) and line.get_linewidth() < 1]
            assert len(thin) == 2, (phase, method, len(thin))
            assert np.array_equal(thin[0], curves[:, answered].min(0)), (phase, method)
            assert np.array_equal(thin[1], curves[:, answered].max(0)), (phase, method)
        fills = [c for c in axes.collections if c.get_alpha() is not None and c.get_alpha() < 1]
        assert fills == [], (phase, "translucent fills")


def test_pi_turns_3_places_back_into_an_angle_close_to_7_back():
    """Lesson 8: PI's 3 places back on pair 0 (0.75 rad) looks like 7 back in training."""
    from embedding_course.length_generalisation import COPY_OFFSET, PAGE_SETTINGS

    angle = COPY_OFFSET / PAGE_SETTINGS.test_factor
    offset, turned = rope_extension.trained_lookalike(angle, PAGE_SETTINGS.train_len)
    assert offset != COPY_OFFSET and offset < PAGE_SETTINGS.train_len
    assert abs(turned - angle) < 0.05 < abs(COPY_OFFSET - angle)
    assert turned == pytest.approx(offset - 2 * np.pi)
    assert rope_extension.trained_lookalike(2 * np.pi, 8) == (0, 0.0)  # around the circle
    with pytest.raises(ValueError, match="angle"):
        rope_extension.trained_lookalike(float("nan"), 8)
    with pytest.raises(ValueError, match="train_len"):
        rope_extension.trained_lookalike(0.5, 0)
