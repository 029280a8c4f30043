"""`make bench` measures mobile pages on a phone of one speed, whatever the host's speed."""

from __future__ import annotations

from itertools import pairwise

import bench
import pytest


@pytest.mark.parametrize(("benchmark_index", "slowdown"), [
    (150, 1.0), (800, 2.0), (1300, 3.0), (1533, 4.0), (1766, 5.0), (2000, 6.0)])
def test_the_slowdown_is_lighthouses_calculator(benchmark_index, slowdown):
    # the anchor points of Lighthouse's CPU throttling calculator (docs/throttling.md links it)
    assert bench.cpu_slowdown(benchmark_index) == pytest.approx(slowdown, abs=0.01)


def test_the_slowdown_grows_with_the_host_speed_without_jumps():
    indices = range(150, 4000, 7)
    slowdowns = [bench.cpu_slowdown(index) for index in indices]
    assert all(b > a for a, b in pairwise(slowdowns))
    assert max(b - a for a, b in pairwise(slowdowns)) < 0.04


def test_a_host_too_slow_for_a_phone_is_refused():
    with pytest.raises(ValueError, match="below 150"):
        bench.cpu_slowdown(120)


def test_one_slowdown_for_every_load_fitted_to_their_median_speed():
    # loads of lesson 4 on a shared host: the index of a single load says little about its work
    indices = [1360, 1234, 1328.5, 1600.5, 1284, 1396, 1184, 1242.5]
    assert bench.host_slowdown(indices) == round(bench.cpu_slowdown(1306.25), 2) == 3.03
    assert bench.host_slowdown([*indices, 4000]) == bench.host_slowdown([*indices, 1400])


def test_no_loads_no_slowdown():
    with pytest.raises(ValueError, match="at least one load"):
        bench.host_slowdown([])


def test_the_table_gives_the_runs_spread_of_the_score_and_the_blocking_time():
    runs = [{"performance": score, "TBT ms": tbt, "accessibility": 100, "CLS": 0.0}
            for score, tbt in [(96, 199.2), (89, 403.0), (95, 234.0)]]
    values = bench.runs_summary(runs)
    assert values["performance"] == 95 and values["TBT ms"] == 234.0
    assert bench.table_cell(values, "performance") == "95 (89-96)"
    assert bench.table_cell(values, "TBT ms") == "234 (199-403)"
    assert bench.table_cell(values, "accessibility") == "100"  # no spread kept: the median alone
    same = bench.runs_summary([runs[0], runs[0]])
    assert bench.table_cell(same, "performance") == "96"  # one value: no range
