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

The heights of a page's figures are worked out when the page is written
(``course_outputs.place_figures``).
"""

from __future__ import annotations

from node_tools import REPO_ROOT, run_node_script

FIGURE_HEIGHTS_JS = REPO_ROOT / "tools" / "figure_heights.js"
WIDTHS = list(range(240, 600))  # px; course-figure-fit.js: a phone layout below 600 px


class FigureHeightError(RuntimeError):
    """The phone heights of a page's figures could not be worked out."""


def phone_heights(figures: dict[str, dict]) -> dict[str, list[int]]:
    """The height of each figure at each of ``WIDTHS``.

    Args:
        figures: each figure's JSON data, by its div's id.
    Returns:
        For each id, one height in px per width in ``WIDTHS``.
    Raises:
        FigureHeightError: node is missing, or the layout rules fail on a figure.
    """
    if not figures:
        return {}
    request = {"widths": WIDTHS, "figures": figures}
    return run_node_script(FIGURE_HEIGHTS_JS, request, FigureHeightError)


def height_steps(heights: list[int]) -> str:
    """The widths where a figure's height changes, as ``data-narrow-heights`` holds them
    ("240:932 280:899": 932 px from 240 px wide, 899 px from 280 px)."""
    steps = zip(WIDTHS, heights, [None, *heights], strict=False)
    return " ".join(f"{width}:{height}" for width, height, narrower in steps if height != narrower)
