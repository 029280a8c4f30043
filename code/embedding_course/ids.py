"""Token IDs are labels, not measurements: a map analogy and a look at real tokenizer IDs.

A city's ID in a register (here: its place in alphabetical order) tells you nothing about
where it lies; its coordinates do, and the distance between two coordinates means
something. A token ID is like the register number. An embedding is like the coordinates,
only with many more than two axes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from embedding_course import checks, similarity
from embedding_course.device import to_numpy

EARTH_RADIUS_KM = 6371.0


@dataclass(frozen=True)
class City:
    """A city with its latitude and longitude in degrees (north and east are positive)."""

    name: str
    latitude: float
    longitude: float


# Capitals of Europe, rounded to two decimals. The ID of a city is its place in
# alphabetical order, which is as arbitrary as a tokenizer's numbering.
CITIES: tuple[City, ...] = tuple(sorted(
    (
        City("Amsterdam", 52.37, 4.90),
        City("Athens", 37.98, 23.73),
        City("Berlin", 52.52, 13.40),
        City("Brussels", 50.85, 4.35),
        City("Dublin", 53.35, -6.26),
        City("Lisbon", 38.72, -9.14),
        City("London", 51.51, -0.13),
        City("Madrid", 40.42, -3.70),
        City("Paris", 48.86, 2.35),
        City("Prague", 50.08, 14.44),
        City("Rome", 41.90, 12.50),
        City("Stockholm", 59.33, 18.07),
        City("Vienna", 48.21, 16.37),
        City("Warsaw", 52.23, 21.01),
    ),
    key=lambda city: city.name,
))


def city_names() -> list[str]:
    """The city names in ID order (ID 0 first)."""
    return [city.name for city in CITIES]


def city_id(name: str) -> int:
    """The ID of a city: its index in :data:`CITIES` (alphabetical order)."""
    names = city_names()
    if name not in names:
        raise ValueError(f"unknown city {name!r}; known cities: {', '.join(names)}")
    return names.index(name)


def great_circle_km(first: City, second: City) -> float:
    """The distance along the Earth's surface between two cities, in km (haversine formula)."""
    for city in (first, second):
        if not isinstance(city, City):
            raise ValueError(f"expected a City, got {type(city).__name__}")
    lat1, lon1, lat2, lon2 = map(math.radians, (first.latitude, first.longitude,
                                                second.latitude, second.longitude))
    half_chord = (math.sin((lat2 - lat1) / 2) ** 2
                  + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2)
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(half_chord))


def city_pairs() -> list[tuple[str, str, int, float]]:
    """Every pair of distinct cities as ``(name_a, name_b, id_gap, km)``, ID order within a pair."""
    pairs = []
    for i, first in enumerate(CITIES):
        for j in range(i + 1, len(CITIES)):
            second = CITIES[j]
            pairs.append((first.name, second.name, j - i, great_circle_km(first, second)))
    return pairs


def id_gap_distance_correlation() -> float:
    """Pearson correlation between the ID gap and the distance in km over all city pairs."""
    pairs = city_pairs()
    gaps = np.array([gap for _, _, gap, _ in pairs], dtype=float)
    kms = np.array([km for _, _, _, km in pairs], dtype=float)
    return float(np.corrcoef(gaps, kms)[0, 1])


def neighbouring_ids_far_apart() -> tuple[str, str, float]:
    """The two cities with consecutive IDs (gap 1) that lie farthest apart: ``(a, b, km)``."""
    gap_one = [(a, b, km) for a, b, gap, km in city_pairs() if gap == 1]
    return max(gap_one, key=lambda pair: pair[2])


# ---------------------------------------------------------------- real tokenizer IDs

def wordpiece_tokens(text: str, tokenizer=None) -> list[tuple[str, int]]:
    """Split ``text`` with a WordPiece tokenizer and return ``(token, id)`` pairs.

    Args:
        text: a non-empty string.
        tokenizer: a ``tokenizers.Tokenizer``; by default the MiniLM (BERT) tokenizer from
            :func:`embedding_course.pretrained.wordpiece_tokenizer`.

    Returns:
        One pair per token, including the special tokens ``[CLS]`` and ``[SEP]``.
    """
    if not checks.text(text, "text").strip():
        raise ValueError("text is empty; give at least one word to tokenize")
    if tokenizer is None:
        from embedding_course.pretrained import wordpiece_tokenizer

        tokenizer = wordpiece_tokenizer()
    encoding = tokenizer.encode(text)
    return list(zip(encoding.tokens, encoding.ids, strict=True))


