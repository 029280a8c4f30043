"""Each figure's height on a phone is worked out at build time with the site's own layout rules
(``_ext/figure_heights.py``, ``tools/figure_heights.js``, ``_ext/static/course-figure-fit.js``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import figure_heights

TITLE = ("Two tables of positions side by side: on the left the sinusoidal table, "
         "on the right the table a model learned in training")
SIDE_BY_SIDE = {
    "data": [{"type": "heatmap", "z": [[1, 2], [3, 4]], "xaxis": "x", "yaxis": "y"},
             {"type": "heatmap", "z": [[1, 2], [3, 4]], "xaxis": "x2", "yaxis": "y2"}],
    "layout": {"height": 400, "title": {"text": TITLE},
               "xaxis": {"domain": [0, 0.45]}, "yaxis": {"domain": [0, 1]},
               "xaxis2": {"domain": [0.55, 1], "anchor": "y2"}, "yaxis2": {"domain": [0, 1], "anchor": "x2"}},
}
ONE_PANEL = {"data": [{"type": "scatter", "y": [1, 2]}], "layout": {"height": 300}}


def test_side_by_side_panels_are_stacked_and_a_narrower_phone_never_gets_a_shorter_figure():
    heights = figure_heights.phone_heights({"a": SIDE_BY_SIDE, "b": ONE_PANEL})
    assert len(heights["a"]) == len(heights["b"]) == len(figure_heights.WIDTHS)
    assert min(heights["a"]) > 1.5 * SIDE_BY_SIDE["layout"]["height"]  # two panels, one under the other
    assert heights["a"] == sorted(heights["a"], reverse=True)  # the title wraps onto fewer lines
    assert heights["a"][0] > heights["a"][-1]
    assert set(heights["b"]) == {300}


def test_the_div_lists_only_the_widths_where_the_height_changes():
    first = figure_heights.WIDTHS[0]
    changing = [900] * 40 + [880] * (len(figure_heights.WIDTHS) - 40)
    assert figure_heights.height_steps(changing) == f"{first}:900 {first + 40}:880"
    assert figure_heights.height_steps([300] * len(figure_heights.WIDTHS)) == f"{first}:300"


def test_a_figure_the_layout_rules_cannot_read_fails_the_build():
    with pytest.raises(figure_heights.FigureHeightError, match="TypeError"):
        figure_heights.phone_heights({"broken": {"layout": {}}})


def test_fitting_a_figure_to_a_phone_copies_what_it_changes_and_leaves_the_figure_as_it_was():
    """The build fits one figure to 360 widths in turn, and the loader draws what it returns."""
    figure = json.loads(json.dumps(SIDE_BY_SIDE))
    figure["data"][0]["colorbar"] = {"title": {"text": "value"}}
    figure["layout"]["sliders"] = [{"steps": [{"method": "update", "label": "a",
                                               "args": [{"visible": [True, False]}, {"title.text": TITLE}]}]}]
    script = ("const fit = require(process.argv[1]); const figure = JSON.parse(process.argv[2]);"
              "const before = JSON.stringify(figure); const fitted = fit.fitToWidth(figure, 390);"
              "console.log(JSON.stringify({unchanged: JSON.stringify(figure) === before, fitted}));")
    fit = REPO_ROOT / "_ext" / "static" / "course-figure-fit.js"
    result = subprocess.run(["node", "-e", script, str(fit), json.dumps(figure)],
                            capture_output=True, text=True, check=True)
    answer = json.loads(result.stdout)
    assert answer["unchanged"]
    fitted = answer["fitted"]
    assert fitted["data"][0]["colorbar"]["title"]["side"] == "right"
    assert fitted["data"][1]["colorbar"]["thickness"] == 10  # stacked: each panel's colour bar beside it
    assert "<br>" in fitted["layout"]["sliders"][0]["steps"][0]["args"][1]["title.text"]
    assert fitted["layout"]["sliders"][0]["steps"][0]["args"][0] == {"visible": [True, False]}
    assert fitted["layout"]["height"] > figure["layout"]["height"]


def _fit_in_node(figure: dict, width: int) -> dict:
    script = ("const fit = require(process.argv[1]); const figure = JSON.parse(process.argv[2]);"
              "console.log(JSON.stringify(fit.fitToWidth(figure, Number(process.argv[3]))));")
    fit = REPO_ROOT / "_ext" / "static" / "course-figure-fit.js"
    result = subprocess.run(["node", "-e", script, str(fit), json.dumps(figure), str(width)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def test_stacked_bars_whose_names_change_keep_their_room_and_leave_the_margin_alone():
    """Stacked on a phone, a map and bars share the left margin; Plotly would widen it for the
    longest name the bars show, so the map would change width with the menu. The bars keep the
    room for the widest name any step shows inside their own width instead."""
    long_name = "writer-in-residence"
    figure = {
        "data": [{"type": "scatter", "x": [0, 1], "y": [0, 1], "xaxis": "x", "yaxis": "y"},
                 {"type": "bar", "orientation": "h", "x": [0.5, 0.7], "y": ["king", "queen"],
                  "xaxis": "x2", "yaxis": "y2"}],
        "layout": {"height": 400, "margin": {"l": 60},
                   "xaxis": {"domain": [0, 0.55]}, "yaxis": {"domain": [0, 1]},
                   "xaxis2": {"domain": [0.65, 1], "anchor": "y2"},
                   "yaxis2": {"domain": [0, 1], "anchor": "x2"},
                   "updatemenus": [{"y": 1.1, "buttons": [
                       {"method": "update", "label": "king",
                        "args": [{"y": [[0, 1], ["king", "queen"]]}, {}, [0, 1]]},
                       {"method": "update", "label": "librarian",
                        "args": [{"y": [[1, 0], [long_name, "archivist"]]}, {}, [0, 1]]}]}]},
    }
    fitted = _fit_in_node(figure, 390)["layout"]
    assert fitted["margin"]["l"] == 50  # as for any figure on a phone: not widened for the names
    assert fitted["xaxis"]["domain"] == [0, 1]  # the map keeps the whole width
    plot_width = 390 - 50 - fitted["margin"]["r"]
    room = fitted["xaxis2"]["domain"][0] * plot_width + fitted["margin"]["l"]
    assert room >= len(long_name) * 11 * 0.6  # the widest name fits left of the bars (estimated in node)
    fixed = json.loads(json.dumps(figure))  # no step renames the bars: Plotly's automargin fits them
    del fixed["layout"]["updatemenus"]
    fixed["data"][1]["y"] = [long_name, "archivist"]
    assert _fit_in_node(fixed, 390)["layout"]["xaxis2"]["domain"] == [0, 1]


def test_titles_and_a_slider_s_value_are_kept_inside_a_small_phone_s_figure():
    """On a 320 px screen a subplot title, an axis title and a slider's value reached past the figure's
    side: the title moves in, the others are written smaller, and what still does not fit breaks
    into lines (widths estimated in node; the browser test measures them drawn)."""
    width, edge = 272, 6  # a figure's width on a 320 px screen
    title = "similar vectors (top 8)"  # 221 px at 16 px (estimated)
    figure = {
        "data": [{"type": "bar", "x": [1, 2], "y": ["a", "b"], "orientation": "h"}],
        "layout": {"height": 400,
                   "xaxis": {"domain": [0.45, 1], "title": {"text": "cosine with the picked token"}},
                   "annotations": [{"text": title, "xref": "paper", "yref": "paper", "x": 0.65, "y": 1,
                                    "xanchor": "center", "showarrow": False, "font": {"size": 16}}],
                   "sliders": [{"currentvalue": {"prefix": "base, d_model: ", "font": {"size": 14}},
                                "steps": [{"label": "b=10000, d=64", "method": "skip", "args": []}]}]},
    }
    fitted = _fit_in_node(figure, width)["layout"]
    plot_width = width - fitted["margin"]["l"] - fitted["margin"]["r"]
    note = fitted["annotations"][0]
    half = len(title) * 16 * 0.6 / 2
    centre = fitted["margin"]["l"] + note["x"] * plot_width
    assert note["text"] == title and centre + half <= width - edge + 1e-6  # moved in, whole
    axis_title = fitted["xaxis"]["title"]
    assert axis_title["font"]["size"] == 11  # smaller, down to the figure's own size
    assert "<br>" in axis_title["text"]  # and still too wide for its room beside a centred axis
    assert fitted["sliders"][0]["currentvalue"]["font"]["size"] < 14
    roomy = _fit_in_node(figure, 599)["layout"]  # room enough: left as they are
    assert roomy["annotations"][0]["x"] == 0.65
    assert roomy["xaxis"]["title"] == figure["layout"]["xaxis"]["title"]


def test_a_legend_below_the_plot_gets_room_of_its_own_on_a_phone():
    """Lesson 6's neighbour explorer has eighteen groups in a legend below its panels: on a phone
    the legend wraps into seven to ten rows, and Plotly took their room from the plot, so the
    stacked map and bars were a third shorter than planned and the map's axis title met the
    bars' title. The figure grows by the legend's rows instead; its plot keeps its height."""
    traces = [{"type": "scatter", "x": [0], "y": [0], "name": f"group {index}"} for index in range(18)]
    figure = {"data": traces, "layout": {
        "height": 620, "margin": {"t": 110, "b": 40},
        "legend": {"orientation": "h", "y": -0.12},
        "xaxis": {"domain": [0, 0.55]}, "yaxis": {"domain": [0, 1]},
        "xaxis2": {"domain": [0.65, 1], "anchor": "y2"}, "yaxis2": {"domain": [0, 1], "anchor": "x2"}}}
    without = json.loads(json.dumps(figure))
    del without["layout"]["legend"]
    del without["layout"]["margin"]["b"]
    for width in (390, 320):
        fitted = _fit_in_node(figure, width)["layout"]
        plain = _fit_in_node(without, width)["layout"]
        plot = fitted["height"] - fitted["margin"]["t"] - fitted["margin"]["b"]
        assert plot == plain["height"] - plain["margin"]["t"] - plain["margin"]["b"]  # as planned
        below = -fitted["legend"]["y"] * plot
        assert below == pytest.approx(0.12 * (620 - 110 - 40))  # where the figure put it, in px
        assert fitted["legend"]["yanchor"] == "top"
        rows = (fitted["margin"]["b"] - below) / 24
        assert rows >= 18 / 3  # three short names to a row at most, on a phone


def test_a_3d_view_on_a_phone_gets_a_wide_screen_s_box_and_a_camera_that_fits_the_view_to_it():
    """plotly.js fits a 3-D view to the height of its box and writes its axes' text at a fixed
    size: in lesson 6's box, 342 x 480 px at 390, the view was cut at both sides, axis titles
    and all. On a phone the box has the wide screen's 1.4:1 shape, its height rounded up to
    a step of 40 px (a square box left 40 px more empty above and below the view; rounded down,
    a turned view's lowest axis title fell out of the box at 320 px), and the camera steps back
    until the view is as wide, for the box's height, as in the figure's 1.4:1 box on a wide
    screen; the slider
    that turns the view keeps the camera as far back. Each axis writes at most four tick
    labels: seven, at a fixed size, ran into each other on the smaller view. The axis titles
    keep their text and plotly.js's size (lesson 6's are short: "PC1"). The markers, sized in
    px, shrink with the view: lesson 6's 48 words ran into each other at 390 px."""
    turned = {"x": -1.7, "y": 1.7, "z": 0.9}  # a step of the slider that turns the view
    figure = {"data": [{"type": "scatter3d", "x": [0], "y": [0], "z": [0], "marker": {"size": 5}}],
              "layout": {"height": 600, "margin": {"l": 0, "r": 0, "t": 120, "b": 0},
                         "scene": {"camera": {"eye": {"x": 1.7, "y": 1.7, "z": 0.9}},
                                   "xaxis": {"title": {"text": "PC1"}}},
                         "sliders": [{"steps": [{"method": "relayout", "label": "90°",
                                                 "args": [{"scene.camera.eye": turned}]}]}]}}
    for width in (342, 272):  # lesson 6's figure at 390 and 320 px
        fitted = _fit_in_node(figure, width)["layout"]
        box_width = width - fitted["margin"]["l"] - fitted["margin"]["r"]
        box_height = fitted["height"] - fitted["margin"]["t"] - fitted["margin"]["b"]
        assert box_width / 1.4 <= box_height < box_width / 1.4 + 40, (width, box_width, box_height)
        back = 1.4 * box_height / box_width
        eye = fitted["scene"]["camera"]["eye"]
        assert eye == pytest.approx({"x": 1.7 * back, "y": 1.7 * back, "z": 0.9 * back})
        assert [fitted["scene"][axis]["nticks"] for axis in ("xaxis", "yaxis", "zaxis")] == [4, 4, 4]
        assert fitted["scene"]["xaxis"]["title"] == {"text": "PC1"}
        step = fitted["sliders"][0]["steps"][0]["args"][0]["scene.camera.eye"]
        assert step == pytest.approx({axis: value * back for axis, value in turned.items()})
        # the markers shrink with the view (they ran into each other at 390 px), to 0.6 at least
        size = _fit_in_node(figure, width)["data"][0]["marker"]["size"]
        assert size == pytest.approx(5 * max(0.6, (box_width / (1.4 * 480)) ** 0.5)) and size < 5
    assert _fit_in_node(figure, 700)["data"][0]["marker"]["size"] == 5  # as drawn on a wide screen


