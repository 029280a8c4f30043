"""A listing has a span where its colour changes, not one per token, and looks as the
highlighting style draws it, in light and dark mode (``_ext/code_listings.py``)."""

from __future__ import annotations

import pytest

from .conftest import toc_docnames

# Per listing, in the current theme: how many spans, which are drawn like the highlighting
# style's plain text, the colour of the listing's text and the style's text colour.
LISTINGS = """() => [...document.querySelectorAll(
    '.highlight-ipython3 .highlight pre, .highlight-python .highlight pre')].map(pre => {
  const look = element => { const style = getComputedStyle(element);
    return [style.color, style.fontWeight, style.fontStyle].join(' '); };
  const spans = [...pre.querySelectorAll('span[class]')];
  const plain = look(pre.closest('.highlight'));
  return {spans: spans.length, like_text: spans.filter(span => look(span) === plain).map(
            span => span.className + ' ' + span.textContent),
          text: getComputedStyle(pre).color,
          style_text: getComputedStyle(pre.closest('.highlight')).color};
})"""


@pytest.mark.parametrize("docname", [name for name in toc_docnames() if "/lessons/" in name])
def test_no_span_in_a_listing_is_drawn_like_its_text(browser, site_url, docname):
    """Names and punctuation, which the theme's styles draw in the listing's own colour, are
    plain text: lesson 4 had 2,417 spans in its listings, 1,477 of them drawn like the text."""
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/{docname}.html", wait_until="domcontentloaded")
        for theme in ("light", "dark"):
            page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
            listings = page.evaluate(LISTINGS)
            assert listings, f"{docname} has no Python listing"
            like_text = [span for listing in listings for span in listing["like_text"]]
            assert not like_text, (theme, like_text[:10])
            # The listing's text has the highlighting style's colour, as its names had.
            assert {(listing["text"], listing["style_text"]) for listing in listings} == {
                (listings[0]["style_text"],) * 2}, theme
            assert sum(listing["spans"] for listing in listings) > 0
    finally:
        page.close()
