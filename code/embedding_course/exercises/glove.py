"""Exercises of lesson 6, "Seeing embeddings", as declarations."""

from __future__ import annotations

import numpy as np

from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Mistake, Number, Words
from embedding_course.glove import curated_words, load_glove
from embedding_course.projection import fit_pca

COSINE_WORDS = ("hot", "cold")
"""Exercise 1: the cosine similarity of these two GloVe vectors, computed by hand."""

ANALOGY = ("tokyo", "japan", "france")
ANALOGY_K = 3
"""Exercise 2: the top 3 answers to tokyo - japan + france, inputs excluded, by hand with NumPy."""

PCA_GROUPS = ("countries", "capitals")
"""Exercise 3: the fraction of variance kept by a 2-D PCA of these groups' GloVe vectors."""


def expected_cosine() -> float:
    """Exercise 1: cos(hot, cold) in GloVe 6B 50d."""
    return load_glove().similarity(*COSINE_WORDS)


def cosine_exercise() -> Exercise:
    """Exercise 1: the cosine similarity of ``hot`` and ``cold`` as a number."""
    u, v = (load_glove().vector(word).astype(np.float64) for word in COSINE_WORDS)
    expected = expected_cosine()
    return Exercise(
        name="cosine",
        answer=Number(expected=expected, tolerance=1e-3, mistakes=(
            Mistake(float(u @ v), "that is the dot product `u @ v`; divide it by `|u| |v|` to get the "
                                  "cosine."),
            Mistake(float(np.linalg.norm(u - v)), "that is the Euclidean distance `|u - v|`; the cosine "
                                                  "compares directions, not positions."),
            Mistake(1 - expected, "that is the cosine *distance* 1 - cos; give the similarity itself."),
            Mistake(100 * expected, "that looks like a percentage; give the cosine as a number in [-1, 1].",
                    tolerance=0.1),
        ), low=-1, high=1, range_hint="a cosine lies in [-1, 1]; you gave {got}.",
            otherwise="you gave {got}; compute `u @ v / (np.linalg.norm(u) * np.linalg.norm(v))` with the "
                      "vectors of 'hot' and 'cold'."),
        hint="take `u = vectors.vector('hot')` and `v = vectors.vector('cold')`; the cosine is `u @ v` "
             "divided by the product of their lengths (`np.linalg.norm`).",
        success=f"cos(hot, cold) = {expected:.3f}: opposites are close, because they appear in the same "
                "contexts ('the water is hot', 'the water is cold').",
        label="The cosine similarity (within 0.001)",
    )


def expected_analogy() -> list[str]:
    """Exercise 2: the top answers to tokyo - japan + france with the inputs excluded."""
    return [n.word for n in load_glove().analogy(*ANALOGY, k=ANALOGY_K)]


def _ranked_by_dot_product(target: np.ndarray, exclude: set[str]) -> list[str]:
    vectors = load_glove()
    scores = np.asarray(vectors.table) @ target.astype(np.float32)  # (V,)
    order = np.argsort(-scores)
    return [vectors.words[i] for i in order[:ANALOGY_K + 3] if vectors.words[i] not in exclude][:ANALOGY_K]


def _raw_vector_mistake(expected: list[str]) -> tuple[Mistake, ...]:
    """The ranking given by adding the raw (unscaled) vectors, when it differs from 3CosAdd's."""
    raw = [n.word for n in load_glove().analogy(*ANALOGY, k=ANALOGY_K, normalise=False)]
    if raw == expected:
        return ()
    return (Mistake(tuple(raw), "that is the ranking for the raw vectors; 3CosAdd first scales each of "
                                "the three input vectors to length 1, then adds them."),)


