"""Lesson 6: the exercise checkers accept the right answers and explain the wrong ones;
the live explorers build and react to their inputs."""

import re

import numpy as np
import pytest
import torch

from embedding_course import glove
from embedding_course.exercises import glove as ex
from embedding_course.live import glove as live_glove


@pytest.fixture(scope="module")
def vectors() -> glove.WordVectors:
    return glove.load_glove()


# ---------------------------------------------------------------- exercise 1: cosine by hand

def test_cosine_accepts_the_right_value_in_several_types(vectors):
    u, v = vectors.vector("hot"), vectors.vector("cold")
    value = u @ v / (np.linalg.norm(u) * np.linalg.norm(v))
    assert ex.check_cosine(value)
    assert ex.check_cosine(float(value))
    assert ex.check_cosine(torch.tensor([float(value)]))
    assert ex.expected_cosine() == pytest.approx(vectors.similarity("hot", "cold"))


@pytest.mark.parametrize(
    ("make_answer", "message"),
    [
        (lambda u, v, c: float(u @ v), "dot product"),
        (lambda u, v, c: float(np.linalg.norm(u - v)), "Euclidean distance"),
        (lambda u, v, c: 1 - c, "cosine \\*distance\\*"),
        (lambda u, v, c: 100 * c, "percentage"),
        (lambda u, v, c: 1.7, r"lies in \[-1, 1\]"),
        (lambda u, v, c: 0.1, "you gave 0.1000"),
        (lambda u, v, c: "0.8", "is text, not a number"),
        (lambda u, v, c: [0.8, 0.2], "give one number"),
    ],
)
def test_cosine_explains_mistakes(vectors, make_answer, message):
    u, v = vectors.vector("hot").astype(float), vectors.vector("cold").astype(float)
    verdict = ex.check_cosine(make_answer(u, v, ex.expected_cosine()))
    assert not verdict
    assert any(re.search(message, m) for m in verdict.messages), verdict.messages


def test_cosine_not_answered():
    verdict = ex.check_cosine(None)
    assert not verdict and "None" in str(verdict) and "np.linalg.norm" in str(verdict)


# ---------------------------------------------------------------- exercise 2: analogy by hand

def test_analogy_expected_and_accepted(vectors):
    expected = ex.expected_analogy()
    assert expected[0] == "paris" and len(expected) == 3
    target = vectors.analogy_vector(*ex.ANALOGY)
    scores = (np.asarray(vectors.table) @ target) / (vectors.norms * np.linalg.norm(target))
    ranked = [vectors.words[i] for i in np.argsort(-scores) if vectors.words[i] not in ex.ANALOGY][:3]
    assert ex.check_analogy(ranked)
    assert ex.check_analogy(tuple(ranked))


def test_analogy_explains_mistakes(vectors):
    expected = ex.expected_analogy()
    assert "inputs" in str(ex.check_analogy(["tokyo", *expected[:2]]))
    assert "inputs" in str(ex.check_analogy([expected[0], ex.ANALOGY[2], expected[1]]))
    # the hint's "an input often ranks near the top": here one does, with no exclusion
    unexcluded = vectors.analogy(*ex.ANALOGY, k=3, exclude_inputs=False)
    assert {word for word, _ in unexcluded} & set(ex.ANALOGY)
    assert "wrong order" in str(ex.check_analogy(expected[::-1]))
    assert "exactly 3 words" in str(ex.check_analogy(expected[:2]))
    assert "a list of 3 words" in str(ex.check_analogy("paris"))
    assert "(a string in quotes)" in str(ex.check_analogy([1, 2, 3]))
    assert "the best is 'paris'" in str(ex.check_analogy(["london", "rome", "madrid"]))
    # with the best word first and a wrong one after it, the message does not ask for it first
    wrong_after_best = str(ex.check_analogy([expected[0], expected[1], "lyon"]))
    assert "not the 3 best words" in wrong_after_best and "should be" not in wrong_after_best
    assert ex.check_analogy([word.capitalize() for word in expected]).correct
    target = vectors.analogy_vector(*ex.ANALOGY)
    by_dot = ex._ranked_by_dot_product(target, set(ex.ANALOGY))
    assert by_dot != expected
    assert "raw dot product" in str(ex.check_analogy(by_dot))
    assert "None" in str(ex.check_analogy(None))


# ---------------------------------------------------------------- exercise 3: explained variance

def _centred_singular_values(vectors, centre=True):
    points = vectors.vectors(ex.pca_words()).astype(float)
    if centre:
        points = points - points.mean(axis=0)
    return np.linalg.svd(points, compute_uv=False)


def test_explained_variance_accepts_the_by_hand_answer(vectors):
    s = _centred_singular_values(vectors)
    answer = (s[:2] ** 2).sum() / (s ** 2).sum()
    assert 0 < answer < 1
    assert ex.check_explained_variance(answer)
    assert ex.expected_explained_variance() == pytest.approx(answer, abs=1e-6)


def test_explained_variance_explains_mistakes(vectors):
    s = _centred_singular_values(vectors)
    raw = _centred_singular_values(vectors, centre=False)
    fraction = (s[:2] ** 2).sum() / (s ** 2).sum()
    cases = {
        100 * fraction: "percentage",
        1 - fraction: "left \\*out\\*",
        (raw[:2] ** 2).sum() / (raw ** 2).sum(): "not centred",
        s[:2].sum() / s.sum(): "squared",
        s[0] ** 2 / (s ** 2).sum(): "first component only",
        3.5: "between 0 and 1",
        0.9: "you gave 0.9000",
        "half": "is text, not a number",
    }


    for answer, message in cases.items():
        verdict = ex.check_explained_variance(answer)
        assert not verdict and re.search(message, str(verdict)), (answer, str(verdict))
    assert "None" in str(ex.check_explained_variance(None))


# ---------------------------------------------------------------- live explorers

def test_live_explorers_build_and_answer(capsys):
    neighbours = live_glove.neighbours_explorer("frog")
    assert neighbours.children[0].value == "frog"
    neighbours.children[0].value = "Qeen"  # a typo and a capital: the error suggests 'queen'
    analogy = live_glove.analogy_explorer()
    assert [child.value for child in analogy.children[:3]] == ["king", "man", "woman"]
    projection_widget = live_glove.projection_explorer()
    projection_widget.children[0].value = ()
    output = capsys.readouterr().out
    assert "did you mean 'queen'" in output and "Choose at least one group" in output
