"""Fixtures of the package tests."""

import pytest

from embedding_course.tokens import WordVocabulary

from .toy_model import toy_vocabulary


@pytest.fixture
def vocab() -> WordVocabulary:
    """The vocabulary of the toy corpus (``toy_model.CORPUS``)."""
    return toy_vocabulary()
