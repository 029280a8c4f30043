"""Word-map labels: beside the point when a side is free, else at the end of a leader; none on
another, none out of the plot, at a phone's and a desktop's size at once."""

import numpy as np
import pytest

from embedding_course.figures import word_labels


def _drawn(coords, words, labels, area, font_px=10, marker_px=4, ranges=None):
    """Each label's box and its leader's points, in pixels of a plot area, as Plotly draws them
    (the word on its side of its anchor: the point, or the leader's end; its baseline 0.25 em
    below a middle anchor, gap + 0.25 em above a top one, gap + 0.75 em below a bottom one),
    with letters 0.95 em above and 0.3 em below the baseline, 0.62 em wide plus 3 px."""
    ranges = word_labels.axis_ranges(coords) if ranges is None else ranges
    radii = np.broadcast_to(marker_px, (len(words),))
    origin = np.array([r[0] for r in ranges])
    scale = np.array(area) / np.array([r[1] - r[0] for r in ranges])
    boxes, leaders = [], []
    for point, word, label, radius in zip(coords, words, labels, radii, strict=True):
        gx, gy = word_labels.LABEL_SIDES[label.side]
        start = (point - origin) * scale
        anchor = start if label.anchor is None else (np.array(label.anchor) - origin) * scale
        gap = radius / 0.8 + 1 if label.anchor is None else 0
        width = 0.62 * font_px * len(word) + 3
        left = anchor[0] + gx * gap - {1: 0, 0: width / 2, -1: width}[gx]
        baseline = anchor[1] + {1: gap + 0.25 * font_px, 0: -0.25 * font_px, -1: -gap - 0.75 * font_px}[gy]
        boxes.append((left, baseline - 0.3 * font_px, left + width, baseline + 0.95 * font_px))
        if label.anchor is not None:
            leaders.append(np.linspace(start, anchor, 40)[8:])  # off the point's own marker
    return boxes, leaders


def _covering(boxes):
    """Pairs of boxes that overlap at all."""
    pairs = []
    for i, first in enumerate(boxes):
        for j, second in enumerate(boxes[i + 1:], start=i + 1):
            width = min(first[2], second[2]) - max(first[0], second[0])
            height = min(first[3], second[3]) - max(first[1], second[1])
            if width > 0 and height > 0:
                pairs.append((i, j))
    return pairs


@pytest.mark.parametrize("call, message", [
    (lambda: word_labels.place_labels(np.ones((3, 2)), list("ab")), "one word per point"),
    (lambda: word_labels.place_labels(np.ones((3, 3)), list("abc")), "coords must be"),
    (lambda: word_labels.place_labels(np.ones((3, 2)), list("abc"), plot_areas=()), "plot_areas is empty"),
    (lambda: word_labels.place_labels(np.ones((3, 2)), list("abc"), marker_px=[4, 5]),
     "one radius or one per point"),
])
def test_bad_inputs_give_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_words_with_room_are_written_beside_their_points():
    """Three words in a row, close together (above each point they would cover each other), and
    two long words at the plot's corners (above, they would run out of it): every word finds a
    free side, and no leader is drawn."""
    coords = np.array([[0.0, 0.0], [0.35, 0.0], [0.7, 0.0], [5.0, 3.0], [-5.0, -3.0]])
    words = ["seven", "eight", "three", "far-off-word", "another-word"]
    above = [word_labels.Label("top center", None)] * 5
    assert _covering(_drawn(coords, words, above, word_labels.PLOT_AREAS[0])[0])  # something to check
    labels = word_labels.place_labels(coords, words)
    assert all(label.anchor is None for label in labels), labels
    for width, height in word_labels.PLOT_AREAS:
        boxes, _ = _drawn(coords, words, labels, (width, height))
        assert _covering(boxes) == [], labels
        assert all(b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height for b in boxes), labels


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crowded_cluster_takes_leaders_and_no_word_covers_another(seed):
    """Seven words on almost one point (as lesson 6's numbers): no side is free for most, so they
    go out on leaders; at a phone's and a desktop's size no word covers another, none leaves the
    plot, and no leader runs through a word."""
    rng = np.random.default_rng(seed)
    coords = np.vstack([rng.normal(scale=0.03, size=(7, 2)), [[4.0, 2.0], [-4.0, -2.0]]])
    words = ["one", "two", "three", "four", "five", "six", "seven", "far", "away"]
    labels = word_labels.place_labels(coords, words)
    assert any(label.anchor is not None for label in labels)  # the crowd needs a leader
    for width, height in word_labels.PLOT_AREAS:
        boxes, leaders = _drawn(coords, words, labels, (width, height))
        assert _covering(boxes) == [], [(words[i], words[j]) for i, j in _covering(boxes)]
        assert all(b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height for b in boxes)
        for leader in leaders:
            through = [b for b in boxes if ((leader[:, 0] > b[0] + 1) & (leader[:, 0] < b[2] - 1)
                                            & (leader[:, 1] > b[1] + 1) & (leader[:, 1] < b[3] - 1)).any()]
            assert through == [], "a leader runs through a word"


