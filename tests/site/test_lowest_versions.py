"""The live explorers work with the lowest ipywidgets and plotly that code/pyproject.toml declares.

Colab ships its own ipywidgets and plotly, and installing the course keeps them; so the
package must work with the oldest versions it accepts. A throw-away virtual environment holds
those two versions (and what they need that the project's pins lack) in front of the project's
own packages, and runs the live-explorer tests in it.
"""

from __future__ import annotations

import re
import subprocess
import sysconfig
import venv
from pathlib import Path

from .conftest import REPO_ROOT

# what ipywidgets 7 needs besides the project's pins (which hold the 8.x companions)
IPYWIDGETS_7_COMPANIONS = ["ipython_genutils==0.2.0", "widgetsnbextension==3.6.1",
                           "jupyterlab_widgets==1.1.1"]
PLOTLY_5_COMPANIONS = ["tenacity==9.2.1"]


def lowest(name: str) -> str:
    """The version after ``>=`` for ``name`` in the package's dependencies."""
    match = re.search(rf'^\s*"{name}\s*>=\s*([\w.]+)",', (REPO_ROOT / "code" / "pyproject.toml").read_text(),
                      re.MULTILINE)
    if match:
        return match[1]
    raise AssertionError(f"code/pyproject.toml declares no lower bound for {name}")


def test_live_explorers_run_with_the_lowest_declared_ipywidgets_and_plotly(tmp_path):
    environment = tmp_path / "lowest"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    ipywidgets, plotly = lowest("ipywidgets"), lowest("plotly")
    packages = [f"ipywidgets=={ipywidgets}", f"plotly=={plotly}"]
    packages += IPYWIDGETS_7_COMPANIONS if ipywidgets.startswith("7.") else []
    packages += PLOTLY_5_COMPANIONS if plotly.startswith("5.") else []
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", *packages],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    # the project's packages come after the two old ones on the path
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site_packages = subprocess.check_output([python, "-c", purelib], text=True).strip()
    project_packages = sysconfig.get_path("purelib")
    Path(site_packages, "zz_project.pth").write_text(
        f"import site; site.addsitedir({project_packages!r})\n")
    report = "import ipywidgets, plotly, embedding_course; print(ipywidgets.__version__, plotly.__version__)"
    versions = subprocess.check_output([python, "-c", report], text=True).split()
    assert versions == [ipywidgets, plotly]
    result = subprocess.run(
        [python, "-m", "pytest", "tests/package/test_live.py", "-q", "-p", "no:cacheprovider",
         "-W", "ignore::DeprecationWarning"],  # ipywidgets 7 uses ipykernel's deprecated Comm
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-5000:]