def test_one_heatmap_s_colour_bar_goes_above_the_plot_on_a_phone():
    """Beside one panel the bar and its labels took a quarter of a phone's width from the plot
    (lesson 5's pipeline: a plot 80 px wide at 320 px): on a phone the bar lies across the top."""
    figure = {"data": [{"type": "heatmap", "z": [[1, 2], [3, 4]],
                        "colorbar": {"title": {"text": "value", "side": "right"}}},
                       {"type": "heatmap", "z": [[1, 2], [3, 4]], "visible": False},  # a slider's step
                       {"type": "heatmap", "z": [[1, 2], [3, 4]], "showscale": False}],
              "layout": {"height": 400, "title": {"text": "a table"}}}
    fitted = _fit_in_node(figure, 390)
    for trace in fitted["data"][:2]:
        bar = trace["colorbar"]
        assert bar["orientation"] == "h" and bar["len"] == 1 and bar["lenmode"] == "fraction"
        assert bar["y"] > 1 and bar["yanchor"] == "bottom"  # above the plot
    assert fitted["data"][0]["colorbar"]["title"] == {"text": "value", "side": "top"}  # on the bar
    assert "colorbar" not in fitted["data"][2]  # no bar drawn, none moved
    margin = fitted["layout"]["margin"]
    plot_height = fitted["layout"]["height"] - margin["t"] - margin["b"]
    bar_top = (fitted["data"][0]["colorbar"]["y"] - 1) * plot_height + 10 + 18  # px above the plot
    assert fitted["layout"]["title"]["pad"]["b"] >= bar_top  # the title sits above the bar's title
    wide = _fit_in_node(figure, 700)
    assert wide["data"][0]["colorbar"] == figure["data"][0]["colorbar"]  # beside the plot, as drawn
    stacked = _fit_in_node(json.loads(json.dumps(SIDE_BY_SIDE)), 390)  # a bar beside each panel
    assert all(trace.get("colorbar", {}).get("orientation") != "h" for trace in stacked["data"])


