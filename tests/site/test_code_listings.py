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


# Per page: how many code listings (cell inputs and code blocks in the text) and outputs there
# are, and how many of each carry a copy button once sphinx-copybutton has run.
COPY_BUTTONS = """() => {
  const listings = [...document.querySelectorAll(
    '.highlight-ipython3 .highlight, .highlight-python .highlight')];
  const outputs = [...document.querySelectorAll('.cell_output .highlight, .output .highlight')];
  const copies = box => box.querySelector(':scope > button.copybtn') !== null;
  return {listings: listings.length, copied: listings.filter(copies).length,
          outputs: outputs.length, outputs_copied: outputs.filter(copies).length};
}"""


@pytest.mark.parametrize("docname", ["book/lessons/04_sinusoidal_positions", "book/lessons/09_questions"])
def test_code_has_a_copy_button_and_an_output_has_none(browser, site_url, docname):
    """A learner copies code to run it; an output is there to read, as in Jupyter. A copy button
    on each output was one more tab stop for a keyboard reader (lesson 4: 10 outputs)."""
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/{docname}.html", wait_until="domcontentloaded")
        page.mouse.move(200, 200)  # the reader's first move brings the copy buttons (course-first-move.js)
        page.wait_for_function("document.querySelector('button.copybtn') !== null")
        found = page.evaluate(COPY_BUTTONS)
        assert found["listings"] > 0 and found["outputs"] > 0, found
        assert found["copied"] == found["listings"], found
        assert found["outputs_copied"] == 0, found
    finally:
        page.close()
