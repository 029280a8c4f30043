"""From text to token IDs: a small word-level vocabulary with PAD and UNK.

A token ID is only a label: the number says which row of a table to read, nothing
more. Its size and its distance to other IDs mean nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from embedding_course import checks

PAD = "<pad>"
UNK = "<unk>"
SPECIAL_TOKENS = (PAD, UNK)

_WORD_PATTERN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def split_words(text: str) -> list[str]:
    """Lower-case ``text`` and split it into words and punctuation marks."""
    return _WORD_PATTERN.findall(checks.text(text, "text").lower())


class WordVocabulary:
    """A word-level vocabulary: ID 0 is ``<pad>``, ID 1 is ``<unk>``, then the words.

    Args:
        words: the words to add, in order; duplicates and special tokens are skipped.
    """

    def __init__(self, words: Iterable[str]):
        self.id_to_token: list[str] = list(SPECIAL_TOKENS)
        self.token_to_id: dict[str, int] = {token: i for i, token in enumerate(SPECIAL_TOKENS)}
        for word in words:
            if not isinstance(word, str) or not word:
                raise ValueError(f"vocabulary entries must be non-empty strings, got {word!r}")
            if word not in self.token_to_id:
                self.token_to_id[word] = len(self.id_to_token)
                self.id_to_token.append(word)

    @classmethod
    def from_texts(cls, texts: Sequence[str], min_count: int = 1) -> WordVocabulary:
        """Build a vocabulary from example texts, most frequent words first (ties: first seen).

        Args:
            texts: one or more strings.
            min_count: keep words seen at least this many times (others become ``<unk>``).
        """
        texts = [texts] if isinstance(texts, str) else checks.many(texts, "texts", "sentence")
        min_count = checks.whole(min_count, "min_count")
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(split_words(text))
        if not counts:
            raise ValueError("the texts hold no words; give text with at least one word")
        ordered = sorted(counts, key=lambda word: -counts[word])  # stable: ties keep first-seen order
        return cls(word for word in ordered if counts[word] >= min_count)

    @property
    def pad_id(self) -> int:
        return self.token_to_id[PAD]

    @property
    def unk_id(self) -> int:
        return self.token_to_id[UNK]

    def __len__(self) -> int:
        return len(self.id_to_token)

    def __contains__(self, token: str) -> bool:
        return token in self.token_to_id

    def encode(self, text: str) -> list[int]:
        """The IDs of the words in ``text``; unknown words become ``<unk>``."""
        words = split_words(text)
        if not words:
            raise ValueError(f"text {text!r} holds no words to encode")
        return [self.token_to_id.get(word, self.unk_id) for word in words]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """The tokens for a sequence of IDs: a list, an array or a tensor of shape (T,), or any
        iterable of IDs (a generator is read once). No IDs give no tokens."""
        if not hasattr(ids, "shape"):
            ids = checks.many(ids, "ids", "token ID", empty=True)
        if len(ids) == 0:
            return []
        return [self.id_to_token[token_id] for token_id in checks.token_ids(ids, len(self), ndim=1)]

    def __repr__(self) -> str:
        preview = ", ".join(self.id_to_token[:6])
        return f"WordVocabulary({len(self)} tokens: {preview}, ...)"
