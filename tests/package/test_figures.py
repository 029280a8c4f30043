"""Tests of the figures/ modules: each lesson's figures draw what the maths computed."""

import math
import re

import matplotlib.colors
import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest
import torch
from matplotlib.figure import Figure

from embedding_course import SEED, attention_order, lookup, pipeline, plotting, positional
from embedding_course.figures import lookup as lookup_figures
from embedding_course.figures import pipeline as pipeline_figures
from embedding_course.figures import positional as positional_figures
from embedding_course.figures import sinusoidal_variants as variant_figures
from embedding_course.tokens import WordVocabulary

from .toy_model import make_model, toy_vocabulary

# ---------------------------------------------------------------- lesson 5: pipeline


def test_order_figure_has_four_panels(vocab):
    experiment = attention_order.order_experiment("dog bites man", "man bites dog", vocab, make_model(vocab))
    figure = pipeline_figures.order_figure(experiment)
    assert len([axes for axes in figure.axes if axes.get_title()]) == 4


def test_pipeline_stages_figure_has_one_titled_step_per_stage(vocab):
    model = make_model(vocab).eval()
    batch, stages = pipeline.trace_pipeline(["the dog", "a cat sat"], vocab, model)
    figure = pipeline_figures.pipeline_stages_figure(batch, stages)
    steps = figure.layout.sliders[0].steps
    assert len(steps) == len(stages)
    for step in steps:  # one heatmap per step, with its values written in it for (B, T) stages
        shown = [trace for trace, visible in zip(figure.data, step["args"][0]["visible"], strict=True)
                 if visible]
        assert shown[0].type == "heatmap" and len(shown) in (1, 2)
    titles = [step["args"][1]["title.text"] for step in steps]
    assert all("=" in title for title in titles) and len(set(titles)) == len(titles)
    # a (B, T) stage numbers every slot (Plotly's own ticks skipped every other one on a phone)
    for step, stage in zip(steps, stages, strict=True):
        slots = list(range(batch.ids.shape[1])) if stage.axes == ("B", "T") else None
        assert step["args"][1]["xaxis.tickvals"] == slots, stage.name
    assert list(figure.layout.xaxis.tickvals) == list(range(batch.ids.shape[1]))  # the first step's
    with pytest.raises(IndexError, match="outside the batch"):
        pipeline_figures.pipeline_stages_figure(batch, stages, sequence=5)


def test_pipeline_stages_figure_writes_each_id_in_black_or_white_by_its_cell(vocab):
    """Every value written in a cell reads at 4.5:1 or more against the cell's colour, as
    Plotly.js draws it (Viridis, interpolated in RGB between its stops)."""
    model = make_model(vocab).eval()
    batch, stages = pipeline.trace_pipeline(["the dog bites the man", "a cat sat on the mat"], vocab, model)
    figure = pipeline_figures.pipeline_stages_figure(batch, stages)
    pairs = [(heatmap, values) for heatmap, values in zip(figure.data, figure.data[1:], strict=False)
             if values.type == "scatter"]
    assert len(pairs) == sum(stage.axes == ("B", "T") for stage in stages) >= 1
    for heatmap, values in pairs:
        z = np.asarray(heatmap.z)
        low, high = z.min(), z.max()
        places = [place for place, _ in heatmap.colorscale]
        stops = np.array([matplotlib.colors.to_rgb(colour) for _, colour in heatmap.colorscale])  # (S, 3)
        assert values.text == tuple(f"{value:.0f}" for value in z.ravel())
        for value, colour in zip(z.ravel(), values.textfont.color, strict=True):
            share = (value - low) / (high - low)
            cell = tuple(np.interp(share, places, stops[:, channel]) for channel in range(3))
            assert plotting.contrast_ratio(colour, cell) >= 4.5, (value, colour, cell)


