"""Checkers for the exercises of lesson 6, "Seeing embeddings"."""

from __future__ import annotations

import math

import numpy as np

from embedding_course.exercises import Feedback, as_number, correct, not_answered, wrong
from embedding_course.glove import curated_words, load_glove
from embedding_course.projection import fit_pca

COSINE_WORDS = ("hot", "cold")
"""Exercise 1: the cosine similarity of these two GloVe vectors, computed by hand."""

ANALOGY = ("tokyo", "japan", "france")
ANALOGY_K = 3
"""Exercise 2: the top 3 answers to tokyo - japan + france, inputs excluded, by hand with NumPy."""

PCA_GROUPS = ("countries", "capitals")
"""Exercise 3: the fraction of variance kept by a 2-D PCA of these groups' GloVe vectors."""


# ---------------------------------------------------------------------- exercise 1

def expected_cosine() -> float:
    """Exercise 1: cos(hot, cold) in GloVe 6B 50d."""
    return load_glove().similarity(*COSINE_WORDS)


def check_cosine(answer) -> Feedback:
    """Exercise 1: the cosine similarity of ``hot`` and ``cold`` as a number."""
    if answer is None:
        return not_answered("take `u = vectors.vector('hot')` and `v = vectors.vector('cold')`; the "
                            "cosine is `u @ v` divided by the product of their lengths (`np.linalg.norm`).")
    value = as_number(answer)
    if value is None or not math.isfinite(value):
        return wrong("give one number, e.g. 0.5 (a float, a 0-d array or a one-element tensor).")
    vectors = load_glove()
    u, v = (vectors.vector(word).astype(np.float64) for word in COSINE_WORDS)
    expected = expected_cosine()
    if math.isclose(value, expected, abs_tol=1e-3):
        return correct(f"cos(hot, cold) = {expected:.3f}: opposites are close, because they appear in "
                       "the same contexts ('the water is hot', 'the water is cold').")
    if math.isclose(value, float(u @ v), rel_tol=1e-3):
        return wrong("that is the dot product `u @ v`; divide it by `|u| |v|` to get the cosine.")
    if math.isclose(value, float(np.linalg.norm(u - v)), rel_tol=1e-3):
        return wrong("that is the Euclidean distance `|u - v|`; the cosine compares directions, "
                     "not positions.")
    if math.isclose(value, 1 - expected, abs_tol=1e-3):
        return wrong("that is the cosine *distance* 1 - cos; give the similarity itself.")
    if math.isclose(value, 100 * expected, abs_tol=0.1):
        return wrong("that looks like a percentage; give the cosine as a number in [-1, 1].")
    if not -1 <= value <= 1:
        return wrong(f"a cosine lies in [-1, 1]; you gave {value:.4f}.")
    return wrong(f"you gave {value:.4f}; compute `u @ v / (np.linalg.norm(u) * np.linalg.norm(v))` "
                 "with the vectors of 'hot' and 'cold'.")


# ---------------------------------------------------------------------- exercise 2

def expected_analogy() -> list[str]:
    """Exercise 2: the top answers to tokyo - japan + france with the inputs excluded."""
    return [n.word for n in load_glove().analogy(*ANALOGY, k=ANALOGY_K)]


def _ranked_by_dot_product(target: np.ndarray, exclude: set[str]) -> list[str]:
    vectors = load_glove()
    scores = np.asarray(vectors.table) @ target.astype(np.float32)  # (V,)
    order = np.argsort(-scores)
    return [vectors.words[i] for i in order[:ANALOGY_K + 3] if vectors.words[i] not in exclude][:ANALOGY_K]


