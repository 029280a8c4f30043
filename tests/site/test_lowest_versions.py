"""The live explorers work with the lowest ipywidgets and plotly that code/pyproject.toml declares.

Colab ships its own ipywidgets and plotly, and installing the course keeps them; so the
package must work with the oldest versions it accepts. A throw-away virtual environment holds
those two versions (and what they need that the project's pins lack) in front of the project's
own packages, and runs the live-explorer tests in it.

ipywidgets 7 draws only in a front end whose widget extension speaks its protocol: Colab's
own, or JupyterLab with jupyterlab_widgets 1.1 (jupyterlab_widgets 3 draws ipywidgets 8 only;
1.1.11 is built for JupyterLab 4, older 1.1.x for JupyterLab 3). The second test runs the
project's JupyterLab with that extension, ``LOWEST_FRONT_END``, and the lowest ipywidgets in
a browser and moves an explorer, as ``test_jupyterlab.py`` does with the pinned pair.
"""

from __future__ import annotations

import re
import subprocess
import sysconfig
import venv
from pathlib import Path

from .conftest import REPO_ROOT
from .test_jupyterlab import run_lesson_as_a_learner

# what ipywidgets 7 needs besides the project's pins (which hold the 8.x companions)
IPYWIDGETS_7_COMPANIONS = ["ipython_genutils==0.2.0", "widgetsnbextension==3.6.1",
                           "jupyterlab_widgets==1.1.1"]
PLOTLY_5_COMPANIONS = ["tenacity==9.2.1"]
# the widget extension that draws ipywidgets 7 in the project's JupyterLab 4
LOWEST_FRONT_END = ["jupyterlab_widgets==1.1.11"]


def lowest(name: str) -> str:
    """The version after ``>=`` for ``name`` in the package's dependencies."""
    match = re.search(rf'^\s*"{name}\s*>=\s*([\w.]+)",', (REPO_ROOT / "code" / "pyproject.toml").read_text(),
                      re.MULTILINE)
    if match:
        return match[1]
    raise AssertionError(f"code/pyproject.toml declares no lower bound for {name}")


def lowest_environment(environment: Path, front_end: list[str] | None = None) -> Path:
    """A virtual environment with the lowest declared ipywidgets and plotly (and the packages
    ``front_end``) in front of the project's packages; returns its Python."""
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    ipywidgets, plotly = lowest("ipywidgets"), lowest("plotly")
    packages = [f"ipywidgets=={ipywidgets}", f"plotly=={plotly}"]
    packages += IPYWIDGETS_7_COMPANIONS if ipywidgets.startswith("7.") else []
    packages += PLOTLY_5_COMPANIONS if plotly.startswith("5.") else []
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", *packages],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    if front_end:
        install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", *front_end],
                                 capture_output=True, text=True)
        assert install.returncode == 0, install.stderr[-3000:]
    # the project's packages come after the old ones on the path
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site_packages = subprocess.check_output([python, "-c", purelib], text=True).strip()
    project_packages = sysconfig.get_path("purelib")
    Path(site_packages, "zz_project.pth").write_text(
        f"import site; site.addsitedir({project_packages!r})\n")
    return python


def test_live_explorers_run_with_the_lowest_declared_ipywidgets_and_plotly(tmp_path):
    python = lowest_environment(tmp_path / "lowest")
    ipywidgets, plotly = lowest("ipywidgets"), lowest("plotly")
    report = "import ipywidgets, plotly, embedding_course; print(ipywidgets.__version__, plotly.__version__)"
    versions = subprocess.check_output([python, "-c", report], text=True).split()
    assert versions == [ipywidgets, plotly]
    result = subprocess.run(
        [python, "-m", "pytest", "tests/package/test_live.py", "-q", "-p", "no:cacheprovider",
         "-W", "ignore::DeprecationWarning"],  # ipywidgets 7 uses ipykernel's deprecated Comm
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-5000:]


def test_explorers_move_in_the_lowest_front_end_with_the_lowest_ipywidgets(tmp_path, browser):
    python = lowest_environment(tmp_path / "lowest", LOWEST_FRONT_END)
    report = "import ipywidgets as w, jupyterlab_widgets as lab; print(w.__version__, lab.__version__)"
    versions = subprocess.check_output([python, "-c", report], text=True).split()
    assert versions == [lowest("ipywidgets"), "1.1.11"], versions
    # the project's JupyterLab, run by this environment's Python (so its kernel sees ipywidgets 7)
    run_lesson_as_a_learner(browser, [str(python), "-m", "jupyterlab"], tmp_path / "lab", "lowest-widgets")
