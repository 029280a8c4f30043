"""Code listings keep only the highlighting spans that change how they look (``_ext/code_spans.py``)."""

from __future__ import annotations

import re
import sys
from typing import ClassVar

import pytest
from pygments import highlight
from pygments.lexers import PythonLexer
from pygments.style import Style
from pygments.token import STANDARD_TYPES, Keyword, Name, Punctuation, Token

from .conftest import REPO_ROOT, toc_docnames
from .test_pages_in_browser import visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import code_spans

SITE_STYLES = ["a11y-high-contrast-light", "a11y-high-contrast-dark"]


class LightStyle(Style):
    styles: ClassVar = {Token: "#080808", Keyword: "#6730c5", Name.Builtin: "bold #080808"}


class DarkStyle(Style):
    styles: ClassVar = {Token: "#f8f8f2", Keyword: "#dcc6e0", Punctuation: "#abe338",
                        Name.Builtin: "bold #f8f8f2"}


def test_a_token_type_is_plain_when_every_style_draws_it_as_text(monkeypatch):
    monkeypatch.setattr(code_spans, "get_style_by_name", {"light": LightStyle, "dark": DarkStyle}.get)
    plain = code_spans.plain_token_types(["light", "dark"])
    assert Name in plain and Name.Other in plain
    assert Punctuation not in plain  # coloured in the dark style only
    assert Name.Builtin not in plain and Keyword not in plain  # bold; coloured
    assert code_spans.plain_token_types(["light"]) >= {Name, Punctuation}


def test_the_lean_formatter_writes_plain_tokens_as_text():
    formatter = type("Formatter", (code_spans.LeanHtmlFormatter,),
                     {"plain_types": code_spans.plain_token_types(SITE_STYLES)})()
    listing = highlight("def f(x):\n    return x\n", PythonLexer(), formatter)
    assert '<span class="k">def</span> <span class="nf">f</span>(x):' in listing
    assert '<span class="k">return</span> x' in listing
    assert '<span class="n">' not in listing and '<span class="p">' not in listing


def test_the_site_s_listings_have_no_plain_spans_left(built_site):
    # Names, punctuation and white space are drawn in the listing's colour in both themes.
    plain = {STANDARD_TYPES[token_type] for token_type in code_spans.plain_token_types(SITE_STYLES)}
    assert {"n", "p", "w"} <= plain
    pattern = re.compile(r'<div class="highlight"><pre[^>]*>(.*?)</pre></div>', re.S)
    plain_span = re.compile(r'<span class="(?:{})">'.format("|".join(sorted(plain))))
    listings = 0
    for docname in toc_docnames():
        for listing in pattern.findall((built_site / f"{docname}.html").read_text()):
            listings += 1
            assert not plain_span.search(listing), docname
    assert listings > 50


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_plain_code_is_drawn_in_the_colour_its_span_had(browser, site_url, scheme):
    """A name's text, straight in the listing, has the colour the theme gives a name."""
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   color_scheme=scheme)
    page = result.page
    try:
        # The site's stylesheet no longer has rules for classes no page uses: the theme's has.
        page.add_style_tag(url=f"{site_url}/_static/pygments.css")
        colours = page.evaluate("""classes => {
            const pre = document.querySelector('div.highlight-python div.highlight pre');
            const probes = classes.map(name => { const span = document.createElement('span');
                span.className = name; span.textContent = 'x'; pre.appendChild(span);
                return getComputedStyle(span).color; });
            return {listing: getComputedStyle(pre).color, spans: probes}; }""", ["n", "p", "w"])
        assert colours["spans"] == [colours["listing"]] * 3, colours
    finally:
        page.context.close()
