"""Where to write each word of a word map, so that no word lies on another.

Plotly writes a point's text on one of eight sides of it (its ``textposition``). A word whose
eight sides are all taken (a cluster of near neighbours, such as the number words) is written
further out, at the end of a thin line from its point: a leader, as map makers draw one.

Labels are sized in pixels, so what is crowded depends on the size the plot is drawn at: the
placement is scored at every plot size given (a phone's and a desktop's) at once, and one
choice serves them all. Greedy: the most crowded points choose first, each the place whose label
covers the least of the labels, leaders and markers placed so far, whose leader crosses the
fewest leaders, and which stays inside the plot (Plotly cuts text at the plot's edge). Then
each word in turn may move to a cheaper place, given all the others, until none does (at most
``REPAIR_ROUNDS`` rounds). Where that leaves a word on another or cut at the edge, a second
start whose greedy pass does not count the cut is tried too, and the cheaper of the two kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from embedding_course import checks

# Each side Plotly can write a point's text on, as the direction (x, y) in which the word
# keeps clear of its point.
LABEL_SIDES = {
    "top center": (0, 1), "bottom center": (0, -1), "middle right": (1, 0), "middle left": (-1, 0),
    "top right": (1, 1), "top left": (-1, 1), "bottom right": (1, -1), "bottom left": (-1, -1),
}
# Where Plotly writes a word (plotly.js, Drawing.textPointStyle): ``gap`` = radius / 0.8 + 1 px
# out from the marker's centre (none at a leader's end, which has no marker), the text starting
# there (right), ending there (left) or centred on the point; its baseline (gap + 0.25 em) above
# the point (top), (gap + 0.75 em) below it (bottom), or 0.25 em below it (middle). A word's
# letters reach up to about 0.95 em above the baseline and 0.3 em below it (a little more than
# the common sans-serif fonts need), so its box is 1.25 em high; and 0.62 em per letter wide
# plus 3 px (the browser measures 0.52-0.63 em per letter).
ASCENT, DESCENT = 0.95, 0.3  # of the font size
LETTER_WIDTH, WIDTH_PAD = 0.62, 3.0  # of the font size; px
# The plot areas (pixels) of lesson 6's maps, about, in this order: on a phone (390 px), on a
# desktop, on the smallest phones (320 px; also a desktop zoomed to 400 %). The maps: the word
# map (600 px high), the training explorer (its slider takes some of the height), and the
# neighbour explorer's map (beside its bars on a desktop, above them on a phone), which lists
# the phones of 375 and 360 px too: its eight neighbours crowd it most. Each map carries its own
# in its layout (record_plot_areas), and the browser tests fail when a map is drawn at another
# size at any step of its controls: measure again after changing a map's height or margins, or
# the phone layout (course-figure-fit.js).
PLOT_AREAS = ((266, 427), (581, 422), (196, 427))
SLIDER_PLOT_AREAS = ((266, 302), (581, 300), (196, 302))
EXPLORER_PLOT_AREAS = ((266, 300), (325, 367), (196, 300), (251, 300), (236, 300))
# A figure whose words were placed for plot areas says so in its ``layout.meta``
# (:func:`record_plot_areas`), so that a browser can check it is drawn at them.
PLOT_AREAS_META = "label_plot_areas"
LEADER_LENGTHS = (16, 28, 42, 58)  # px on the smallest plot area: how far out a word may go
LEADER_DIRECTIONS = 24  # evenly spread, from pointing right
# What a place costs, in square pixels of label covered, summed over the plot areas:
COVER_COST = 1000.0  # a label on another label at all: more than anything else but a word cut short
CROSS_COST = 500.0  # a leader through a label (or a label over a leader): the word can still be read
LEADER_COST = 40.0  # a leader at all: more than a label over a sliver of a marker's edge
LENGTH_COST = 2.0  # and per pixel of its length (averaged over the plot areas)
# A leader is sized on the smallest plot area, and the others stretch it: on a desktop's plot,
# three times as wide as a 320 px phone's, a sideways leader ran 172 px across Fig. 6.3 and
# seemed to point at nothing. One longer than this on any plot area costs as much as a cover.
LEADER_LIMIT = 100.0  # px
MARKER_COST = 3.0  # a pixel of a marker under a label: a word on a point reads as that point's
LINE_COST = 6.0  # a pixel of a leader over a marker or through a label
# Two leaders that cross: the eye, following one, may end at the other's word. In Fig. 6.3's
# crowd of countries and capitals, nine pairs crossed without this; with it, six, on shorter
# leaders. At twice this, words went onto other words' points instead.
LEADERS_CROSS_COST = 40.0
OUTSIDE_COST = 10.0  # a pixel of a label outside the plot (Plotly cuts it off there)
CUT_COST = COVER_COST  # a label outside the plot at all (a square pixel or more): it reads as another word
LINE_STEP = 3.0  # px between the points at which a leader is tested
REPAIR_ROUNDS = 4  # at most: rounds in which each word may move to a cheaper place


class Label(NamedTuple):
    """Where one word goes: ``side`` of its ``anchor`` (the point itself, or the far end of a leader)."""

    side: str  # a Plotly textposition
    anchor: tuple[float, float] | None  # data coordinates of the leader's end; None: beside the point


def padded_range(values: np.ndarray, pad: float = 0.08) -> list[float]:
    """An axis range around ``values`` with ``pad`` of their span on each side."""
    low, high = float(np.min(values)), float(np.max(values))
    margin = (high - low) * pad or 1.0
    return [low - margin, high + margin]


def axis_ranges(points: np.ndarray) -> list[list[float]]:
    """The x and y ranges of a map of ``points`` (N, 2): each :func:`padded_range`."""
    return [padded_range(points[:, axis]) for axis in (0, 1)]


def _overlaps(boxes: np.ndarray, others: np.ndarray, cover_cost: float = 0.0) -> np.ndarray:
    """For each of ``boxes`` (C, 4: left, bottom, right, top), the area it shares with ``others``
    (M, 4), summed, plus ``cover_cost`` for each of them it overlaps at all."""
    if not len(others):
        return np.zeros(len(boxes))
    width = (np.minimum(boxes[:, None, 2], others[:, 2])
             - np.maximum(boxes[:, None, 0], others[:, 0]))  # (C, M)
    height = np.minimum(boxes[:, None, 3], others[:, 3]) - np.maximum(boxes[:, None, 1], others[:, 1])
    covered = ((width > 0) & (height > 0)).sum(axis=1)
    return (np.clip(width, 0, None) * np.clip(height, 0, None)).sum(axis=1) + cover_cost * covered


def _inside(points: np.ndarray, boxes: np.ndarray, each: bool = False) -> np.ndarray:
    """Whether each of ``points`` (K, 2) lies in any of ``boxes`` (M, 4), or with ``each``, in
    each of them (K, M). NaN points lie in none."""
    x, y = points[:, None, 0], points[:, None, 1]
    hit = (x > boxes[:, 0]) & (x < boxes[:, 2]) & (y > boxes[:, 1]) & (y < boxes[:, 3])  # (K, M)
    return hit if each else hit.any(axis=1)


def _leader_points(point: np.ndarray, anchors: np.ndarray, skip: float) -> np.ndarray:
    """Points every ``LINE_STEP`` px along the line from ``point`` to each of ``anchors`` (C, 2),
    from ``skip`` px out (the marker's edge) to the end; NaN past the end. Shape (C, S, 2)."""
    reach = np.linalg.norm(anchors - point, axis=1)  # (C,)
    steps = np.arange(skip, reach.max() + LINE_STEP, LINE_STEP)  # (S,) px along a leader
    along = np.where(steps < reach[:, None], steps / np.maximum(reach, 1e-9)[:, None], np.nan)  # (C, S)
    return point + (anchors - point)[:, None, :] * along[..., None]


def _crossings(start: np.ndarray, ends: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """How many of ``segments`` (M, 2, 2: from, to) the line from ``start`` (2,) to each of
    ``ends`` (C, 2) crosses; a line of no length crosses none. Shape (C,)."""
    if not len(segments):
        return np.zeros(len(ends), dtype=int)
    along, other_start = ends - start, segments[:, 0]  # (C, 2), (M, 2)
    other_along = segments[:, 1] - other_start  # (M, 2)

    def cross(u, v):
        return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]

    turn = cross(along[:, None], other_along[None])  # (C, M); 0 where parallel or of no length
    gap = (other_start - start)[None]  # (1, M, 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        here = cross(gap, other_along[None]) / turn  # (C, M) where on this line they meet, 0-1
        there = cross(gap, along[:, None]) / turn  # and on the other
    return ((turn != 0) & (here > 0) & (here < 1) & (there > 0) & (there < 1)).sum(axis=1)


def _side_towards(direction: np.ndarray) -> str:
    """The side of ``LABEL_SIDES`` that faces ``direction`` (x, y) most nearly: a label there
    lies beyond the end of a leader going that way."""
    step = [int(np.sign(value)) if abs(value) > 0.4 else 0 for value in direction]
    return next(side for side, away in LABEL_SIDES.items() if list(away) == step)


def record_plot_areas(figure, plot_areas: Sequence[tuple[float, float]]) -> None:
    """Write into ``figure.layout.meta`` the plot areas (phone, desktop, then any others) its
    words were placed for: they are measured, and a change to the figure's size or margins
    makes them stale."""
    figure.update_layout(meta={PLOT_AREAS_META: [list(area) for area in plot_areas]})


def place_labels(coords, words: Sequence[str], *, ranges: Sequence[Sequence[float]] | None = None,
                 plot_areas: Sequence[tuple[float, float]] = PLOT_AREAS, font_px: float = 10,
                 marker_px: float | Sequence[float] = 4) -> list[Label]:
    """A place for each word's label where it covers no other label, leader or marker if it can.

    Args:
        coords: (N, 2) positions of the points.
        words: the label of each point.
        ranges: the x and y ranges of the axes (default: :func:`axis_ranges` of the points).
        plot_areas: the (width, height) in pixels of the plot areas the figure is drawn at;
            leader lengths are measured on the smallest.
        font_px: the labels' font size in pixels.
        marker_px: the markers' radius in pixels: one for all, or one per point.
    Returns:
        One :class:`Label` per point.
    """
    coords = checks.vectors(coords, "coords").astype(np.float64)  # (N, 2)
    if coords.shape[1] != 2 or len(words) != coords.shape[0]:
        raise ValueError(f"coords must be (N, 2) with one word per point; got {coords.shape} "
                         f"and {len(words)} words")
    if not plot_areas:
        raise ValueError("plot_areas is empty; give the (width, height) of at least one plot area")
    if np.ndim(marker_px) > 1 or np.size(marker_px) not in (1, len(words)):
        raise ValueError(f"marker_px must be one radius or one per point ({len(words)}); "
                         f"got {np.size(marker_px)} values")
    ranges = ranges if ranges is not None else axis_ranges(coords)
    origin = np.array([ranges[0][0], ranges[1][0]])
    spans = np.array([high - low for low, high in ranges])
    scales = [np.array(area, dtype=np.float64) / spans for area in plot_areas]  # px per data unit
    layouts = [(coords - origin) * scale for scale in scales]  # (N, 2) px, one per plot area
    sizes = np.array([(LETTER_WIDTH * font_px * len(word) + WIDTH_PAD, (ASCENT + DESCENT) * font_px)
                      for word in words])  # (N, 2)
    radii = np.broadcast_to(np.asarray(marker_px, dtype=np.float64).ravel(), (len(words),))[:, None]  # (N, 1)
    markers = [np.hstack([p - radii, p + radii]) for p in layouts]  # (N, 4) each
    crowd = sum((np.linalg.norm(p[:, None] - p[None], axis=-1) < 4 * font_px).sum(axis=1) for p in layouts)

    # Every place a word may take (C of them): beside its point, on each of the eight sides; or
    # at the end of a leader, in each of LEADER_DIRECTIONS directions and of LEADER_LENGTHS on the
    # smallest plot area (the others stretch it as their scale differs), on the side facing away.
    angles = 2 * np.pi * np.arange(LEADER_DIRECTIONS) / LEADER_DIRECTIONS
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (D, 2)
    leader_sides = [_side_towards(direction) for direction in directions]
    sides = list(LABEL_SIDES) + leader_sides * len(LEADER_LENGTHS)
    lengths = np.concatenate([np.zeros(len(LABEL_SIDES)), np.repeat(LEADER_LENGTHS, LEADER_DIRECTIONS)])
    away = np.array([LABEL_SIDES[side] for side in sides], dtype=np.float64)  # (C, 2)
    heading = np.vstack([np.zeros((len(LABEL_SIDES), 2)), np.tile(directions, (len(LEADER_LENGTHS), 1))])
    smallest = int(np.argmin([width * height for width, height in plot_areas]))
    shifts = heading * lengths[:, None] / scales[smallest]  # (C, 2) the leaders, in data units
    beside = (lengths == 0)[:, None] * away  # (C, 2): the gap's direction, none at a leader's end
    base_costs = np.where(lengths == 0, 0.0, LEADER_COST)

    def geometry(index: int) -> list[tuple]:
        """Word ``index``'s places, per plot area, and what in their cost depends on nothing
        else: each place's label box (C, 4), the end of its leader (C, 2; the point itself when
        beside it), the leader's points (C, S, 2; NaN past its end), the leaders' own points
        (V, 2) with the place each is on (V,), and the cost of the markers under each label, of
        each leader's length, and the label's pixels outside the plot."""
        if index not in geometries:
            size = sizes[index]
            radius = float(radii[index, 0])
            # each place's box's lower-left corner from its anchor, in px
            corner = np.column_stack([(away[:, 0] - 1) / 2 * size[0],
                                      (away[:, 1] / 2 - 0.25 - DESCENT) * font_px])  # (C, 2)
            corner += beside * (radius / 0.8 + 1)
            others = np.arange(len(words)) != index
            per_area = []
            for pixels, scale, area, marker in zip(layouts, scales, plot_areas, markers, strict=True):
                point = pixels[index]
                anchors = point + shifts * scale  # (C, 2)
                corners = anchors + corner
                candidate_boxes = np.hstack([corners, corners + size])  # (C, 4)
                leaders = _leader_points(point, anchors, skip=radius + 1)  # (C, S, 2)
                reach = np.linalg.norm(anchors - point, axis=1)  # (C,) each leader's length, px
                on_leader = ~np.isnan(leaders[..., 0])  # (C, S)
                per_area.append((
                    candidate_boxes, anchors, leaders, leaders[on_leader], np.nonzero(on_leader)[0],
                    MARKER_COST * _overlaps(candidate_boxes, marker[others]),
                    LENGTH_COST * reach / len(layouts) + COVER_COST * (reach > LEADER_LIMIT),
                    size.prod() - _overlaps(candidate_boxes, np.array([[0.0, 0.0, *area]]))))
            geometries[index] = per_area
        return geometries[index]

    def costs_of_places(index: int, placed: np.ndarray,
                        cut_cost: float = CUT_COST) -> tuple[np.ndarray, list]:
        """What each place costs word ``index``, given the labels and leaders of the words
        ``placed`` (N,) bool (a word cut at the edge: ``cut_cost``); and each place's label boxes,
        leader points and leader ends, per plot area."""
        others = np.arange(len(words)) != index
        placed = placed & others
        costs = base_costs.copy()
        candidates = []
        for place, taken, drawn, marker, pixels, ends in zip(geometry(index), boxes, lines, markers, layouts,
                                                             leader_ends, strict=True):
            candidate_boxes, anchors, leaders, points, owner, under_label, length, outside = place
            taken = taken[placed]  # (M, 4) the other words' labels
            drawn = np.concatenate([drawn[other] for other in np.flatnonzero(placed)] or [np.empty((0, 2))])
            costs += _overlaps(candidate_boxes, taken, COVER_COST)
            costs += under_label
            costs += length
            # a leader through a label or over a marker (its own points only: ``points``, each on
            # the leader of place ``owner``); a label over a leader drawn before
            point_index, label_index = np.nonzero(_inside(points, taken, each=True))  # (V, M) hits
            through = np.zeros((len(shifts), len(taken)), dtype=bool)  # (C, M) leader crosses label
            through[owner[point_index], label_index] = True
            costs += CROSS_COST * through.sum(axis=1)
            over = np.bincount(owner[_inside(points, marker[others])], minlength=len(shifts))  # (C,)
            covered = _inside(drawn, candidate_boxes, each=True)  # (P, C)
            costs += CROSS_COST * covered.any(axis=0)
            costs += LINE_COST * LINE_STEP * (over + covered.sum(axis=0))
            costs += OUTSIDE_COST * outside + cut_cost * (outside > 1.0)
            other_leaders = np.stack([pixels[placed], ends[placed]], axis=1)  # (M, 2, 2)
            other_leaders = other_leaders[(other_leaders[:, 0] != other_leaders[:, 1]).any(axis=1)]
            costs += LEADERS_CROSS_COST * _crossings(pixels[index], anchors, other_leaders)
            candidates.append((candidate_boxes, leaders, anchors))
        return np.round(costs, 1), candidates  # in square pixels: a rounding speck is no overlap

    def take(index: int, choice: int, candidates: list) -> None:
        """Word ``index`` takes place ``choice``: its label box and leader, per plot area."""
        chosen[index] = choice
        for area_index, (candidate_boxes, leaders, anchors) in enumerate(candidates):
            boxes[area_index][index] = candidate_boxes[choice]
            leader_ends[area_index][index] = anchors[choice]  # the point itself: no leader
            leader = leaders[choice]
            lines[area_index][index] = leader[~np.isnan(leader[:, 0])]

    def place_all(greedy_cut_cost: float) -> tuple[np.ndarray, np.ndarray]:
        """Greedy: the most crowded words first, each where it costs least given those before it
        (the first of equal costs: beside the point before a leader), with ``greedy_cut_cost``
        for a word cut at the edge. Then, while it helps, each word in turn moves where it costs
        least given all the others (every cost counted): a word that went out on a leader after
        its neighbours had taken the sides around it may find a better way out. Returns the
        place chosen for each word, and what each costs given the others."""
        boxes[:] = [np.zeros((len(words), 4)) for _ in layouts]  # per plot area: each word's label box
        lines[:] = [[np.empty((0, 2))] * len(words) for _ in layouts]  # and the points of its leader
        leader_ends[:] = [pixels.copy() for pixels in layouts]  # and its leader's end (N, 2)
        chosen[:] = -1
        for index in order:
            costs, candidates = costs_of_places(index, chosen >= 0, greedy_cut_cost)
            take(index, int(np.argmin(costs)), candidates)
        for _ in range(REPAIR_ROUNDS):
            moved = False
            for index in order:
                costs, candidates = costs_of_places(index, chosen >= 0)
                best = int(np.argmin(costs))
                if costs[best] < costs[chosen[index]]:
                    take(index, best, candidates)
                    moved = True
            if not moved:
                break
        return chosen.copy(), np.array([costs_of_places(index, chosen >= 0)[0][chosen[index]]
                                        for index in range(len(words))])

    boxes, lines, leader_ends = [], [], []
    geometries: dict[int, list[tuple]] = {}
    chosen = np.full(len(words), -1)
    order = np.argsort(-crowd, kind="stable")
    # A word cut at the edge costs as much as a word on another; but a greedy pass that knows it
    # may crowd a cluster into a cover that no single move undoes (a word cut by a few pixels
    # was the cheaper way out). Where the first start leaves a word that costs that much, a
    # second starts from the greedy pass without it, and the cheaper of the two is kept.
    places, costs = place_all(CUT_COST)
    if costs.max() >= COVER_COST:  # a word on another, or cut
        places = min([(places, costs), place_all(0.0)], key=lambda result: result[1].sum())[0]
    chosen = places
    return [Label(sides[choice], None if lengths[choice] == 0
                  else tuple(float(v) for v in coords[index] + shifts[choice]))
            for index, choice in enumerate(chosen)]