def test_token_similarity_figure_has_two_panels(vocab):
    model = make_model(vocab).eval()
    batch, output = pipeline.text_to_vectors("the dog bites the man", vocab, model)
    tokens_only = model.stages(batch.ids)["scaled token vectors"][0]
    figure = pipeline_figures.token_similarity_figure(batch.tokens[0], tokens_only, output[0])
    assert len(figure.axes) == 3  # two panels and one shared colour bar
    with pytest.raises(ValueError, match="T = 5 tokens"):
        pipeline_figures.token_similarity_figure(batch.tokens[0], tokens_only[:3], output[0])


def test_scale_figure_draws_three_series():
    results = pipeline.measure_scale([8, 16], vocab_size=50, device="cpu")
    figure = pipeline_figures.scale_figure(results)
    assert len(figure.axes) == 2 and len(figure.axes[0].lines) == 3
    with pytest.raises(ValueError, match="measure_scale"):
        pipeline_figures.scale_figure({"d": [8.0]})


# ---------------------------------------------------------------- lesson 4: positions


def test_binary_and_comparison_figures_have_their_panels():
    figure = positional_figures.binary_counter_figure(32, 5, 8)
    assert len([axes for axes in figure.axes if axes.get_title()]) == 2
    tables = {"a": torch.randn(20, 8), "b": positional.sinusoidal_encoding(20, 8, device="cpu")}
    assert len(positional_figures.compare_tables_figure(tables).axes) == 4  # two panels, two colour bars
    assert len(positional_figures.compare_similarity_figure(tables, step=2).axes) == 3  # a shared colour bar


def test_heatmap_panels_checks_titles():
    with pytest.raises(ValueError, match="one title per matrix"):
        plotting.heatmap_panels([np.zeros((2, 2))], ["a", "b"])


def _visible_sets(figure):
    return [tuple(step["args"][0]["visible"]) for step in figure.layout.sliders[0].steps]


def test_position_explorer_slider_changes_the_figure():
    figure = positional_figures.position_explorer_figure(max_len=12, d_model=8)
    visible = _visible_sets(figure)
    assert len(visible) == 12 and len(set(visible)) == 12
    assert all(len(v) == len(figure.data) and v[0] and sum(v) == 3 for v in visible)
    shapes = [step["args"][1]["shapes"][0]["y0"] for step in figure.layout.sliders[0].steps]
    assert shapes == [p - 0.5 for p in range(12)]
    with pytest.raises(IndexError, match=r"position 7 is outside the table \(0\.\.4\)"):
        positional_figures.position_explorer_figure(max_len=5, d_model=8, positions=[7])


def test_position_explorer_s_value_panels_leave_room_above_1_for_their_titles():
    """A subplot's title sits on the top of its panel: with the axis ending at 1.05 the "1" tick
    label came within 2 px of the similarity panel's title (1280 px). Both value panels end at
    1.1 (the values reach 1: a vector's own cosine, and cos 0)."""
    figure = positional_figures.position_explorer_figure(max_len=12, d_model=8)
    assert list(figure.layout.yaxis2.range) == list(figure.layout.yaxis3.range) == [-1.1, 1.1]
    # and the similarity panel names what runs along it (the vector panel's title does)
    titles = [figure.layout[f"xaxis{suffix}"].title.text for suffix in ("", "2", "3")]
    assert titles == ["dimension", None, "position"] and "per dimension" in figure.layout.annotations[1].text


def test_one_position_is_the_same_drawing_without_a_slider():
    every = positional_figures.position_explorer_figure(max_len=12, d_model=8)
    one = positional_figures.position_explorer_figure(max_len=12, d_model=8, positions=[5])
    assert not one.layout.sliders and len(one.data) == 3
    np.testing.assert_array_equal(one.data[1].y, every.data[1 + 2 * 5].y)  # the bar of PE(5)
    np.testing.assert_array_equal(one.data[2].y, every.data[2 + 2 * 5].y)  # its similarities
    assert one.layout.shapes[0].y0 == 4.5


def test_encoding_grid_has_one_state_per_pair():
    figure = positional_figures.encoding_grid_figure((8, 16), (10, 10000), max_len=6)
    assert len(figure.data) == 4 and len(set(_visible_sets(figure))) == 4
    assert figure.data[0].z.shape == (6, 8) and figure.data[3].z.shape == (6, 16)
    assert figure.data[0].zmin == -1 and figure.data[0].zmax == 1


