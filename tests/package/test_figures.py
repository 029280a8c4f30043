"""Tests of the figures/ modules: each lesson's figures draw what the maths computed."""

import pytest
import torch

from embedding_course import SEED, attention_order, pipeline
from embedding_course.figures import pipeline as pipeline_figures
from embedding_course.tokens import WordVocabulary

CORPUS = ["the dog bites the man", "the cat sat on the mat", "a man saw a dog"]


@pytest.fixture
def vocab() -> WordVocabulary:
    return WordVocabulary.from_texts(CORPUS)


def make_model(vocab, **options) -> pipeline.InputEmbedding:
    torch.manual_seed(SEED)
    settings_ = dict(d_model=16, max_len=12, padding_idx=vocab.pad_id, init_std=16 ** -0.5)
    settings_.update(options)
    return pipeline.InputEmbedding(len(vocab), **settings_).to("cpu")


# ---------------------------------------------------------------- lesson 5: pipeline


def test_order_figure_has_four_panels(vocab):
    experiment = attention_order.order_experiment("dog bites man", "man bites dog", vocab, make_model(vocab))
    figure = pipeline_figures.order_figure(experiment)
    assert len([axes for axes in figure.axes if axes.get_title()]) == 4
