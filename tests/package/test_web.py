"""The static-site renderer: figures become a div and a call to the shared plotly.js."""

import json
import re

import plotly.graph_objects as go
import plotly.io as pio

from embedding_course import web


def _spec(html: str) -> dict:
    holder = re.search(r'<script type="application/json" class="course-plot-spec"[^>]*>(.*?)</script>',
                       html, re.S)
    return json.loads(holder.group(1))


def test_static_renderer_writes_a_div_without_inlining_plotly_js():
    figure = go.Figure(go.Scatter(y=[1, 2, 3]), layout=dict(height=320, title="<b>Probe</b> title"))
    html = web.StaticSiteRenderer().to_mimebundle(figure.to_dict())["text/html"]
    assert 'class="course-plot"' in html
    assert "height:320px" in html  # the placeholder has the figure's final height
    assert "Probe  title" in html or "Probe title" in html  # the preview names the figure
    assert "<b>Probe</b>" not in html.split("<script")[0]
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
    spec = _spec(html)
    assert spec["data"][0]["name"] == "probe"


def test_static_renderer_data_cannot_close_its_script_element():
    figure = go.Figure(go.Scatter(y=[1], name="</script><b>x</b>"))
    html = web.StaticSiteRenderer().to_mimebundle(figure.to_dict())["text/html"]
    assert html.count("</script>") == 1
    assert _spec(html)["data"][0]["name"] == "</script><b>x</b>"


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
