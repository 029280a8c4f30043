"""The arithmetic set-ups that check the prose (``tools/prose_stability.py``) really round differently.

The prose itself is compared under them in ``test_notebooks_live.py``, where each notebook twin
runs once and its run stands for a learner's set-up.
"""

from __future__ import annotations

import prose_stability


def test_the_set_ups_really_round_differently():
    printed = {setup: prose_stability.rounding_probe(setup) for setup in prose_stability.SETUPS}
    assert len(set(printed.values())) == len(printed), printed
