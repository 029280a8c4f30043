"""The notebooks' set-up cell says what it does, step by step, and when to reload the page.

It runs here in a fresh virtual environment without the course package, whose ``pip`` is a
stand-in that prints what pip prints (the real one would fetch from the repository). A stand-in
``google.colab`` shows what the cell does in Colab.
"""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import nbformat
import pytest
from sync_notebooks import oldest_python

from .conftest import REPO_ROOT

FAKE_PIP = '''import os, sys
with open(os.environ.get("PIP_CALLS", os.devnull), "a") as calls:
    calls.write(" ".join(sys.argv[1:]) + "\\n")
print("Looking in indexes: somewhere")
for argument in sys.argv[1:]:
    if argument.startswith("ipywidgets"):
        print(f"Collecting {argument}")
for name in ("numpy", "torch"):
    print(f"Collecting {name}")
print("Installing collected packages: numpy, torch")
print("Successfully installed numpy torch")
'''
FAKE_COLAB_OUTPUT = '''def enable_custom_widget_manager():
    print("custom widget manager enabled")
'''
FAKE_IPYWIDGETS = '__version__ = "{version}"\n'


def set_up_cell() -> str:
    notebook = nbformat.read(REPO_ROOT / "book" / "lessons" / "04_sinusoidal_positions.ipynb", as_version=4)
    return next(cell.source for cell in notebook.cells if cell.cell_type == "code")


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory) -> Path:
    """A Python without the course package, ipywidgets or plotly, with a stand-in pip."""
    root = tmp_path_factory.mktemp("fresh")
    venv.create(root / "env", with_pip=False)
    python = root / "env" / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    purelib = subprocess.check_output([python, "-c", where], text=True).strip()
    (Path(purelib) / "pip").mkdir()
    (Path(purelib) / "pip" / "__init__.py").write_text("")
    (Path(purelib) / "pip" / "__main__.py").write_text(FAKE_PIP)
    return python


