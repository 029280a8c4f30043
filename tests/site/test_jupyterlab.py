"""A learner's view: the README's JupyterLab command, and one lesson run in JupyterLab in Chromium.

The server runs from the project's own environment on 127.0.0.1, on a copy of the lesson's
notebook twin (JupyterLab saves what it runs). The browser test uses the UI as a learner does:
Run All from the Run menu, then reads what JupyterLab shows, then moves an explorer's slider
with the keyboard and with the mouse.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from .conftest import REPO_ROOT

LESSON = REPO_ROOT / "book" / "lessons" / "04_sinusoidal_positions.ipynb"
SCREENSHOTS = Path(os.environ.get("COURSE_SCREENSHOTS", REPO_ROOT / "_build" / "screenshots"))
MYST_MARKUP = re.compile(r"\{[a-zA-Z][\w:-]*\}`|:::\s*\{|^\s*:[\w-]+:\s|\{literalinclude\}", re.MULTILINE)
RUN_ALL_LIMIT_SECONDS = 240


def readme_command() -> list[str]:
    """The command the README gives for running the lessons in JupyterLab."""
    readme = (REPO_ROOT / "README.md").read_text()
    match = re.search(r"`(\.venv/bin/jupyter lab [^`]*)`", readme)
    assert match, "the README no longer names a `.venv/bin/jupyter lab ...` command"
    return shlex.split(match.group(1))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# JupyterLab 4: every cell in the page, so the test reads them all without scrolling; no news pop-up
JUPYTERLAB_4_SETTINGS = {
    "notebook-extension/tracker": {"windowingMode": "none"},
    "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}


@contextmanager
def jupyterlab(command: list[str], cwd: Path, home: Path, token: str,
               settings: dict[str, dict] = JUPYTERLAB_4_SETTINGS):
    """Start ``command`` (a ``jupyter lab``) headless on a free port; yield its base URL.

    The server's log goes to ``home/server.log``, never to a pipe: a server that writes more
    than a pipe holds (64 KiB) before anyone reads it stops at its next write, and the page it
    serves stays blank. JupyterLab 3.6 does, logging its whole notebook schema for a setting
    it does not know.
    """
    port = free_port()
    home.mkdir(parents=True, exist_ok=True)
    for name, values in settings.items():
        path = home / "settings" / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    environment = {**os.environ,
                   "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
                   "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
                   "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}
    log = home / "server.log"
    with log.open("w") as log_file:
        server = subprocess.Popen(
            [*command, "--no-browser", f"--port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", "--ServerApp.ip=127.0.0.1",
             *(["--allow-root"] if os.geteuid() == 0 else [])],  # as the README says for root
            cwd=cwd, env=environment, stdout=log_file, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{shlex.join(command)} did not answer on {base}:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_readme_command_starts_jupyterlab_on_127_0_0_1(tmp_path):
    command = readme_command()
    assert Path(REPO_ROOT / command[0]).exists(), f"{command[0]} is missing: run `make venv`"
    token = secrets.token_hex(16)
    with jupyterlab(command, REPO_ROOT, tmp_path, token) as base:
        lesson = f"{base}/api/contents/04_sinusoidal_positions.ipynb?token={token}&content=0"
        with urllib.request.urlopen(lesson, timeout=10) as response:
            assert json.load(response)["type"] == "notebook"  # it serves the lessons folder
        with urllib.request.urlopen(f"{base}/api/contents/?token={token}&content=1", timeout=10) as response:
            listed = sorted(entry["name"] for entry in json.load(response)["content"])
        notebooks = sorted(path.name for path in LESSON.parent.glob("*.ipynb"))
        assert listed == notebooks, f"the file browser lists {listed}, not just the notebooks"
        with urllib.request.urlopen(f"{base}/lab?token={token}", timeout=10) as response:
            assert "JupyterLab" in response.read().decode()


def cell_prompts(page) -> list[str]:
    return page.eval_on_selector_all(".jp-CodeCell .jp-InputArea-prompt",
                                     "els => els.map(e => e.textContent)")


def explorer_output(explorer) -> str:
    return explorer.locator(".widget-output").inner_text()


def test_a_lesson_runs_in_jupyterlab_as_a_learner_sees_it(tmp_path, browser):
    """The pinned pair: JupyterLab 4 with jupyterlab_widgets 3, ipywidgets 8 in the kernel."""
    run_lesson_as_a_learner(browser, [str(Path(sys.executable).parent / "jupyter"), "lab"], tmp_path)


def run_lesson_as_a_learner(browser, command: list[str], tmp_path: Path, name: str = "jupyterlab",
                            settings: dict[str, dict] = JUPYTERLAB_4_SETTINGS) -> None:
    """Open lesson 4's twin in the JupyterLab that ``command`` starts, Run All, move an explorer.

    Args:
        browser: the Playwright browser.
        command: starts JupyterLab (``.../jupyter lab``); its Python runs the kernel.
        tmp_path: a folder for the lesson's copy and JupyterLab's settings.
        name: the screenshots' prefix.
        settings: JupyterLab's user settings (``"notebook-extension/tracker": {...}``), which
            differ between its major versions.
    """
    lessons = tmp_path / "lessons"
    lessons.mkdir(parents=True)
    notebook_path = Path(shutil.copy(LESSON, lessons / LESSON.name))
    notebook = nbformat.read(notebook_path, as_version=4)
    explorers = sum("live.show(" in cell.source for cell in notebook.cells if cell.cell_type == "code")
    token = secrets.token_hex(16)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with jupyterlab(command, lessons, tmp_path / "home", token, settings) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/lab/tree/{notebook_path.name}?token={token}")
        page.locator(".jp-MarkdownOutput", has_text="Learning goals").wait_for(timeout=90_000)
        page.get_by_text(re.compile(r"\| Idle$")).wait_for(timeout=90_000)  # the kernel has started
        page.screenshot(path=str(SCREENSHOTS / f"{name}-opened.png"))

        # before any cell runs, the text reads as on the website
        text = page.locator(".jp-Notebook").evaluate(
            "nb => [...nb.querySelectorAll('.jp-MarkdownOutput')].map(e => e.textContent).join('\\n')")
        assert "Learning goals" in text and "60,611" in text
        assert not MYST_MARKUP.findall(text), MYST_MARKUP.findall(text)[:5]
        assert page.locator(".jp-MarkdownOutput details").count() == 3  # the solutions, closed
        assert page.locator(".jp-MarkdownOutput details[open]").count() == 0

        for part, text_in_cell in [("goals", "Learning goals"), ("listing", "def sinusoidal_encoding_loop"),
                                   ("solution", "Solution")]:
            cell = page.locator(".jp-MarkdownCell", has_text=text_in_cell).first
            cell.scroll_into_view_if_needed()
            cell.screenshot(path=str(SCREENSHOTS / f"{name}-{part}.png"))

        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        deadline = time.monotonic() + RUN_ALL_LIMIT_SECONDS
        while True:
            prompts = cell_prompts(page)
            if prompts and all(re.fullmatch(r"\[\d+\]:", prompt) for prompt in prompts):
                break
            if page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count():
                break
            assert time.monotonic() < deadline, f"Run All took over {RUN_ALL_LIMIT_SECONDS} s: {prompts}"
            time.sleep(1)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-run-all.png"), full_page=True)

        failures = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        assert failures.count() == 0, failures.first.inner_text()[-2000:]
        shown = page.locator(".jp-Notebook .widget-interact")
        assert shown.count() == explorers, f"{shown.count()} explorers shown for {explorers} explorer cells"
        assert page.locator(".jp-Notebook").get_by_text("Correct!").count() == 0  # no solution ran

        first = shown.first
        first.scroll_into_view_if_needed()
        first.screenshot(path=str(SCREENSHOTS / f"{name}-encoding-explorer.png"))
        rope = shown.filter(has_text="query at")
        rope.scroll_into_view_if_needed()
        before = explorer_output(rope)
        assert before.startswith("offset +7")
        slider = rope.locator(".widget-slider", has_text="key at")
        handle = slider.locator(".noUi-handle, .ui-slider-handle")  # ipywidgets 8, 7
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("([el, old]) => el.innerText !== old",
                               arg=[rope.locator(".widget-output").element_handle(), before], timeout=20_000)
        after_keyboard = explorer_output(rope)
        assert after_keyboard.startswith("offset +8"), after_keyboard
        box = handle.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2, steps=8)
        page.mouse.up()
        page.wait_for_function("([el, old]) => el.innerText !== old",
                               arg=[rope.locator(".widget-output").element_handle(), after_keyboard],
                               timeout=20_000)
        after_mouse = explorer_output(rope)
        offset = re.match(r"offset \+(\d+)", after_mouse)
        assert offset and int(offset[1]) > 8, after_mouse
        rope.screenshot(path=str(SCREENSHOTS / f"{name}-rope-explorer.png"))
        assert not errors, errors
        page.close()


def test_jupyterlab_gives_each_heading_the_anchor_the_twins_link_to(tmp_path, browser):
    """Headings with math or code in them (lessons 4, 5 and 9): JupyterLab's anchor is the one
    ``twin_cells.heading_anchor`` computes, and every link within lesson 9 finds its heading."""
    from .test_twin_contents import heading_anchors

    lessons = tmp_path / "lessons"
    lessons.mkdir(parents=True)
    names = ["04_sinusoidal_positions.ipynb", "05_combined_pipeline.ipynb", "09_questions.ipynb"]
    for name in names:
        shutil.copy(REPO_ROOT / "book" / "lessons" / name, lessons / name)
    token = secrets.token_hex(16)
    with jupyterlab([str(Path(sys.executable).parent / "jupyter"), "lab"], lessons, tmp_path / "home",
                    token) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for name in names:
            page.goto(f"{base}/lab/tree/{name}?token={token}")
            shown_panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")  # the tab in front
            shown_panel.locator(".jp-RenderedMarkdown h2").first.wait_for(timeout=90_000)
            expected = heading_anchors(lessons / name)
            deadline = time.monotonic() + 30  # the tab's cells render one after another
            while True:
                shown = set(shown_panel.locator(".jp-RenderedMarkdown :is(h1, h2, h3, h4)").evaluate_all(
                    "hs => hs.map(h => h.getAttribute('data-jupyter-id') || h.id)"))
                if expected <= shown or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert expected <= shown, f"{name}: JupyterLab has no heading {sorted(expected - shown)}"
            if name.startswith("09"):  # a glued "[CLS]" reads as written, not as a reference
                rendered = shown_panel.locator(".jp-RenderedMarkdown").all_inner_texts()
                assert any("[CLS]" in text for text in rendered)
                assert not any("&#9" in text for text in rendered)
                links = shown_panel.locator(".jp-RenderedMarkdown a[href^='#']:not(.jp-InternalAnchorLink)")
                # as written, not decoded: JupyterLab follows "#...%CF%80" to no heading "...π"
                fragments = {href[1:] for href in links.evaluate_all(
                    "links => links.map(a => a.getAttribute('href'))")}
                assert len(fragments) >= 11  # the list of questions
                assert fragments <= shown, f"links to no heading: {sorted(fragments - shown)}"
        page.close()
