"""The static-site renderer: figures become a div and a call to the shared plotly.js."""

import json
import re

import plotly.graph_objects as go
import plotly.io as pio

from embedding_course import web


def test_static_renderer_writes_a_div_without_inlining_plotly_js():
    bundle = web.StaticSiteRenderer().to_mimebundle(go.Figure(go.Scatter(y=[1, 2, 3])).to_dict())
    html = bundle["text/html"]
    assert 'class="course-plot"' in html
    assert "Plotly.newPlot" in html
    assert len(html) < 20_000  # plotly.js itself is ~4.8 MB: it is not in the page
    assert "cdn" not in html.lower()


def test_static_renderer_ids_are_sequential_not_random():
    renderer = web.StaticSiteRenderer()
    first = renderer.to_mimebundle(go.Figure().to_dict())["text/html"]
    second = renderer.to_mimebundle(go.Figure().to_dict())["text/html"]
    first_id = int(re.search(r'id="course-plot-(\d+)"', first).group(1))
    second_id = int(re.search(r'id="course-plot-(\d+)"', second).group(1))
    assert second_id == first_id + 1


def test_static_renderer_keeps_the_figure_data():
    figure = go.Figure(go.Scatter(y=[4, 5, 6], name="probe"))
    html = web.StaticSiteRenderer().to_mimebundle(figure.to_dict())["text/html"]
    spec = json.loads(re.search(r"var spec = (\{.*\});", html).group(1))
    assert spec["data"][0]["name"] == "probe"


def test_renderer_is_only_switched_on_for_the_static_site(monkeypatch):
    monkeypatch.delenv(web.STATIC_SITE_ENV_VAR, raising=False)
    assert not web.on_static_site()
    monkeypatch.setenv(web.STATIC_SITE_ENV_VAR, "1")
    assert web.on_static_site()
    previous = pio.renderers.default
    try:
        web.use_static_site_renderer()
        assert pio.renderers.default == web.RENDERER_NAME
    finally:
        pio.renderers.default = previous


def test_glue_returns_nothing_so_a_cell_ending_with_it_prints_nothing():
    assert web.glue("answer", 42) is None


def test_glue_stores_values_only_while_the_site_is_built(monkeypatch):
    import myst_nb

    stored = []
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display: stored.append(name))
    monkeypatch.delenv(web.STATIC_SITE_ENV_VAR, raising=False)
    web.glue("in_a_notebook", 1)  # a learner's notebook: no output that Jupyter cannot draw
    monkeypatch.setenv(web.STATIC_SITE_ENV_VAR, "1")
    web.glue("on_the_site", 2)
    assert stored == ["on_the_site"]
