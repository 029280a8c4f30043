"""The arithmetic set-ups that check the prose (``tools/prose_stability.py``) really round differently.

The prose itself is compared under them in ``test_notebooks_live.py``, where each notebook twin
runs once and its run stands for a learner's set-up. A page run for its prose alone draws no figure.
"""

from __future__ import annotations

import build_book
import prose_stability
import pytest

from .conftest import FRONT_MATTER, REPO_ROOT, code_cell


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


def test_a_page_run_for_its_prose_glues_its_values_and_draws_no_figure(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(FRONT_MATTER + code_cell(
        "from course_glue import glue\nfrom embedding_course import plotting\n\n"
        "figure = plotting.heatmap([[0.0, 1.0], [2.0, 3.0]], title='t')\nglue('share', 2 / 3)\nfigure")
        + "The share is {glue:text}`share:.2f`.\n")
    _, _, error, notebook = build_book.execute_page(str(REPO_ROOT), str(page), 120,
                                                    prose_stability.TEXT_OUTPUTS_ONLY)
    assert error is None, error
    shown = {mime for cell in notebook.cells for output in cell.get("outputs", [])
             for mime in output.get("data", {})}
    assert "text/plain" in shown and not {mime for mime in shown if mime.startswith("image/")}, shown
    assert prose_stability.prose(page, notebook)["texts"] == {"share:.2f": "0.67"}
