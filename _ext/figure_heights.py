"""Each figure takes, before it is drawn, the height it will have when drawn on a phone.

A figure's preview has the height of its desktop layout. On a phone, ``course-figures.js``
stacks side-by-side panels and wraps the title before drawing, and the figure grows, often to
twice its height. Content below a figure would then move while the reader looks at it, on a
browser without scroll anchoring (Safari). So the build works out the phone heights with the
same layout rules (``static/course-figure-fit.js``, run by ``tools/figure_heights.js``), at
every width in px from ``WIDTHS[0]`` up to the phone layout's limit, and writes on each
figure's div the widths where its height changes (``data-narrow-heights="240:932 280:899
400:866"``: 899 px from 280 px wide to 399 px). The loader gives the figure the height for the
widest of those widths that its box reaches, as soon as the browser reports where the box is.

The heights of a page's figures are worked out while Sphinx writes the pages after it, and
written on the page when the build finishes.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import Future, ThreadPoolExecutor

from node_tools import REPO_ROOT, run_node_script

FIGURE_HEIGHTS_JS = REPO_ROOT / "tools" / "figure_heights.js"
WIDTHS = list(range(240, 600))  # px; course-figure-fit.js: a phone layout below 600 px
FIGURE_DIV = re.compile(r'<div class="course-plot" id="([^"]+)"')


class FigureHeightError(RuntimeError):
    """The phone heights of a page's figures could not be worked out."""


def phone_heights(figures: dict[str, str]) -> dict[str, list[int]]:
    """The height of each figure at each of ``WIDTHS``.

    Args:
        figures: each figure's JSON text, by its div's id.
    Returns:
        For each id, one height in px per width in ``WIDTHS``.
    Raises:
        FigureHeightError: node is missing, or the layout rules fail on a figure.
    """
    if not figures:
        return {}
    request = {"widths": WIDTHS, "figures": {name: json.loads(text) for name, text in figures.items()}}
    return run_node_script(FIGURE_HEIGHTS_JS, request, FigureHeightError)


# One page at a time, beside the build: node works on a page's figures on one core while
# Sphinx goes on writing the next pages on the other.
_BACKGROUND = ThreadPoolExecutor(max_workers=1, thread_name_prefix="figure-heights")


def phone_heights_in_background(figures: dict[str, str]) -> Future:
    """Start :func:`phone_heights` on another thread; its ``result()`` is what it returns."""
    return _BACKGROUND.submit(phone_heights, figures)


def mark_phone_heights(body: str, heights: dict[str, list[int]]) -> str:
    """Write each figure's phone heights on its div (``data-narrow-heights``).

    Raises:
        FigureHeightError: a figure in ``body`` has no heights.
    """
    def mark(match: re.Match) -> str:
        name = match.group(1)
        if name not in heights:
            raise FigureHeightError(f"no phone heights for figure {name}")
        steps = zip(WIDTHS, heights[name], [None, *heights[name]], strict=False)
        pairs = " ".join(f"{width}:{height}" for width, height, narrower in steps if height != narrower)
        return f'{match.group(0)} data-narrow-heights="{pairs}"'

    return FIGURE_DIV.sub(mark, body)
