"""Code listings with fewer elements: tokens drawn in the listing's own colour get no span.

Pygments wraps every token of a listing in a ``<span>``, names and punctuation included. In
the site's code colours (the theme's light and dark Pygments styles, accessible-pygments' a11y
high-contrast pair), names, punctuation and white space are drawn exactly like plain text, so
those spans change nothing on the screen. They are a fifth of lesson 4's elements, and a
phone styles and lays out each of them while the page loads. So the site highlights code with
an HTML formatter that writes such tokens as text: a token type is plain when, in both styles,
it looks like ``Token.Text`` (same colour, no bold, italic, underline, background or border).
``course.css`` gives the text straight in a ``<pre>`` the listing's colour, as the spans had.
"""

from __future__ import annotations

from pygments.formatters import HtmlFormatter
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token


def plain_token_types(style_names: list[str]) -> frozenset:
    """The token types drawn like plain text in every one of the Pygments styles named."""
    styles = [get_style_by_name(name) for name in style_names]
    return frozenset(token_type for token_type in STANDARD_TYPES if token_type is not Token.Text
                     and all(style.style_for_token(token_type) == style.style_for_token(Token.Text)
                             for style in styles))


class LeanHtmlFormatter(HtmlFormatter):
    """Pygments' HTML formatter, with no span around a token of ``plain_types``."""

    plain_types: frozenset = frozenset()

    def _get_css_classes(self, ttype):
        return "" if ttype in self.plain_types else super()._get_css_classes(ttype)


def use_lean_listings(app) -> None:
    """Highlight the site's code with ``LeanHtmlFormatter`` (``builder-inited``): plain in the
    theme's light and dark styles (pydata-sphinx-theme's ``pygments_*_style`` options)."""
    highlighter = getattr(app.builder, "highlighter", None)
    if highlighter is None or app.builder.format != "html":
        return
    options = {**app.builder.theme.get_options(), **(app.config.html_theme_options or {})}
    styles = [options["pygments_light_style"], options["pygments_dark_style"]]
    highlighter.formatter = type("CourseHtmlFormatter", (LeanHtmlFormatter,),
                                 {"plain_types": plain_token_types(styles)})