def run_cell(python: Path, source: str, cwd: Path, env: dict | None = None) -> str:
    # -B: no compiled copy of the fake modules a test writes in ``cwd``. Python takes a module's
    # compiled copy while its source has the same size and the same mtime in whole seconds, and a
    # test rewrites one within a second ("7.7.1" and "8.1.5" are the same size).
    result = subprocess.run([python, "-B", "-c", source], capture_output=True, text=True, cwd=cwd, timeout=60,
                            env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_it_says_what_it_installs_step_by_step_and_to_reload(fresh_python, tmp_path):
    output = run_cell(fresh_python, set_up_cell(), tmp_path)
    lines = output.splitlines()
    assert lines[0].startswith("Installing the course package") and "minute" in lines[0]
    assert any(line.startswith("[2/3] the course package") for line in lines)
    assert any(line.startswith("[3/3] the token and position tables") for line in lines)
    assert "    Collecting torch" in lines and sum("done in" in line for line in lines) == 3
    assert "Looking in indexes" not in output  # only the lines that show progress
    assert "Reload this browser page once" in lines[-1]  # widgets and plotly were installed just now


def test_on_an_older_python_it_says_which_python_it_needs_before_installing(fresh_python, tmp_path):
    """The oldest Python is the package's ``requires-python`` (its one home: code/pyproject.toml)."""
    oldest = oldest_python(REPO_ROOT)
    major, minor = map(int, oldest.split("."))
    calls = tmp_path / "pip-calls.txt"
    older = f"import sys\nsys.version_info = ({major}, {minor - 1}, 14, 'final', 0)\n"
    result = subprocess.run([fresh_python, "-c", older + set_up_cell()], capture_output=True, text=True,
                            cwd=tmp_path, timeout=60, env={"PIP_CALLS": str(calls)})
    assert result.returncode != 0 and not calls.exists(), result.stdout  # pip never ran
    assert (f"needs Python {oldest} or newer; this kernel runs Python {major}.{minor - 1}.14"
            in result.stderr), result.stderr


def test_it_is_a_form_in_colab_and_collapsed_in_jupyter():
    notebook = nbformat.read(REPO_ROOT / "book" / "lessons" / "04_sinusoidal_positions.ipynb", as_version=4)
    cell = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert cell.source.startswith("# @title Set-up: install the course package"), cell.source[:80]
    assert cell.metadata.get("cellView") == "form", cell.metadata  # Colab shows the title, not the code
    assert cell.metadata.get("jupyter") == {"source_hidden": True}, cell.metadata


def fake_colab(folder: Path) -> None:
    """A stand-in ``google.colab`` package in ``folder``."""
    colab = folder / "google" / "colab"
    colab.mkdir(parents=True)
    (folder / "google" / "__init__.py").write_text("")
    (colab / "__init__.py").write_text("")
    (colab / "output.py").write_text(FAKE_COLAB_OUTPUT)


def test_in_colab_it_enables_the_widget_manager_only_for_ipywidgets_8(fresh_python, tmp_path):
    fake_colab(tmp_path)
    for version, enabled in [("7.7.1", False), ("8.1.5", True)]:
        (tmp_path / "ipywidgets.py").write_text(FAKE_IPYWIDGETS.format(version=version))
        (tmp_path / "plotly.py").write_text("")
        (tmp_path / "embedding_course.py").write_text("")  # already installed: nothing to do
        source = "import google.colab\n" + set_up_cell()
        output = run_cell(fresh_python, source, tmp_path)
        assert "Installing" not in output
        assert ("custom widget manager enabled" in output) is enabled, (version, output)
    (tmp_path / "embedding_course.py").unlink()
    output = run_cell(fresh_python, "import google.colab\n" + set_up_cell(), tmp_path)
    assert "Reload" not in output and "Installed. Run the next cells." in output  # Colab draws them


def installed(folder: Path, name: str, version: str) -> None:
    """A stand-in for an installed distribution (what importlib.metadata reads)."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.mark.parametrize(("front_end", "kernel_side", "wanted"), [
    ("3.0.17", "7.7.1", "ipywidgets>=8,<9"),  # JupyterLab 4's extension with ipywidgets 7: upgrade
    ("1.1.11", "8.1.9", "ipywidgets>=7.7.1,<8"),  # JupyterLab 3 with jupyterlab_widgets 1: ipywidgets 7
    ("3.0.17", "8.1.9", None),  # a matching pair: nothing to do
    ("1.1.11", "7.7.1", None),
])
def test_it_matches_ipywidgets_to_the_front_ends_widget_extension(fresh_python, tmp_path, front_end,
                                                                   kernel_side, wanted):
    (tmp_path / "embedding_course.py").write_text("")  # already installed
    installed(tmp_path, "jupyterlab_widgets", front_end)
    installed(tmp_path, "ipywidgets", kernel_side)
    output = run_cell(fresh_python, set_up_cell(), tmp_path)
    if wanted is None:
        assert output == "", output
    else:
        assert f"    Collecting {wanted}" in output.splitlines(), output
        assert "Restart the kernel" in output


def test_in_colab_it_keeps_colabs_ipywidgets(fresh_python, tmp_path):
    fake_colab(tmp_path)
    (tmp_path / "ipywidgets.py").write_text(FAKE_IPYWIDGETS.format(version="7.7.1"))
    (tmp_path / "embedding_course.py").write_text("")
    installed(tmp_path, "jupyterlab_widgets", "3.0.17")
    installed(tmp_path, "ipywidgets", "7.7.1")
    output = run_cell(fresh_python, "import google.colab\n" + set_up_cell(), tmp_path)
    assert "Collecting" not in output and "custom widget manager" not in output, output


def test_the_cell_is_the_same_in_every_notebook():
    sources = {path.name: next(cell.source for cell in nbformat.read(path, as_version=4).cells
                               if cell.cell_type == "code")
               for path in (REPO_ROOT / "book").rglob("*.ipynb")}
    assert len(set(sources.values())) == 1, sorted(sources)


def pip_calls(fresh_python, tmp_path, source: str, nvidia_smi: str | None) -> tuple[str, list[str]]:
    """Run the cell with or without a stand-in ``nvidia-smi`` on the PATH; its output and pip's calls."""
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    if nvidia_smi is not None:
        (tools / "nvidia-smi").write_text(f"#!/bin/sh\n{nvidia_smi}\n")
        (tools / "nvidia-smi").chmod(0o755)
    calls = tmp_path / "pip-calls.txt"
    calls.unlink(missing_ok=True)
    env = {"PATH": f"{tools}:/usr/bin:/bin", "PIP_CALLS": str(calls)}
    output = run_cell(fresh_python, source, tmp_path, env)
    return output, calls.read_text().splitlines() if calls.exists() else []


@pytest.mark.parametrize("nvidia_smi", [None, "exit 9"])  # no driver; a driver that finds no GPU
def test_without_torch_and_without_a_gpu_it_installs_the_cpu_build_first(fresh_python, tmp_path, nvidia_smi):
    output, calls = pip_calls(fresh_python, tmp_path, set_up_cell(), nvidia_smi)
    assert calls[0] == "install --progress-bar off torch --index-url https://download.pytorch.org/whl/cpu"
    assert "[1/3] PyTorch for the CPU" in output and "2-4 minutes" in output.splitlines()[0]
    assert len(calls) == 3


def test_without_torch_on_a_gpu_it_installs_the_cuda_build(fresh_python, tmp_path):
    output, calls = pip_calls(fresh_python, tmp_path, set_up_cell(), 'echo "GPU 0: NVIDIA A100 (UUID: x)"')
    assert calls[0] == "install --progress-bar off torch"
    assert "[1/3] PyTorch with CUDA" in output and "5-15 minutes" in output.splitlines()[0]


def test_with_torch_it_keeps_it(fresh_python, tmp_path):
    (tmp_path / "torch.py").write_text("")  # Colab and Binder have PyTorch
    output, calls = pip_calls(fresh_python, tmp_path, set_up_cell(), None)
    assert not any(call.split()[3:4] == ["torch"] for call in calls), calls
    assert len(calls) == 2 and "about 1 minute" in output.splitlines()[0]