def wordpiece_max_word_length(tokenizer=None) -> int:
    """The longest word a WordPiece tokenizer splits into pieces; a longer one becomes ``[UNK]``.

    Read from the model's settings (``max_input_chars_per_word``, 100 for BERT's tokenizers).
    """
    if tokenizer is None:
        from embedding_course.pretrained import wordpiece_tokenizer

        tokenizer = wordpiece_tokenizer()
    if not hasattr(tokenizer, "to_str"):
        raise ValueError(f"tokenizer must be a tokenizers.Tokenizer, got {tokenizer!r}")
    model = json.loads(tokenizer.to_str())["model"]
    if model.get("type") != "WordPiece":
        raise ValueError(f"tokenizer must be a WordPiece tokenizer, got {model.get('type')!r}")
    return int(model["max_input_chars_per_word"])


def format_token_ids(pairs: Sequence[tuple[str, int]]) -> str:
    """Two aligned lines, tokens above their IDs, for printing in a notebook."""
    if len(pairs) == 0:
        raise ValueError("pairs is empty; give at least one (token, id) pair")
    widths = [max(len(str(token)), len(str(token_id))) for token, token_id in pairs]
    columns = list(zip(pairs, widths, strict=True))
    tokens = "  ".join(str(token).ljust(width) for (token, _), width in columns)
    numbers = "  ".join(str(token_id).ljust(width) for (_, token_id), width in columns)
    return f"token  {tokens}\nid     {numbers}"


def id_neighbours(token_id: int, span: int = 3, tokenizer=None) -> list[tuple[int, str]]:
    """The tokens whose IDs lie within ``span`` of ``token_id``: ``(id, token)`` pairs.

    Shows that numerically close IDs need not be related words.
    """
    if tokenizer is None:
        from embedding_course.pretrained import wordpiece_tokenizer

        tokenizer = wordpiece_tokenizer()
    size = tokenizer.get_vocab_size()
    token_id = checks.index(token_id, "token_id", size, of="the vocabulary")
    span = checks.whole(span, "span", minimum=0)
    low, high = max(0, token_id - span), min(size - 1, token_id + span)
    return [(i, tokenizer.id_to_token(i)) for i in range(low, high + 1)]


def id_vs_vector_rows(anchor: str, others: Sequence[str], tokenizer=None,
                      table=None) -> list[tuple[str, int, int, float]]:
    """Compare ID gaps with the similarity of *learned* vectors, for whole-word tokens.

    Args:
        anchor: a word that is a single token, e.g. ``"cat"``.
        others: words to compare with it, each a single token.
        tokenizer: a ``tokenizers.Tokenizer``; the MiniLM (BERT) one by default.
        table: its token embedding table (V, C); MiniLM's by default.

    Returns:
        One ``(word, id, |id - anchor id|, cosine similarity to the anchor)`` per word of ``others``.
    """
    from embedding_course.similarity import cosine_similarity_matrix

    if tokenizer is None or table is None:
        from embedding_course import pretrained

        tokenizer = tokenizer if tokenizer is not None else pretrained.wordpiece_tokenizer()
        table = table if table is not None else pretrained.bert_token_table()
    if isinstance(others, str) or len(others) == 0:
        raise ValueError("others must be a non-empty list of words")
    words = [anchor, *others]
    token_ids = []
    for word in words:
        token_id = tokenizer.token_to_id(word) if isinstance(word, str) else None
        if token_id is None:
            raise ValueError(f"{word!r} is not a single token of the vocabulary; "
                             "pick a common lower-case word")
        token_ids.append(token_id)
    table = to_numpy(table)
    if table.ndim != 2 or table.shape[0] <= max(token_ids):
        raise ValueError(f"table must have shape (vocab_size, dim) with a row for id {max(token_ids)}, "
                         f"got shape {table.shape}")
    similarity = cosine_similarity_matrix(table[token_ids].astype(np.float64))[0]  # (1 + len(others),)
    return [(word, token_id, abs(token_id - token_ids[0]), float(similarity[i]))
            for i, (word, token_id) in enumerate(zip(words, token_ids, strict=True)) if i > 0]


