"""The toy corpus and the seeded input embedding that the pipeline, attention-order and figure
tests share (``conftest.py`` hands out the corpus's vocabulary as the ``vocab`` fixture)."""

import torch

from embedding_course import SEED, pipeline
from embedding_course.tokens import WordVocabulary

CORPUS = ["the dog bites the man", "the cat sat on the mat", "a man saw a dog"]


def toy_vocabulary() -> WordVocabulary:
    return WordVocabulary.from_texts(CORPUS)


def make_model(vocab, **options) -> pipeline.InputEmbedding:
    """A seeded ``InputEmbedding`` of ``vocab`` on the CPU (width 16, 12 positions); ``options``
    override any setting."""
    torch.manual_seed(SEED)
    settings = dict(d_model=16, max_len=12, padding_idx=vocab.pad_id, init_std=16 ** -0.5)
    settings.update(options)
    return pipeline.InputEmbedding(len(vocab), **settings).to("cpu")