def test_rope_alibi_figure_has_two_panels():
    query, key = torch.randn(2, 8, generator=torch.Generator().manual_seed(SEED), dtype=torch.float64)
    figure = positional_figures.rope_alibi_figure(query, key, seq_len=10)
    assert len([axes for axes in figure.axes if axes.get_title()]) == 2


# ---------------------------------------------------------------- lesson 3: lookup


def test_gradient_norm_figure_highlights_used_rows():
    norms = np.array([0.0, 2.0, 0.0, 1.0])
    figure = lookup_figures.gradient_norm_figure(norms, ["a", "b", "c", "d"], [1, 3, 1])
    assert isinstance(figure, Figure)
    bars = figure.axes[0].patches
    assert bars[1].get_facecolor() != bars[0].get_facecolor()
    assert bars[1].get_facecolor() == bars[3].get_facecolor()


def test_lookup_explorer_figure_has_a_state_per_sentence_that_differs():
    figure = lookup_figures.lookup_explorer_figure()
    sentences = lookup_figures.EXPLORER_SENTENCES
    assert isinstance(figure, go.Figure)
    assert len(figure.layout.sliders[0].steps) == len(sentences)
    assert len(figure.data) == 5 * len(sentences)
    outputs = [np.asarray(figure.data[5 * i + 3].z) for i in range(len(sentences))]
    assert len({o.tobytes() for o in outputs}) == len(sentences)
    # "the cat saw the dog": positions 0 and 3 hold the same token, so the same vector.
    assert np.array_equal(outputs[0][0], outputs[0][3])
    assert not np.array_equal(outputs[0][0], outputs[0][1])
    assert "same row, same vector" in figure.layout.sliders[0].steps[0].args[1]["title.text"]


def test_explorer_setup_rows_and_ids_agree():
    vocabulary, table, encoded = lookup_figures.explorer_setup()
    assert table.shape == (len(vocabulary), 6)
    assert (table[vocabulary.pad_id] == 0).all()
    assert vocabulary.decode(encoded[0]) == lookup_figures.EXPLORER_SENTENCES[0].split()


def test_one_sequence_is_the_same_drawing_without_a_slider():
    vocabulary, table, encoded = lookup_figures.explorer_setup()
    every = lookup_figures.lookup_explorer_figure()
    one = lookup_figures.lookup_view_figure(vocabulary, table, [encoded[1]])
    assert not one.layout.sliders and len(one.data) == 5
    for mine, theirs in zip(one.data, every.data[5:10], strict=True):
        assert mine.to_json() == theirs.update(visible=True).to_json()
    assert one.layout.title.text == every.layout.sliders[0].steps[1].args[1]["title.text"]


def test_token_picker_has_one_independent_menu_per_position():
    figure = lookup_figures.token_picker_figure("the cat saw the dog")
    menus = figure.layout.updatemenus
    assert len(menus) == 5
    vocabulary, table, _ = lookup_figures.explorer_setup()
    for position, menu in enumerate(menus):
        first = 1 + 3 * position  # trace 0 is the faded table
        for button in menu.buttons:
            changes, targets = button.args
            assert list(targets) == [first, first + 1, first + 2]  # only this position's traces
            row = vocabulary.token_to_id[button.label]
            np.testing.assert_allclose(changes["z"][0][0], table[row], atol=1e-4)
            assert changes["y"] == [[row], [position], [position]]
    # equal tokens ("the" at 0 and 3) give equal token vectors, different after adding positions
    np.testing.assert_array_equal(figure.data[2].z, figure.data[11].z)
    assert not np.allclose(figure.data[3].z, figure.data[12].z)


def test_the_lookup_figures_draw_no_grid_through_their_faded_tables_and_row_labels():
    for figure in (lookup_figures.lookup_explorer_figure(), lookup_figures.token_picker_figure()):
        axes = [figure.layout[name] for name in figure.layout if name.startswith(("xaxis", "yaxis"))]
        assert len(axes) >= 4
        assert all(axis.showgrid is False and axis.zeroline is False for axis in axes)


