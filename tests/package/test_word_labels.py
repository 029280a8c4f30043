"""Word-map labels: beside the point when a side is free, else at the end of a leader; none on
another, none out of the plot, at a phone's and a desktop's size at once."""

import numpy as np
import pytest

from embedding_course.figures import word_labels


def _drawn(coords, words, labels, area, font_px=10, marker_px=4):
    """Each label's box and its leader's points, in pixels of a plot area, as Plotly draws them
    (the word on its side of its anchor: the point, or the leader's end)."""
    ranges = word_labels.axis_ranges(coords)
    origin = np.array([r[0] for r in ranges])
    scale = np.array(area) / np.array([r[1] - r[0] for r in ranges])
    boxes, leaders = [], []
    for point, word, label in zip(coords, words, labels, strict=True):
        fx, fy, gx, gy = word_labels.LABEL_SIDES[label.side]
        start = (point - origin) * scale
        anchor = start if label.anchor is None else (np.array(label.anchor) - origin) * scale
        gap = marker_px + 2 if label.anchor is None else 0
        width, height = 0.62 * font_px * len(word) + 3, 1.25 * font_px
        left, bottom = anchor[0] + fx * width + gx * gap, anchor[1] + fy * height + gy * gap
        boxes.append((left, bottom, left + width, bottom + height))
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


def test_the_same_places_from_float32_and_float64():
    """Costs are rounded, so a point given in float32 or float64 takes the same place."""
    rng = np.random.default_rng(2)
    coords = rng.normal(size=(30, 2))
    words = [f"word{i}" for i in range(30)]
    single = word_labels.place_labels(coords.astype(np.float32), words)
    double = word_labels.place_labels(coords, words)
    assert [label.side for label in single] == [label.side for label in double]
    assert [label.anchor is None for label in single] == [label.anchor is None for label in double]