def test_stacked_panels_titles_are_no_larger_than_the_figure_s_own():
    """Plotly writes a panel's title at 16 px; on a phone the figure's title is 13 px, and
    lesson 1's panel titles outranked it. Stacked, a panel's title is 13 px at most."""
    figure = json.loads(json.dumps(SIDE_BY_SIDE))
    figure["layout"]["annotations"] = [  # as make_subplots writes them
        {"text": title, "x": x, "y": 1.0, "xref": "paper", "yref": "paper", "xanchor": "center",
         "yanchor": "bottom", "showarrow": False, "font": {"size": 16}}
        for title, x in (("first", 0.225), ("second", 0.775))]
    fitted = _fit_in_node(figure, 390)["layout"]
    assert [note["font"]["size"] for note in fitted["annotations"]] == [13, 13]
    assert fitted["title"]["font"]["size"] == 13
    assert _fit_in_node(figure, 700)["layout"]["annotations"] == figure["layout"]["annotations"]


def test_the_colour_bar_of_stacked_panels_goes_above_the_plot_where_one_panel_holds_it():
    """Lesson 3's explorer: two panels side by side, one colour bar for both, and words right of
    the first panel. Stacked on a 320 px phone, the bar stayed beside the first panel and lay
    on its words ("← pos 0, 3"); it now lies across the top, as for one panel."""
    figure = json.loads(json.dumps(SIDE_BY_SIDE))
    figure["data"][1]["showscale"] = False
    figure["data"].append(dict(figure["data"][0], visible=False))  # a slider's other state
    fitted = _fit_in_node(figure, 320)
    for trace in (fitted["data"][0], fitted["data"][2]):
        assert trace["colorbar"]["orientation"] == "h" and trace["colorbar"]["y"] > 1, trace["colorbar"]
    assert fitted["layout"]["yaxis"]["domain"][1] > fitted["layout"]["yaxis2"]["domain"][1]  # stacked


