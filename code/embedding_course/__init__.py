"""Embeddings & Positional Encoding: the course package.

Each module holds one concept of the course, in lesson order. Pages import the
modules they need, e.g. ``from embedding_course import positional``.
"""

__version__ = "0.1.0"

SEED = 0
"""The seed every page and test uses, so that two builds give the same figures."""