def test_the_lookup_figures_fade_their_tables_to_white_and_not_to_the_page_behind():
    """The faded tables were drawn at an opacity, which mixes them with the page behind: in the
    dark theme their cells of value 0 turned dark grey, like large values on the colour bar.
    Their colours are now mixed with white, so a cell of value 0 is as pale on any page."""
    explorer, picker = lookup_figures.lookup_explorer_figure(), lookup_figures.token_picker_figure()
    for faded in (*explorer.data[0::5], picker.data[0]):
        assert faded.opacity is None
        zero = np.array(plotly.colors.unlabel_rgb(plotly.colors.sample_colorscale(
            [list(stop) for stop in faded.colorscale], 0.5)[0]))  # the colour of 0: limits are symmetric
        assert faded.zmin == -faded.zmax and (zero >= 240).all(), zero
        stops = np.array([plotly.colors.unlabel_rgb(colour) for _, colour in faded.colorscale])
        assert stops.min() >= 190, stops  # pale everywhere, its darkest red and blue too


def test_token_picker_rejects_words_outside_its_vocabulary():
    with pytest.raises(ValueError, match="outside the explorer's vocabulary"):
        lookup_figures.token_picker_figure("the zebra saw the dog")


def test_lookup_figure_takes_the_embedding_weight_itself():
    vocabulary = WordVocabulary(["the", "cat"])
    embedding = lookup.make_embedding(len(vocabulary), 4, device="cpu")
    figure = lookup_figures.lookup_view_figure(vocabulary, embedding.weight, [[2, 3, 2]])
    np.testing.assert_allclose(figure.data[3].z, embedding.weight.detach()[[2, 3, 2]], atol=1e-6)


def test_mask_figure_has_four_panels_of_weights(vocab):
    experiment = attention_order.causal_order_experiment("dog bites man", "man bites dog", vocab,
                                                         make_model(vocab))
    figure = pipeline_figures.mask_figure(experiment)
    titled = [axes for axes in figure.axes if axes.get_title()]
    assert [axes.get_title().split(":")[0] for axes in titled] == ["unmasked", "unmasked", "causal", "causal"]


# ---------------------------------------------------------------- lesson 4: sinusoidal variants


def test_left_panel_draws_both_spacings_ending_where_the_formulas_say():
    figure = variant_figures.frequency_spacing_figure(d_model=16, d_models=(16, 512))
    left, right = figure.axes
    paper, spaced = left.get_lines()[:2]
    assert np.asarray(paper.get_ydata())[-1] == pytest.approx(2 * math.pi * 10000 ** (14 / 16))
    assert np.asarray(spaced.get_ydata())[-1] == pytest.approx(2 * math.pi * 10000)
    ratios = [np.asarray(line.get_ydata()) for line in right.get_lines()]
    assert ratios[0][-1] == pytest.approx(10000 ** (2 / 16))  # the last pair, d = 16
    assert ratios[1][-1] == pytest.approx(10000 ** (2 / 512))


def test_no_widths_raise_value_error():
    with pytest.raises(ValueError, match="d_models"):
        variant_figures.frequency_spacing_figure(d_models=())


def test_rotary_explorers_have_one_state_per_step():
    from embedding_course.figures import rotary as rotary_figures

    rotation = rotary_figures.rotation_explorer_figure(dim=8)
    assert len(rotation.layout.sliders[0].steps) == len(rotary_figures.ROTATION_POSITIONS)
    assert len(rotation.data) == len(rotary_figures.ROTATION_POSITIONS) * 4 * 2  # ring + hand per pair
    scaling = rotary_figures.scaling_explorer_figure()
    assert len(scaling.layout.sliders[0].steps) == len(rotary_figures.SCALING_FACTORS)
    per_state = len(rotary_figures.SCALING_METHODS) + 2  # a line per method, the two contexts
    assert len(scaling.data) == len(rotary_figures.SCALING_FACTORS) * per_state
    # its legend sits above the plot: inside it, the target line ran through the legend's rows
    assert scaling.layout.legend.y > 1 and scaling.layout.legend.orientation == "h"
    assert not rotary_figures.rotation_explorer_figure(positions=(3,)).layout.sliders


