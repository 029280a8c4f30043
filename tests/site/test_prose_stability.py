"""The prose reads the same on every machine: the pages that train models or draw random samples,
run under arithmetic set-ups that round differently, quote the same text."""

from __future__ import annotations

import prose_stability
import pytest

from .conftest import REPO_ROOT

# The pages whose glued numbers come from training, from random samples, or from searches over
# real float32 tables where a near-tie could tip.
PAGES = [REPO_ROOT / "book" / "lessons" / name for name in (
    "03_dense_lookup.md", "04_sinusoidal_positions.md", "05_combined_pipeline.md", "06_seeing_embeddings.md",
    "07_length_generalisation.md", "08_rotary_positions.md", "09_questions.md")]


def test_the_set_ups_really_round_differently():
    printed = {setup: prose_stability.rounding_probe(setup) for setup in prose_stability.SETUPS}
    assert len(set(printed.values())) == len(printed), printed


@pytest.fixture(scope="module")
def report(built_site):
    # one page at a time: the other test worker keeps the second core for the browser tests
    return prose_stability.compare(PAGES, jobs=1)


def test_every_number_the_prose_quotes_reads_the_same_under_every_set_up(report):
    assert not report["texts"], report["texts"]


def test_the_set_ups_move_the_raw_numbers_of_these_pages(report):
    """Otherwise the test above could not fail: the raw values the pages glue do move."""
    assert report["values"], "no raw glued value moved between the set-ups"
