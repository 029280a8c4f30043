"""The arithmetic set-ups that check the prose (``tools/prose_stability.py``) really round differently.

The prose itself is compared under them in ``test_notebooks_live.py``, where each notebook twin
runs once and its run stands for a learner's set-up.
"""

from __future__ import annotations

import prose_stability
import pytest


def test_the_set_ups_really_round_differently():
    printed = {setup: prose_stability.rounding_probe(setup) for setup in prose_stability.SETUPS}
    assert len(set(printed.values())) == len(printed), printed


@pytest.mark.parametrize(("machine", "capability", "blas"), [
    ("x86_64", "AVX512", None), ("x86_64", "AVX2", None),
    ("aarch64", "SVE256", None),  # "default" leaves the SVE kernels: that is enough
    ("aarch64", "DEFAULT", "ARMV8"),  # already on the portable kernels: OpenBLAS's generic ones too
])
def test_the_portable_set_up_leaves_the_native_kernels_on_every_machine(machine, capability, blas):
    variables = prose_stability.portable_variables(machine, capability)
    assert variables["ATEN_CPU_CAPABILITY"] == "default"
    assert variables.get("OPENBLAS_CORETYPE") == blas


def test_this_machine_s_portable_set_up_is_the_one_its_kernels_call_for():
    import platform

    import torch

    environment = prose_stability.environment(prose_stability.PORTABLE)
    expected = prose_stability.portable_variables(platform.machine(), torch.backends.cpu.get_cpu_capability())
    assert {name: environment.get(name) for name in expected} == expected