def analogy_exercise() -> Exercise:
    """Exercise 2: a list of the 3 best words for tokyo - japan + france (inputs excluded), best first."""
    base, subtract, add = ANALOGY
    expected = expected_analogy()
    target = load_glove().analogy_vector(base, subtract, add)
    return Exercise(
        name="analogy",
        answer=Words(
            expected=tuple(expected),
            forbidden=tuple((word, f"{word!r} is one of the inputs; exclude the three input words from the "
                                   "answers (without that, an input often ranks near the "
                                   "top).") for word in ANALOGY),
            mistakes=(Mistake(tuple(_ranked_by_dot_product(target, set(ANALOGY))),
                              "that ranking is by the raw dot product, which favours long vectors; "
                              "divide each "
                              "score by the row's length (`vectors.norms`) to get the cosine."),
                      *_raw_vector_mistake(expected)),
            order_hint=f"the right words in the wrong order; sort by cosine, best first: {expected}.",
            otherwise=f"these are not the {ANALOGY_K} best words, best first; the best is {expected[0]!r}. "
                      f"Check the sign of each term ({base} - {subtract} + {add}) and that you rank "
                      "every row by cosine."),
        hint=f"scale the vectors of '{base}', '{subtract}' and '{add}' to length 1, then "
             "`target = base - subtract + add`; score every row of `vectors.table` by its cosine "
             "with it (divide the dot products by `vectors.norms` and by the target's length), "
             "drop the three inputs, keep the 3 best.",
        success=f"{base} - {subtract} + {add} = {expected[0]}: the capital-of direction carries over.",
        label=f"The {ANALOGY_K} best words, best first, separated by commas",
    )


def pca_words() -> list[str]:
    """Exercise 3: the words whose vectors are projected."""
    return curated_words(names=list(PCA_GROUPS))[0]


def expected_explained_variance() -> float:
    """Exercise 3: the fraction of the total variance kept by the first two principal components."""
    points = load_glove().vectors(pca_words())
    return float(fit_pca(points, 2).explained_variance_ratio.sum())


def explained_variance_exercise() -> Exercise:
    """Exercise 3: fraction (0..1) of variance kept by a 2-D PCA of the countries and capitals."""
    expected = expected_explained_variance()
    points = load_glove().vectors(pca_words()).astype(np.float64)  # (N, C)
    singular = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    uncentred = np.linalg.svd(points, compute_uv=False)
    return Exercise(
        name="explained-variance",
        answer=Number(expected=expected, tolerance=2e-3, mistakes=(
            Mistake(100 * expected, "that looks like a percentage; give a fraction between 0 and 1.",
                    tolerance=0.2),
            Mistake(1 - expected, "that is the fraction left *out*; give the fraction kept by the first two "
                                  "components."),
            Mistake(float((uncentred[:2] ** 2).sum() / (uncentred ** 2).sum()),
                    "the points were not centred: subtract the mean vector before the SVD, or the first "
                    "component just points at the mean."),
            Mistake(float(singular[:2].sum() / singular.sum()),
                    "variances are the *squared* singular values; square them before taking the fraction."),
            Mistake(float(singular[0] ** 2 / (singular ** 2).sum()),
                    "that is the first component only; add the second component's share."),
        ), low=0, high=1, range_hint="a fraction of variance lies between 0 and 1; you gave {got}.",
            otherwise=f"you gave {{got}}; use the vectors of {', '.join(PCA_GROUPS)} ({len(points)} words), "
                      "centred, and keep the first two squared singular values."),
        hint="`X = vectors.vectors(words)`; centre it (`X - X.mean(axis=0)`); the squared singular values "
             "`s ** 2` of the centred matrix are proportional to the variances; divide the first two by the "
             "total.",
        success=f"{100 * expected:.1f}% of the variance is kept: the other {100 * (1 - expected):.1f}% is "
                "invisible in the 2-D picture.",
        label="The fraction of variance kept, between 0 and 1 (within 0.002)",
    )


check_cosine = checker(cosine_exercise)
check_analogy = checker(analogy_exercise)
check_explained_variance = checker(explained_variance_exercise)
