"""Images load when they come near the screen, with their size known in advance; a figure is
named by its caption.

A page's images (the outputs' figures drawn by matplotlib, most of them far down a lesson)
would all load with the page, and the text below each would move once it arrived. The site's
HTML translator writes each raster image with ``loading="lazy"`` and ``decoding="async"``, and
with its size in pixels as ``width`` and ``height`` attributes: the browser keeps its box from
the start, and ``max-width: 100%; height: auto`` (the theme's) scales it on a phone. (Docutils'
own ``:width:`` writes a fixed CSS size instead, which a narrow screen cannot scale.)

A figure shrunk to a phone's width shrinks its text with it, to about 5 px. So the build also
draws each wide static figure for a narrow screen (``course_glue.py``: panels stacked, text at
its size), and the translator writes the two as one ``<picture>`` (``course_outputs.static_figure``):
a ``<source>`` with the narrow drawing for the phone layout (``PHONE``, as
``course-figure-fit.js``), at the figure's density and at twice it, of which the phone loads
the one its screen needs; then the figure's ``<img>`` with its alt text, which every other
screen, and a browser without ``<picture>``, shows. Each has its own size, so nothing moves.
The ``<img>`` offers the figure at twice its density too (``srcset``): a sharp laptop screen
(two device pixels to the CSS pixel) shows its text as crisply as the page's, and a screen of
one device pixel loads the figure's own drawing, as before.

Each ``<figure>`` with a caption is named by it (``aria-labelledby``), so that a screen reader
says "Fig. 4.3 The sinusoidal table..." as it enters the figure.
"""

from __future__ import annotations

import os
import posixpath
import urllib.parse

from docutils import nodes
from sphinx.util.images import get_image_size
from sphinx.writers.html5 import HTML5Translator

VECTOR = (".svg", ".svgz")
PHONE = "(max-width: 599.98px)"  # the phone layout of course-figure-fit.js: below 600 px


class CourseHTMLTranslator(HTML5Translator):
    """Sphinx's HTML translator; images lazy, with their size; figures named by their captions."""

    _image_size: tuple[int, int] | None = None
    _caption: nodes.caption | None = None  # the caption that names the figure being written
    _sharp: tuple[tuple[str, int], ...] = ()  # the image being written at other densities: (file, density)

    def visit_figure(self, node) -> None:
        captions = [child for child in node.children if isinstance(child, nodes.caption)]
        self._caption = captions[0] if captions and node["ids"] else None  # Sphinx numbers (and ids) it
        super().visit_figure(node)

    def starttag(self, node, tagname, suffix="\n", empty=False, **attributes):
        if self._caption is not None and tagname == "figure":
            attributes["aria-labelledby"] = f"{node['ids'][0]}-caption"
        elif node is self._caption and tagname == "p":  # the caption's paragraph, in its <figcaption>
            # Its id on this tag alone: docutils writes a node's ids on each of its tags (and adds
            # an ``ids`` attribute to the node's own list), and Sphinx writes the caption's text
            # in a second tag.
            self._caption, kept = None, node["ids"]
            node["ids"] = [f"{node.parent['ids'][0]}-caption"]
            try:
                return super().starttag(node, tagname, suffix, empty, **attributes)
            finally:
                node["ids"] = kept
        return super().starttag(node, tagname, suffix, empty, **attributes)

    def visit_image(self, node) -> None:
        uri = node["uri"]  # before Sphinx points it at _images/
        vector = uri.lower().endswith(VECTOR)
        size = None if vector else get_image_size(os.path.join(self.builder.srcdir, uri))
        if size is not None:
            node["loading"] = node.get("loading", "lazy")
        self._image_size = size
        super().visit_image(node)

    def emptytag(self, node, tagname, suffix="\n", **attributes):
        if tagname == "img" and self._image_size is not None:
            width, height = self._image_size
            attributes = {"width": str(width), "height": str(height), "decoding": "async", **attributes}
            self._image_size = None
        if tagname == "img" and self._sharp:
            attributes["srcset"] = _srcset([(attributes["src"], 1), *self._sharp])
            self._sharp = ()
        return super().emptytag(node, tagname, suffix, **attributes)

    def visit_static_figure(self, node) -> None:
        drawings = node["drawings"]
        others, figure = node.children[:len(drawings)], node.children[len(drawings):]
        drawn = [(kind, image, self._image_file(image), density)
                 for image, (kind, density) in zip(others, drawings, strict=True)]
        narrow = [(file, density) for kind, _, file, density in drawn if kind == "narrow"]
        self._sharp = tuple((file, density) for kind, _, file, density in drawn if kind == "sharp")
        if narrow:
            first = next(image for kind, image, *_ in drawn if kind == "narrow")
            width, height = get_image_size(os.path.join(self.builder.srcdir, first["uri"]))  # its CSS size
            self.body.append(f'<picture><source media="{PHONE}" srcset="{_srcset(narrow)}" '
                             f'width="{width}" height="{height}">')
        for child in figure:
            child.walkabout(self)
        if narrow:
            self.body.append("</picture>\n")
        raise nodes.SkipNode

    def _image_file(self, image) -> str:
        """Where an image node's file is in the built site, from the page being written."""
        return posixpath.join(self.builder.imgpath, urllib.parse.quote(self.builder.images[image["uri"]]))


def _srcset(files) -> str:
    """``srcset``'s list of (file, density) pairs."""
    return ", ".join(f"{file} {density}x" for file, density in files)