def check_analogy(answer) -> Feedback:
    """Exercise 2: a list of the 3 best words for tokyo - japan + france (inputs excluded), best first."""
    base, subtract, add = ANALOGY
    if answer is None:
        return not_answered(f"scale the vectors of '{base}', '{subtract}' and '{add}' to length 1, "
                            "then `target = base - subtract + add`; score every row of `vectors.table` by "
                            "its cosine with it (divide the dot products by `vectors.norms`"
                            " and by the target's length), drop the three inputs, keep the 3 best.")
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return wrong("give a list of words, e.g. ['a', 'b', 'c'].")
    words = list(answer)
    if not all(isinstance(word, str) for word in words):
        return wrong("every entry must be a word (a string), not a score or a row number.")
    expected = expected_analogy()
    if len(words) != ANALOGY_K:
        return wrong(f"give exactly {ANALOGY_K} words, best first; you gave {len(words)}.")
    inputs = {base, subtract, add}
    used = [word for word in words if word in inputs]
    if used:
        return wrong(f"{', '.join(repr(w) for w in used)} is one of the inputs; exclude the three input "
                     "words from the answers (otherwise the base word itself usually wins).")
    if words == expected:
        return correct(f"{base} - {subtract} + {add} = {expected[0]}: the capital-of direction carries over.")
    if sorted(words) == sorted(expected):
        return wrong(f"the right words in the wrong order; sort by cosine, best first: {expected}.")
    target = load_glove().analogy_vector(base, subtract, add)
    if words == _ranked_by_dot_product(target, inputs):
        return wrong("that ranking is by the raw dot product, which favours long vectors; divide "
                     "each score by the row's length (`vectors.norms`) to get the cosine.")
    return wrong(f"the first answer should be {expected[0]!r}; check the sign of each term "
                 f"({base} - {subtract} + {add}) and that you rank by cosine.")


# ---------------------------------------------------------------------- exercise 3

def pca_words() -> list[str]:
    """Exercise 3: the words whose vectors are projected."""
    return curated_words(names=list(PCA_GROUPS))[0]


def expected_explained_variance() -> float:
    """Exercise 3: the fraction of the total variance kept by the first two principal components."""
    points = load_glove().vectors(pca_words())
    return float(fit_pca(points, 2).explained_variance_ratio.sum())


def check_explained_variance(answer) -> Feedback:
    """Exercise 3: fraction (0..1) of variance kept by a 2-D PCA of the countries and capitals."""
    if answer is None:
        return not_answered("`X = vectors.vectors(words)`; centre it (`X - X.mean(axis=0)`); the "
                            "squared singular values `s ** 2` of the centred matrix are proportional to "
                            "the variances; divide the first two by the total.")
    value = as_number(answer)
    if value is None or not math.isfinite(value):
        return wrong("give one number between 0 and 1.")
    expected = expected_explained_variance()
    if math.isclose(value, expected, abs_tol=2e-3):
        return correct(f"{100 * expected:.1f}% of the variance is kept: the other "
                       f"{100 * (1 - expected):.1f}% is invisible in the 2-D picture.")
    points = load_glove().vectors(pca_words()).astype(np.float64)
    centred = points - points.mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    uncentred = np.linalg.svd(points, compute_uv=False)
    if math.isclose(value, 100 * expected, abs_tol=0.2):
        return wrong("that looks like a percentage; give a fraction between 0 and 1.")
    if math.isclose(value, 1 - expected, abs_tol=2e-3):
        return wrong("that is the fraction left *out*; give the fraction kept by the first two components.")
    if math.isclose(value, float((uncentred[:2] ** 2).sum() / (uncentred ** 2).sum()), abs_tol=2e-3):
        return wrong("the points were not centred: subtract the mean vector before the SVD, or the first "
                     "component just points at the mean.")
    if math.isclose(value, float(singular[:2].sum() / singular.sum()), abs_tol=2e-3):
        return wrong("variances are the *squared* singular values; square them before taking the fraction.")
    if math.isclose(value, float(singular[0] ** 2 / (singular ** 2).sum()), abs_tol=2e-3):
        return wrong("that is the first component only; add the second component's share.")
    if not 0 <= value <= 1:
        return wrong(f"a fraction of variance lies between 0 and 1; you gave {value:.4f}.")
    return wrong(f"you gave {value:.4f}; use the vectors of {', '.join(PCA_GROUPS)} "
                 f"({len(points)} words), centred, and keep the first two squared singular values.")