@pytest.mark.parametrize("seed", range(1, 7))
def test_a_word_and_its_eight_neighbours_fit_the_phone_explorer(seed):
    """Lesson 6's neighbour explorer: a word (a large star) and eight neighbours close around it,
    on a map whose axes span the whole vocabulary, in a plot 196-325 px wide and 300-367 px high
    at a 12 px font: no word covers another at any of its plot sizes, each word kept clear of its
    own marker by that marker's radius."""
    rng = np.random.default_rng(seed)
    coords = rng.normal(scale=0.25, size=(9, 2))
    words = ["japan", "japanese", "china", "korea", "tokyo", "taiwan", "korean", "asian", "chinese"]
    ranges = [[-3.5, 3.5], [-4.0, 3.0]]
    radii = [8] + [4.5] * 8
    labels = word_labels.place_labels(coords, words, ranges=ranges, font_px=12, marker_px=radii,
                                      plot_areas=word_labels.EXPLORER_PLOT_AREAS)
    for area in word_labels.EXPLORER_PLOT_AREAS:
        boxes, _ = _drawn(coords, words, labels, area, font_px=12, marker_px=radii, ranges=ranges)
        assert _covering(boxes) == [], [(words[i], words[j]) for i, j in _covering(boxes)]


def test_the_same_places_from_float32_and_float64():
    """Costs are rounded, so a point given in float32 or float64 takes the same place."""
    rng = np.random.default_rng(2)
    coords = rng.normal(size=(30, 2))
    words = [f"word{i}" for i in range(30)]
    single = word_labels.place_labels(coords.astype(np.float32), words)
    double = word_labels.place_labels(coords, words)
    assert [label.side for label in single] == [label.side for label in double]
    assert [label.anchor is None for label in single] == [label.anchor is None for label in double]


def test_the_order_of_the_plot_areas_does_not_change_the_places():
    """Leaders are as long as LEADER_LENGTHS on the smallest plot area, whichever comes first, so
    a figure may list its areas (phone, desktop, narrower phones) in the order it records them."""
    rng = np.random.default_rng(4)
    coords = np.vstack([rng.normal(scale=0.05, size=(8, 2)), rng.normal(size=(12, 2))])
    words = [f"word{i}" for i in range(20)]
    areas = word_labels.EXPLORER_PLOT_AREAS
    forward = word_labels.place_labels(coords, words, plot_areas=areas, font_px=12)
    backward = word_labels.place_labels(coords, words, plot_areas=areas[::-1], font_px=12)
    assert any(label.anchor is not None for label in forward)  # the crowd needs leaders
    assert forward == backward