def test_the_scaling_explorer_s_legend_keys_show_each_method_s_dashes():
    """Plotly draws a key's line 30 px long, and a width-2 line's named dashes in strokes of
    3 px: "longdash" (15 on, 15 off) showed a single dash there, which reads as a solid line.
    Each key must show its first stroke, its first gap and the stroke after it."""
    from embedding_course.figures import rotary as rotary_figures

    first_stroke_and_gap = {"dot": (1, 1), "dash": (3, 3), "longdash": (5, 5), "dashdot": (3, 1),
                            "longdashdot": (5, 2)}  # in units of max(width, 3) px (plotly.js dashStyle)
    figure = rotary_figures.scaling_explorer_figure()
    methods = figure.data[:len(rotary_figures.SCALING_METHODS)]
    assert len({trace.line.dash for trace in methods}) == len(methods)
    for trace in methods:
        if trace.line.dash != "solid":
            stroke, gap = first_stroke_and_gap[trace.line.dash]
            assert (stroke + gap) * max(trace.line.width, 3) < 30, (trace.name, trace.line.dash)


def test_the_rotation_explorer_s_titles_keep_each_pair_with_its_count_on_a_phone():
    """The phone layout wraps a title at its spaces: "pair 7" ended one line and its count
    "0.0003" began the next. No-break spaces hold each pair, its count and "times" together."""
    from embedding_course.figures import rotary as rotary_figures

    figure = rotary_figures.rotation_explorer_figure(dim=8)
    titles = [step.args[1]["title.text"] for step in figure.layout.sliders[0].steps]
    assert figure.layout.title.text in titles
    for title in titles:
        assert re.fullmatch(r"Position \d+: pair\u00a00 turned \d+\.\d\d\u00a0times, "
                            r"pair\u00a03\u00a0\d+\.\d{4}\u00a0times", title), title


# ---------------------------------------------------------------- every lesson's static figures

def _lesson_figures(vocab) -> dict:
    """Builders of the static figures the lessons draw at their widest (7.5 in), with the
    lessons' own titles and, where it is cheap, their own arguments."""
    from embedding_course import one_hot, rope_scaling
    from embedding_course.figures import one_hot as one_hot_figures
    from embedding_course.figures import rotary as rotary_figures
    from embedding_course.figures import tokens as token_figures

    sentence = ["the", "cat", "sat", "on", "the", "mat"]
    ids = torch.tensor([vocab.token_to_id.get(word, vocab.unk_id) for word in sentence])
    vectors = one_hot.one_hot(ids, len(vocab))
    random = torch.randn(3, 128, 128, generator=torch.Generator().manual_seed(0))
    tables = {"learned, untrained (N(0, 1))": random[0], "learned, trained (BERT: MiniLM)": random[1],
              "sinusoidal (interleaved)": positional.sinusoidal_encoding(128, 128, device="cpu")}
    query, key = random[2, :2, :64]
    model = make_model(vocab).eval()
    batch, output = pipeline.text_to_vectors("the dog bites the man", vocab, model)
    order = attention_order.order_experiment("dog bites man", "man bites dog", vocab, model)
    masks = attention_order.causal_order_experiment("dog bites man", "man bites dog", vocab, model)
    scale = {"d": [16, 64, 256]} | {f"{measure}_{key}": [1.0, 2.0, 4.0] for measure in ("var", "ratio")
                                    for key in ("default_scaled", "small_scaled", "small_unscaled")}
    return {
        "lesson 1, the map": token_figures.map_analogy_figure,
        "lesson 2, similarity": lambda: one_hot_figures.similarity_figure(sentence, vectors),
        "lesson 2, the bridge": lambda: one_hot_figures.bridge_figure(ids, random[2, :len(vocab), :8],
                                                                      sentence),
        "lesson 4, binary counter": lambda: positional_figures.binary_counter_figure(64, 6, 16),
        "lesson 4, three tables": lambda: positional_figures.compare_tables_figure(tables),
        "lesson 4, three similarities": lambda: positional_figures.compare_similarity_figure(tables, step=4),
        "lesson 4, two layouts": lambda: plotting.heatmap_panels(
            [random[0, :50, :64]] * 2, list(positional.LAYOUT_NAMES.values()), size=(7.5, 3.7)),
        "lesson 4, wavelengths": lambda: variant_figures.frequency_spacing_figure(16, (16, 64, 512)),
        "lesson 4, RoPE and ALiBi": lambda: positional_figures.rope_alibi_figure(query, key, 32, 0.125),
        "lesson 4, rotation block": lambda: plotting.heatmap(
            positional.rotation_matrix(5, 512)[:8, :8], title=r"$R_5$: first 4 of 256 blocks ($d=512$)",
            xlabel="input dimension", ylabel="output dimension", diverging=True, limits=(-1, 1),
            annotate=True, size=(5.5, 4.2)),
        "lesson 5, tokens": lambda: pipeline_figures.token_similarity_figure(
            batch.tokens[0], model.stages(batch.ids)["scaled token vectors"][0], output[0]),
        "lesson 5, order": lambda: pipeline_figures.order_figure(order),
        "lesson 5, mask": lambda: pipeline_figures.mask_figure(masks),
        "lesson 5, scale": lambda: pipeline_figures.scale_figure(scale),
        "lesson 8, wavelengths": rotary_figures.wavelength_figure,
        "lesson 8, interpolation": lambda: rotary_figures.interpolation_figure(rope_scaling.fitted_score()),
    }


