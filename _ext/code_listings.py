"""Code listings with one element per colour change, not one per token.

Pygments wraps every token of a listing in a ``<span>``, also names and punctuation that the
theme's light and dark styles draw in the listing's own colour: on lesson 4, 1,477 of the
listings' 2,417 spans, a quarter of the page's elements, which a phone styles and lays out
before its first paint. A Pygments filter on the lexers that the code cells use hands such
tokens on as plain text; the formatter then writes them without a span, and merges runs of
the same colour. The listing looks the same in both themes (``tests/site/test_code_listings.py``).
Generic tokens (prompts, outputs) keep their spans: the copy button finds them by class.
"""

from __future__ import annotations

from functools import partial

from pydata_sphinx_theme.utils import get_theme_options_dict
from pygments.filter import Filter
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.token import Generic, Text

# The languages of the pages' listings, code cells (the kernel's "ipython3") and fences, with
# the options Sphinx would make their lexers with.
LANGUAGES = {"ipython3": {}, "python": {"stripnl": False}}


class PlainTokens(Filter):
    """Pass a token on as text when every one of ``styles`` draws it as text."""

    def __init__(self, styles, **options):
        super().__init__(**options)
        self.styles = styles
        self.plain = {}  # token type -> drawn as text?

    def is_plain(self, ttype) -> bool:
        if ttype not in self.plain:
            self.plain[ttype] = ttype not in Generic and all(
                style.style_for_token(ttype) == style.style_for_token(Text) for style in self.styles)
        return self.plain[ttype]

    def filter(self, lexer, stream):
        for ttype, value in stream:
            yield (Text if self.is_plain(ttype) else ttype), value


def _lexer(language: str, styles: list, **options):
    lexer = get_lexer_by_name(language, **{**LANGUAGES[language], **options})
    lexer.add_filter(PlainTokens(styles))
    return lexer


def on_builder_inited(app) -> None:
    """Give the listings' languages lexers that know the theme's two styles."""
    if not hasattr(app.builder, "theme"):
        return
    options = {**app.builder.theme.get_options(), **get_theme_options_dict(app)}
    styles = [get_style_by_name(options[f"pygments_{mode}_style"]) for mode in ("light", "dark")]
    for language in LANGUAGES:
        app.add_lexer(language, partial(_lexer, language, styles))


def setup(app):
    app.connect("builder-inited", on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