def _words_on_points(coords, words, boxes, marker_px, area, ranges):
    """(word, the other word whose point it covers) for each label over another point's marker
    by more than a pixel each way."""
    origin = np.array([low for low, _ in ranges])
    points = (coords - origin) * np.array(area) / np.array([high - low for low, high in ranges])
    return [(words[i], words[j]) for i, box in enumerate(boxes) for j, (x, y) in enumerate(points)
            if i != j and min(box[2], x + marker_px) - max(box[0], x - marker_px) > 1
            and min(box[3], y + marker_px) - max(box[1], y - marker_px) > 1]


def test_lesson_6_word_map_writes_no_word_over_another_word_s_point():
    """Fig. 6.3 (six groups of eight GloVe words): on a 390 px phone and on a desktop, no word
    is written over another word's point, where it reads as that point's word. A pixel of marker
    under a label costs ``MARKER_COST``; at 1 ("yellow" started on black's point, "madrid" ran
    over germany's) eight words did so on the phone. The 320 px phone is left out: its crowd
    leaves some words no place clear of every point."""
    from embedding_course import glove, projection

    words, _ = glove.sample_groups(["animals", "colours", "countries", "capitals", "numbers", "royalty"],
                                   per_group=8)
    coords = projection.project(glove.load_glove().vectors(words), 2)[0].astype(np.float64)
    ranges = word_labels.axis_ranges(coords)
    labels = word_labels.place_labels(coords, words, ranges=ranges)
    phone, desktop = word_labels.PLOT_AREAS[:2]
    for area in (phone, desktop):
        boxes, _ = _drawn(coords, words, labels, area, ranges=ranges)
        assert _words_on_points(coords, words, boxes, 4, area, ranges) == [], area


def test_lesson_6_word_map_cuts_no_word_at_the_plot_s_edge():
    """Fig. 6.3 at each of its plot areas, the 320 px phone's too: no word reaches past the plot,
    where Plotly cuts it ("moscow" lost 3 px of its "w" at 320 px, when a word outside the plot
    cost only its area in ``OUTSIDE_COST``, with no ``CUT_COST``)."""
    from embedding_course import glove, projection

    words, _ = glove.sample_groups(["animals", "colours", "countries", "capitals", "numbers", "royalty"],
                                   per_group=8)
    coords = projection.project(glove.load_glove().vectors(words), 2)[0].astype(np.float32).astype(np.float64)
    ranges = word_labels.axis_ranges(coords)
    labels = word_labels.place_labels(coords, words, ranges=ranges)
    for width, height in word_labels.PLOT_AREAS:
        boxes, _ = _drawn(coords, words, labels, (width, height), ranges=ranges)
        cut = [(word, [round(v, 1) for v in box]) for word, box in zip(words, boxes, strict=True)
               if box[0] < -0.5 or box[1] < -0.5 or box[2] > width + 0.5 or box[3] > height + 0.5]
        assert cut == [], (width, height, cut)


def test_lesson_6_word_map_draws_no_leader_longer_than_the_limit_on_any_plot_area():
    """Fig. 6.3's leaders are sized on the 320 px phone's plot; the desktop's plot is three
    times as wide, and sideways leaders (berlin's, india's, paris's, black's) ran up to 172 px
    across it, far from any crowd. None may pass ``LEADER_LIMIT`` at any of its plot areas."""
    from embedding_course import glove, projection

    words, _ = glove.sample_groups(["animals", "colours", "countries", "capitals", "numbers", "royalty"],
                                   per_group=8)
    coords = projection.project(glove.load_glove().vectors(words), 2)[0].astype(np.float64)
    ranges = word_labels.axis_ranges(coords)
    labels = word_labels.place_labels(coords, words, ranges=ranges)
    assert any(label.anchor is not None for label in labels)  # the crowds still take leaders
    spans = np.array([high - low for low, high in ranges])
    for area in word_labels.PLOT_AREAS:
        scale = np.array(area) / spans  # px per unit
        lengths = {word: round(float(np.linalg.norm((np.array(label.anchor) - point) * scale)))
                   for word, label, point in zip(words, labels, coords, strict=True) if label.anchor}
        assert max(lengths.values()) <= word_labels.LEADER_LIMIT, (area, lengths)


