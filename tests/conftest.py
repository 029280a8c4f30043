"""Shared test settings: the repository root, a seeded, CPU-only run, and the longest files first."""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("COURSE_DEVICE", "cpu")
# The tests run side by side on every core (pytest-xdist), and the processes they start share
# those cores: a learner's kernel runs PyTorch on two threads. An OpenMP thread that waits for
# work spins by default, on a core another process needs; beside a busy core, lesson 3's twin
# ran in 55 s instead of 11. Waiting threads sleep instead (the arithmetic is the same).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The files that train models, execute pages or build books, longest first: pytest-xdist hands
# out work units in collection order (with --no-loadscope-reorder, as the Makefile runs it; by
# default it sorts them by their number of tests), so starting these first keeps one long unit
# from running alone at the end while the other core idles.
LONGEST_FIRST = (
    # site
    "test_notebooks_live.py", "test_build.py", "test_accessibility.py", "test_lowest_versions.py",
    "test_jupyterlab.py",
    # package
    "test_length_generalisation_claims.py", "test_length_generalisation.py", "test_rope_extension.py",
    "test_training.py", "test_rotary.py",
)
# Files whose tests share a set-up per parameter, not per file: one work unit per parameter, so
# the cores share the file (each notebook twin runs once for its three tests, on one worker).
ONE_UNIT_PER_PARAMETER = ("test_notebooks_live.py",)


def pytest_collection_modifyitems(items):
    def rank(item):
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # a stable sort: each file keeps its own order


def work_unit(nodeid: str) -> str:
    """The pytest-xdist work unit of a test: its file, or its file and parameter for the files in
    ``ONE_UNIT_PER_PARAMETER``. ``tests/site/test_x.py::test_y[lesson]`` -> ``tests/site/test_x.py``."""
    path, _, test = nodeid.partition("::")
    parameter = test.partition("[")[2]
    if parameter and Path(path).name in ONE_UNIT_PER_PARAMETER:
        return f"{path}[{parameter}"
    return path


def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadfile`` (the Makefile's), hand out the work units of ``work_unit``.
    (``--dist loadgroup`` would say this with marks, but it groups nothing under pytest 9.2:
    pytest-xdist #1386.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return WorkUnitScheduling(config, log)


@pytest.fixture(scope="session", autouse=True)
def one_thread_per_test_worker():
    """Under pytest-xdist, PyTorch computes on one thread in each worker: the workers already
    keep every core busy, and more threads than cores only spin (the package tests took a third
    more CPU time with two threads per worker on two cores)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
