"""The shared parts of live explorers and exercise checkers."""

from embedding_course import exercises, live, web


def test_live_show_displays_a_note_on_the_static_site(monkeypatch):
    monkeypatch.setenv(web.STATIC_SITE_ENV_VAR, "1")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    built = []
    assert live.show(lambda: built.append(1)) is None
    assert built == []  # the widget is not even built
    assert len(shown) == 1 and "Binder or Colab" in shown[0].data


def test_live_show_displays_the_widget_in_a_kernel(monkeypatch):
    monkeypatch.delenv(web.STATIC_SITE_ENV_VAR, raising=False)
    import ipywidgets

    widget = live.show(lambda: ipywidgets.IntSlider(value=3))
    assert isinstance(widget, ipywidgets.IntSlider) and widget.value == 3


def test_feedback_is_truthy_only_when_correct():
    assert exercises.correct("well done")
    verdict = exercises.wrong("shape is (3, 4), expected (4, 3)")
    assert not verdict
    assert "shape is (3, 4)" in str(verdict)
    assert verdict._repr_markdown_().startswith("**Not yet.**")