def id_vs_vector_table(anchor: str, others: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """:func:`id_vs_vector_rows` as text for a table: ``(header, rows)``, numbers formatted.

    A page shows it with ``tables.markdown_table(header, rows)``.
    """
    rows = id_vs_vector_rows(anchor, others)
    header = ["word", "ID", f"ID gap to '{anchor}'", f"cosine of the learned vectors with '{anchor}'"]
    cells = [[word, str(token_id), f"{gap:,}", f"{cosine:.2f}"] for word, token_id, gap, cosine in rows]
    return header, cells


# ---------------------------------------------------------------- neighbours by ID and by vector

def _token_and_table(word: str, tokenizer, table) -> tuple[object, np.ndarray, int]:
    """The tokenizer and table to use (MiniLM's by default), and the ID of ``word``."""
    if tokenizer is None or table is None:
        from embedding_course import pretrained

        tokenizer = tokenizer if tokenizer is not None else pretrained.wordpiece_tokenizer()
        table = table if table is not None else pretrained.bert_token_table()
    token_id = tokenizer.token_to_id(word) if isinstance(word, str) else None
    if token_id is None:
        raise ValueError(f"{word!r} is not a single token of the vocabulary; pick a common lower-case word")
    table = to_numpy(table)
    if table.ndim != 2 or table.shape[0] != tokenizer.get_vocab_size():
        raise ValueError(f"table must have shape (vocab_size={tokenizer.get_vocab_size()}, dim), "
                         f"got shape {table.shape}")
    return tokenizer, table, token_id


def is_whole_word(token: str) -> bool:
    """True for a token that is a word of letters on its own (not ``##ing``, ``[CLS]`` or ``,``)."""
    return token.isalpha() and token.isascii()


def neighbours_by_id(word: str, span: int = 4, tokenizer=None, table=None) -> list[tuple[str, int, float]]:
    """The tokens whose IDs lie within ``span`` of ``word``'s ID, with their learned similarity.

    Args:
        word: a word that is a single token, e.g. ``"cat"``.
        span: how many IDs to take on each side.
        tokenizer: a ``tokenizers.Tokenizer``; the MiniLM (BERT) one by default.
        table: its token embedding table (V, C); MiniLM's by default.

    Returns:
        ``(token, id, cosine with word)`` for each neighbouring ID, in ID order, ``word`` left out.
    """
    span = checks.whole(span, "span")
    tokenizer, table, token_id = _token_and_table(word, tokenizer, table)
    cosines = similarity.cosine_scores(table, table[token_id])  # (V,)
    low, high = max(0, token_id - span), min(table.shape[0] - 1, token_id + span)
    return [(tokenizer.id_to_token(i), i, float(cosines[i])) for i in range(low, high + 1) if i != token_id]


def neighbours_by_vector(word: str, k: int = 8, tokenizer=None, table=None) -> list[tuple[str, int, float]]:
    """The ``k`` whole-word tokens whose learned vectors point most nearly the way ``word``'s does.

    Args:
        word: a word that is a single token, e.g. ``"cat"``.
        k: how many neighbours to return.
        tokenizer: a ``tokenizers.Tokenizer``; the MiniLM (BERT) one by default.
        table: its token embedding table (V, C); MiniLM's by default.

    Returns:
        ``(token, id, cosine with word)``, most similar first, ``word`` left out. Word pieces
        (``##s``), special tokens and punctuation are skipped.
    """
    k = checks.whole(k, "k")
    tokenizer, table, token_id = _token_and_table(word, tokenizer, table)
    cosines = similarity.cosine_scores(table, table[token_id])  # (V,)
    found = []
    for i in np.argsort(-cosines, kind="stable"):
        token = tokenizer.id_to_token(int(i))
        if int(i) != token_id and is_whole_word(token):
            found.append((token, int(i), float(cosines[i])))
            if len(found) == k:
                break
    return found