def _slider_value_fit(*arguments) -> dict | None:
    script = ("const fit = require(process.argv[1]);"
              "console.log(JSON.stringify(fit.sliderValueFit(...JSON.parse(process.argv[2]))));")
    fit = REPO_ROOT / "_ext" / "static" / "course-figure-fit.js"
    result = subprocess.run(["node", "-e", script, str(fit), json.dumps(arguments)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def test_a_slider_value_too_wide_for_the_room_right_of_its_rail_s_start_is_written_from_its_end():
    """Lesson 5's pipeline at 320 px: the rail starts 90 px into a 272 px figure and runs 162 px,
    its widest value is 206 px at 13 px. From the rail's end it fits at its size; a value wider
    than the rail's end allows is made smaller, but not below the figure's own size."""
    # (start, rail length, widest value, figure width, value size, figure's size)
    assert _slider_value_fit(20, 162, 206, 272, 13, 11) is None  # fits from the left end
    assert _slider_value_fit(90, 162, 206, 272, 13, 11) == {"xanchor": "right", "size": 13}
    assert _slider_value_fit(90, 100, 206, 272, 14, 11) == {"xanchor": "right", "size": 12}  # 14 * 184 / 206
    assert _slider_value_fit(90, 10, 400, 272, 14, 11) == {"xanchor": "right", "size": 11}  # the floor
