"""Live explorers for lesson 1: type a sentence, see its token IDs (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets

from embedding_course import checks, ids
from embedding_course.tokens import WordVocabulary

DEFAULT_TEXT = "The cat sat on the mat. Unbelievably, the cat sat again!"


def token_id_explorer(vocabulary: WordVocabulary | None = None, text: str = DEFAULT_TEXT) -> widgets.Widget:
    """A text box; below it the WordPiece tokens and IDs, and the word-level IDs of ``vocabulary``.

    Args:
        vocabulary: a word-level vocabulary to compare with; by default one built from ``text``.
        text: the sentence shown first.
    """
    vocabulary = vocabulary if vocabulary is not None else WordVocabulary.from_texts([text])

    def show(sentence: str) -> None:
        if not sentence.strip():
            print("Type a sentence.")
            return
        print("WordPiece (BERT, 30,522 tokens):")
        print(ids.format_token_ids(ids.wordpiece_tokens(sentence)))
        word_ids = vocabulary.encode(sentence)
        print(f"\nWord-level vocabulary ({len(vocabulary)} tokens; unknown words -> {vocabulary.unk_id}):")
        print(ids.format_token_ids(list(zip(vocabulary.decode(word_ids), word_ids, strict=True))))

    box = widgets.Text(value=text, description="text", layout=widgets.Layout(width="95%"),
                       continuous_update=False)
    return widgets.interactive(show, sentence=box)


def id_neighbour_explorer(start_id: int = 4937) -> widgets.Widget:
    """A slider over WordPiece IDs listing the tokens with the neighbouring IDs."""
    start_id = checks.index(start_id, "start_id", 30_522, of="the WordPiece vocabulary")
    slider = widgets.IntSlider(value=start_id, min=0, max=30_521, description="token id",
                               continuous_update=False, layout=widgets.Layout(width="95%"))

    def show(token_id: int) -> None:
        for neighbour_id, token in ids.id_neighbours(token_id, span=4):
            marker = "->" if neighbour_id == token_id else "  "
            print(f"{marker} {neighbour_id:>6}  {token}")

    return widgets.interactive(show, token_id=slider)