@pytest.mark.parametrize("name", list(_lesson_figures(toy_vocabulary())))
def test_lesson_figures_read_whole_on_a_desktop_and_on_a_phone(vocab, name):
    from .figure_checks import assert_lesson_figure_reads_whole

    assert_lesson_figure_reads_whole(_lesson_figures(vocab)[name]())


def test_fig_8_5_scales_only_the_extrapolated_score_on_a_desktop_and_on_a_phone():
    """The extrapolated score reaches billions and is drawn in units of its power of ten; the
    interpolated one is not, and keeps its own label where a phone stacks the panels (a stacked
    panel without a label takes its row's)."""
    from embedding_course import rope_scaling
    from embedding_course.figures import rotary as rotary_figures

    figure = rotary_figures.interpolation_figure(rope_scaling.fitted_score())
    for drawing in (figure, plotting.narrow_figure(figure)):
        extrapolated, interpolated = drawing.axes[:2]
        assert "× $10^{" in extrapolated.get_ylabel() and interpolated.get_ylabel() == "fitted score"
        # the dashed line where the fit's positions end is named (it had no legend entry)
        assert [text.get_text() for text in extrapolated.get_legend().get_texts()] == [
            "last fitted position (2,048)"]


WRITTEN_IN_CELLS = ["lesson 2, similarity", "lesson 4, rotation block", "lesson 5, tokens", "lesson 5, order",
                    "lesson 5, mask"]  # the lesson figures above that write values in cells


@pytest.mark.parametrize("name", WRITTEN_IN_CELLS)
def test_lesson_figures_write_cell_values_that_stand_out_from_their_cells(vocab, name):
    """Each value written in a heatmap's cell, on a desktop and on a phone, has at least WCAG AA's
    4.5:1 contrast with the cell's colour."""
    figure = _lesson_figures(vocab)[name]()
    for drawing in (figure, plotting.narrow_figure(figure)):
        written = 0
        for axes in drawing.axes:
            if not axes.images:
                continue
            image = axes.images[0]
            cells = image.get_array()
            for text in axes.texts:
                if text.get_visible():
                    column, row = (round(place) for place in text.get_position())
                    colour = image.cmap(image.norm(cells[row, column]))
                    assert plotting.contrast_ratio(text.get_color(), colour) >= 4.5, (name, text.get_text())
                    written += 1
        assert written, f"{name}: no value written in a cell"
