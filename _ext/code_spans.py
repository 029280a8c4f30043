"""Code listings with fewer elements: highlighting spans that change nothing are unwrapped.

Pygments wraps every token of a listing in a ``<span>``, names and punctuation included. In
the site's code colours (accessible-pygments' a11y light and dark), names, punctuation and
white space are drawn in the listing's own colour, so those spans change nothing on the
screen. They are a fifth of lesson 4's elements, and a phone styles and lays out each of
them while the page loads. After the build, inside each ``<div class="highlight"><pre>``,
a span whose class only sets the listing's own colour, in every theme, becomes its text.
The theme draws text straight in a ``<pre>`` in its own text colour, so the ``<pre>`` is
marked (``LEAN_CLASS``) and ``course.css`` gives it the listing's colour, as the spans had.
"""

from __future__ import annotations

import re

# One rule of the theme's pygments.css, e.g.
# html[data-theme="dark"] .highlight .n { color: #F8F8F2 } /* Name */
RULE = re.compile(r'html\[data-theme="(\w+)"\] \.highlight(?: \.([\w-]+))? \{([^}]*)\}')
LISTING = re.compile(r'<div class="highlight"><pre>(.*?)</pre></div>', re.S)
LEAN_CLASS = "course-lean-code"
EMPTY_FIRST_SPAN = "<span></span>"


def _declarations(body: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in body.split(";") if ":" in part)
    return {name.strip().lower(): value.strip().lower() for name, value in pairs}


def neutral_classes(pygments_css: str) -> set[str]:
    """The token classes whose rules set nothing but the listing's own colour, in every theme.

    Args:
        pygments_css: the site's ``_static/pygments.css`` (one block of rules per theme).
    Returns:
        Class names such as ``{"n", "p", "w"}``; empty when the stylesheet has no themes.
    """
    base: dict[str, str | None] = {}
    rules: dict[str, dict[str, dict[str, str]]] = {}
    for theme, token_class, body in RULE.findall(pygments_css):
        declarations = _declarations(body)
        if token_class:
            rules.setdefault(token_class, {})[theme] = declarations
        else:
            base[theme] = declarations.get("color")
    return {token_class for token_class, by_theme in rules.items()
            if by_theme.keys() == base.keys()
            and all(base[theme] is not None and declarations == {"color": base[theme]}
                    for theme, declarations in by_theme.items())}


def unwrap_neutral_spans(html: str, classes: set[str]) -> str:
    """Replace, in every listing of a page, each span of one of ``classes`` by its text."""
    if not classes:
        return html
    names = "|".join(map(re.escape, sorted(classes)))
    span = re.compile(rf'<span class="(?:{names})">([^<]*)</span>')

    def lean(match: re.Match) -> str:
        code, unwrapped = span.subn(r"\1", match.group(1).removeprefix(EMPTY_FIRST_SPAN))
        pre = f'<pre class="{LEAN_CLASS}">' if unwrapped else "<pre>"
        return f'<div class="highlight">{pre}{code}</pre></div>'

    return LISTING.sub(lean, html)
