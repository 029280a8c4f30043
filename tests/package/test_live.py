"""Live explorers: each one draws, and moving any of its controls changes what it shows.

ipywidgets' ``interactive`` catches an exception in its callback and only prints it, so a
broken explorer would still be a widget. Here the callback runs inside an IPython shell whose
``showtraceback`` re-raises, and the test reads what the explorer displayed (text, PNG of a
matplotlib figure, Plotly JSON) before and after each move.
"""

from __future__ import annotations

import ipywidgets
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.pylabtools import print_figure
from IPython.display import Markdown, display
from IPython.utils.capture import capture_output
from matplotlib.figure import Figure

from embedding_course import live
from embedding_course.live import glove as live_glove
from embedding_course.live import lookup as live_lookup
from embedding_course.live import one_hot as live_one_hot
from embedding_course.live import pipeline as live_pipeline
from embedding_course.live import positional as live_positional
from embedding_course.live import rotary as live_rotary
from embedding_course.live import tokens as live_tokens

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# explorer, and values typed into its text boxes (sliders and menus are moved generically)
EXPLORERS = {
    "token_id": (live_tokens.token_id_explorer, {"sentence": "Positions matter in a sentence."}),
    "id_neighbour": (live_tokens.id_neighbour_explorer, {}),
    "one_hot": (live_one_hot.one_hot_explorer, {"sentence": "a dog sat on a log"}),
    "memory": (live_one_hot.memory_explorer, {}),
    "lookup": (live_lookup.lookup_explorer, {}),
    "training": (lambda: live_lookup.training_explorer(dim=4, steps=10), {}),
    "encoding": (live_positional.encoding_explorer, {}),
    "position": (live_positional.position_explorer, {}),
    "rope": (live_positional.rope_explorer, {}),
    "pipeline": (live_pipeline.pipeline_explorer, {"text": "the cat sat\non the mat"}),
    "order": (live_pipeline.order_explorer, {"first": "man bites dog", "second": "dog bites man"}),
    "neighbours": (live_glove.neighbours_explorer, {"word": "king"}),
    "analogy": (live_glove.analogy_explorer, {"base": "queen", "minus": "woman", "plus": "boy"}),
    "projection": (live_glove.projection_explorer, {}),
    "rotation": (live_rotary.rotation_explorer, {}),
    "scaling": (live_rotary.scaling_explorer, {}),
}


@pytest.fixture
def shell(monkeypatch):
    """An IPython shell in which an explorer's callback error fails the test."""
    shell = InteractiveShell.instance()
    png = shell.display_formatter.formatters["image/png"]
    png.for_type(Figure, lambda figure: print_figure(figure, "png", dpi=20))

    def reraise(*args, **kwargs):
        raise  # the exception that interactive() caught in the explorer's callback

    monkeypatch.setattr(shell, "showtraceback", reraise)
    yield shell
    png.pop(Figure, None)
    InteractiveShell.clear_instance()


def shown(action) -> str:
    """Everything displayed or printed while ``action`` runs, as one comparable string."""
    with capture_output() as captured:
        action()
    parts = [captured.stdout, captured.stderr]
    for output in captured.outputs:
        parts += [f"{mime}:{value!r}" for mime, value in sorted(output.data.items())
                  if mime not in ("text/plain", WIDGET_VIEW)]
        if WIDGET_VIEW not in output.data:
            parts.append(output.data.get("text/plain", ""))
    return "\n".join(part for part in parts if part)


def another_value(control: ipywidgets.Widget):
    """A valid value of a slider, menu or checkbox other than its current one."""
    if isinstance(control, ipywidgets.SelectMultiple):
        return tuple(option for option in control.options[:2] if option not in control.value) or None
    if isinstance(control, ipywidgets.Checkbox):
        return not control.value
    if hasattr(control, "index") and hasattr(control, "options"):
        return ("index", (control.index + 1) % len(control.options))
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        steps = (control.max - control.min) // control.step
        middle = control.min + steps // 2 * control.step
        return middle if middle != control.value else control.min
    return None


def move(control: ipywidgets.Widget, value) -> None:
    if isinstance(value, tuple) and value[0] == "index":
        control.index = value[1]
    else:
        control.value = value


@pytest.mark.parametrize("name", EXPLORERS)
def test_every_control_changes_what_the_explorer_shows(name, shell):
    make, typed = EXPLORERS[name]
    built = []
    before = shown(lambda: built.append(make()))
    explorer = built[0]
    before += shown(lambda: display(explorer))  # ipywidgets 7 draws the first state only now
    assert isinstance(explorer, ipywidgets.interactive)
    assert before, f"{name}: the explorer showed nothing when it was built"
    moved = 0
    for control in explorer.kwargs_widgets:
        value = typed.get(control._kwarg, another_value(control))
        if value is None:
            continue
        after = shown(lambda control=control, value=value: move(control, value))
        assert after, f"{name}: moving {control._kwarg} cleared the output"
        assert after != before, f"{name}: moving {control._kwarg} to {value!r} changed nothing"
        before, moved = after, moved + 1
    assert moved == len(explorer.kwargs_widgets), f"{name}: some controls were not moved"


def test_a_callback_that_raises_fails_the_test(shell):
    def broken(position: int) -> None:
        if position > 1:
            raise RuntimeError("the explorer's callback failed")

    explorer = ipywidgets.interactive(broken, position=ipywidgets.IntSlider(value=1, max=5))
    with pytest.raises(RuntimeError, match="callback failed"):
        explorer.children[0].value = 3


def test_show_displays_the_widget_once_and_returns_nothing(shell):
    with capture_output() as captured:
        result = live.show(lambda: ipywidgets.IntSlider(value=3))
    assert result is None  # a returned widget would be shown again as the cell's result
    assert len(captured.outputs) == 1
    assert WIDGET_VIEW in captured.outputs[0].data


def test_show_writes_the_first_drawing_into_the_explorer_as_data(shell):
    """Printed through the Output widget, the first drawing would make nbclient (nbconvert)
    send on the kernel's shell socket mid-cell, which can stall it (see ``live``'s docstring)."""
    built = []

    def draw(position: int) -> None:
        print(f"position {position}")
        display(Markdown("**drawn**"))

    def make():
        built.append(ipywidgets.interactive(draw, position=ipywidgets.IntSlider(value=3, max=9)))
        return built[0]

    with capture_output() as captured:
        live.show(make)
    if int(ipywidgets.__version__.split(".")[0]) < 8:  # Colab's ipywidgets 7 draws when displayed
        assert "position 3" in captured.stdout and len(built) == 1  # shown as before, built once
        return
    assert [WIDGET_VIEW in output.data for output in captured.outputs] == [True]  # the widget, once
    assert captured.stdout == ""  # nothing printed outside it
    outputs = built[0].out.outputs
    assert [output["output_type"] for output in outputs] == ["stream", "display_data"]
    assert outputs[0]["text"] == "position 3\n" and outputs[1]["data"]["text/markdown"] == "**drawn**"
