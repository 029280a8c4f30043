"""Shared test settings: the repository root, and a seeded, CPU-only run."""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("COURSE_DEVICE", "cpu")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
