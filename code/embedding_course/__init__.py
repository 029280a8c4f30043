"""Embeddings & Positional Encoding: the course package.

Each module holds one concept of the course, in lesson order. Pages import the
modules they need, e.g. ``from embedding_course import positional``.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _installed_version

try:
    __version__ = _installed_version("embedding-course")  # code/pyproject.toml, the one place
except PackageNotFoundError:  # run from a checkout without installing it
    __version__ = "unknown"

SEED = 0
"""The seed every page and test uses, so that two builds give the same figures."""
