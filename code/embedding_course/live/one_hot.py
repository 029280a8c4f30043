"""Live explorers for lesson 2: one-hot vectors and their memory (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import display

from embedding_course import checks, one_hot
from embedding_course.figures import one_hot as one_hot_figures
from embedding_course.tokens import WordVocabulary


def one_hot_explorer(text: str = "the cat sat on the mat") -> widgets.Widget:
    """Type a sentence: its one-hot matrix and the cosine/distance of every pair of its tokens."""
    box = widgets.Text(value=checks.text(text, "text"), description="text", continuous_update=False,
                       layout=widgets.Layout(width="95%"))

    def show(sentence: str) -> None:
        if not sentence.strip():
            print("Type a sentence.")
            return
        vocabulary = WordVocabulary.from_texts([sentence])
        token_ids = vocabulary.encode(sentence)
        tokens = vocabulary.decode(token_ids)
        vectors = one_hot.one_hot(token_ids, len(vocabulary))  # (T, V)
        print(f"{len(tokens)} tokens, vocabulary of {len(vocabulary)}: one-hot matrix {vectors.shape}")
        display(one_hot_figures.similarity_figure(tokens, vectors))

    return widgets.interactive(show, sentence=box)


def memory_explorer() -> widgets.Widget:
    """Sliders for sequence length, vocabulary size and batch size: the one-hot memory bill."""
    seq_len = widgets.IntSlider(value=512, min=1, max=8192, step=1, description="T",
                                continuous_update=False)
    vocab = widgets.Dropdown(options=[(f"{name}: {size:,}", size)
                                      for name, size in one_hot.TOKENIZER_VOCAB_SIZES.items()],
                             value=50_257, description="vocabulary")
    batch = widgets.IntSlider(value=1, min=1, max=64, description="batch B", continuous_update=False)
    dim = widgets.IntSlider(value=768, min=16, max=8192, step=16, description="dense C",
                            continuous_update=False)

    def show(seq_len: int, vocab_size: int, batch_size: int, dim: int) -> None:
        numbers = one_hot.one_hot_numbers(seq_len, vocab_size, batch_size)
        dense = one_hot.dense_numbers(seq_len, dim, batch_size)
        mib = one_hot.memory_bytes(numbers) / 2 ** 20
        print(f"one-hot: {numbers:,} numbers = {mib:,.1f} MiB in fp32; "
              f"{batch_size * seq_len:,} of them are 1 ({batch_size * seq_len / numbers:.5%})")
        print(f"dense:   {dense:,} numbers = {one_hot.memory_bytes(dense) / 2 ** 20:,.2f} MiB "
              f"({numbers / dense:,.0f}x fewer)")

    return widgets.interactive(show, seq_len=seq_len, vocab_size=vocab, batch_size=batch, dim=dim)
