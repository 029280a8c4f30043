"""Code listings keep only the highlighting spans that change how they look (``_ext/code_spans.py``)."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO_ROOT, toc_docnames
from .test_pages_in_browser import visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import code_spans

CSS = """html[data-theme="light"] .highlight .hll { background-color: #fae4c2 }
html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }
html[data-theme="light"] .highlight .k { color: #6730C5 } /* Keyword */
html[data-theme="light"] .highlight .n { color: #080808 } /* Name */
html[data-theme="light"] .highlight .p { color: #080808 } /* Punctuation */
html[data-theme="light"] .highlight .nb { color: #080808; font-weight: bold } /* Name.Builtin */
html[data-theme="light"] .highlight .nx { color: #080808 } /* only in one theme */
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .k { color: #DCC6E0 } /* Keyword */
html[data-theme="dark"] .highlight .n { color: #f8f8f2 } /* Name */
html[data-theme="dark"] .highlight .p { color: #ABE338 } /* Punctuation */
html[data-theme="dark"] .highlight .nb { color: #F8F8F2; font-weight: bold } /* Name.Builtin */
"""
LISTING = ('<div class="highlight"><pre><span></span><span class="k">def</span><span class="w"> </span>'
           '<span class="n">f</span><span class="p">():</span></pre></div>')


def test_only_classes_drawn_in_the_listing_s_own_colour_in_every_theme_are_neutral():
    # p is coloured in the dark theme, nb is bold, nx is only in the light theme.
    assert code_spans.neutral_classes(CSS) == {"n"}
    assert code_spans.neutral_classes("pre { color: red }") == set()


def test_neutral_spans_become_their_text_inside_listings_only():
    page = LISTING + '<p><span class="n">outside</span></p>'
    lean = code_spans.unwrap_neutral_spans(page, {"n", "w"})
    assert lean == ('<div class="highlight"><pre class="course-lean-code"><span class="k">def</span> f'
                    '<span class="p">():</span></pre></div><p><span class="n">outside</span></p>')
    assert code_spans.unwrap_neutral_spans(page, set()) == page
    # A listing with nothing to unwrap keeps a plain <pre>.
    output = '<div class="highlight"><pre><span></span>5 tokens</pre></div>'
    assert code_spans.unwrap_neutral_spans(output, {"n"}) == output.replace("<span></span>", "")


@pytest.fixture(scope="module")
def neutral(built_site):
    return code_spans.neutral_classes((built_site / "_static" / "pygments.css").read_text())


def test_the_site_s_listings_have_no_neutral_spans_left(built_site, neutral):
    # Names, punctuation and white space are drawn in the listing's colour in both themes.
    assert {"n", "p", "w"} <= neutral
    pattern = re.compile(r'<div class="highlight"><pre[^>]*>(.*?)</pre></div>', re.S)
    neutral_span = re.compile(r'<span class="(?:{})">'.format("|".join(sorted(neutral))))
    for docname in toc_docnames():
        for listing in pattern.findall((built_site / f"{docname}.html").read_text()):
            assert not neutral_span.search(listing), docname


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_unwrapped_code_is_drawn_in_the_colour_its_span_had(browser, site_url, neutral, scheme):
    """A name's text, now straight in the listing, has the colour the theme gives a name."""
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   color_scheme=scheme)
    page = result.page
    try:
        # The site's stylesheet no longer has rules for classes no page uses: the theme's has.
        page.add_style_tag(url=f"{site_url}/_static/pygments.css")
        colours = page.evaluate("""classes => {
            const pre = document.querySelector('div.highlight pre.course-lean-code');
            const probes = classes.map(name => { const span = document.createElement('span');
                span.className = name; span.textContent = 'x'; pre.appendChild(span);
                return getComputedStyle(span).color; });
            return {listing: getComputedStyle(pre).color, spans: probes}; }""", sorted(neutral))
        assert colours["spans"] == [colours["listing"]] * len(neutral), colours
    finally:
        page.context.close()