def test_crossings_counts_the_lines_that_cross_and_no_others():
    start = np.array([0.0, 0.0])
    ends = np.array([[10.0, 10.0], [10.0, 0.0], [0.0, 0.0], [2.0, 2.0]])  # (C, 2)
    segments = np.array([[[0.0, 10.0], [10.0, 0.0]],  # crosses the diagonal only
                         [[12.0, 5.0], [20.0, 5.0]],  # parallel to the second line, clear of the first
                         [[10.0, 0.0], [10.0, 20.0]]])  # meets two lines at their end only
    assert word_labels._crossings(start, ends, segments).tolist() == [1, 0, 0, 0]
    assert word_labels._crossings(start, ends, np.empty((0, 2, 2))).tolist() == [0, 0, 0, 0]


def _leader_crossings(coords, labels, area, ranges):
    """How many pairs of leaders cross on a plot area."""
    origin = np.array([low for low, _ in ranges])
    scale = np.array(area) / np.array([high - low for low, high in ranges])
    leaders = np.array([[(point - origin) * scale, (np.array(label.anchor) - origin) * scale]
                        for point, label in zip(coords, labels, strict=True) if label.anchor])  # (L, 2, 2)
    return sum(int(word_labels._crossings(start, end[None], leaders[index + 1:])[0])
               for index, (start, end) in enumerate(leaders))


def test_lesson_6_word_map_crosses_fewer_leaders_for_their_cost(monkeypatch):
    """Fig. 6.3's countries and capitals crowd into one corner, and their leaders crossed each
    other (nine pairs at every size): the eye, following one, could end at another's word.
    A crossing costs ``LEADERS_CROSS_COST``; with it, fewer pairs cross at every plot area."""
    from embedding_course import glove, projection

    words, _ = glove.sample_groups(["animals", "colours", "countries", "capitals", "numbers", "royalty"],
                                   per_group=8)
    coords = projection.project(glove.load_glove().vectors(words), 2)[0].astype(np.float64)
    ranges = word_labels.axis_ranges(coords)
    labels = word_labels.place_labels(coords, words, ranges=ranges)
    monkeypatch.setattr(word_labels, "LEADERS_CROSS_COST", 0.0)
    uncosted = word_labels.place_labels(coords, words, ranges=ranges)
    for area in word_labels.PLOT_AREAS:
        crossed = _leader_crossings(coords, labels, area, ranges)
        assert crossed < _leader_crossings(coords, uncosted, area, ranges), (area, crossed)


def test_lesson_6_explorer_writes_no_word_on_another_for_boxing():
    """The neighbour explorer's "boxing" (its eight neighbours: weight classes, "wbc" and
    "tennis"): with ``CUT_COST`` counted in the greedy pass, "wbc" landed on "tennis" at
    320 px (4.6 px) and no single move undid it; the second start keeps them apart at every
    plot area."""
    from embedding_course import glove, projection

    vectors = glove.load_glove()
    words, _ = glove.curated_words()
    _, pca = projection.project(vectors.vectors(words), 2)
    found = vectors.neighbours_of_many(words, k=8)
    every = {word: pca.transform(vectors.vectors([word] + [n.word for n in found[word]])) for word in words}
    ranges = word_labels.axis_ranges(np.concatenate([pca.transform(vectors.vectors(words)), *every.values()]))
    points = np.asarray(every["boxing"], dtype=np.float32)
    labels = ["boxing"] + [n.word for n in found["boxing"]]
    radii = [8] + [4.5] * 8
    places = word_labels.place_labels(points, labels, ranges=ranges, font_px=12, marker_px=radii,
                                      plot_areas=word_labels.EXPLORER_PLOT_AREAS)
    for area in word_labels.EXPLORER_PLOT_AREAS:
        boxes, _ = _drawn(points.astype(np.float64), labels, places, area, font_px=12, marker_px=radii,
                          ranges=ranges)
        assert _covering(boxes) == [], (area, [(labels[i], labels[j]) for i, j in _covering(boxes)])
