"""The tutorial in a real JupyterLab, in headless Chromium: what a researcher sees (issue 22 §1).

The test starts JupyterLab on 127.0.0.1 (a free port, a random token, settings and
runtime files in a temporary folder, no news or update checks), opens a copy of
docs/tutorial.ipynb, clears its outputs, runs every cell through JupyterLab's own
"run all" command, and reads the rendered page: each automaton and game graph
cell shows an ``<svg>`` element with its nodes (not a table), each verdict a
table, the sweep a plotted figure, and no cell an error.

The browser is Chromium driven by Playwright (the ``test`` extra); Playwright's
own browser download is not used: Debian's ``chromium`` package is
(``.ci/run`` installs it).  Without a browser the test is skipped and says why,
except under CI (``CI`` set), where it fails: CI must run it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from required import require, unavailable

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
#: Chromium's flags for a headless run that talks to nothing but the page it is given
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
#: the last line of the cells that draw, and of those that tabulate (tests/project/test_notebook.py)
DRAWN = ("GrundyAutomaton(g)", "m_a0", "forward", "gg")
TABULATED = ("verdict", "constrained")


def _chromium() -> str:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    unavailable("no Chromium: apt-get install chromium (.ci/run does)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab serving a copy of docs/ and examples/; yields the notebook's URL."""
    require("playwright", "jupyterlab", extra="test")
    folder = tmp_path_factory.mktemp("lab")
    (folder / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "tutorial.ipynb", folder / "docs")
    shutil.copytree(ROOT / "examples", folder / "examples")
    settings = folder / ".settings"
    for plugin, values in (("notebook-extension/tracker", {"windowingMode": "none"}),
                           ("apputils-extension/notification", {"fetchNews": "false"})):
        path = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(folder / ".config"),
           "JUPYTER_RUNTIME_DIR": str(folder / ".runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(folder / ".workspaces"),
           # the kernel imports this checkout's package, whatever is installed
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                         if p)}
    log = folder / "jupyterlab.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
             "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--LabApp.extension_manager=readonly"],
            env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield f"{base}/lab/tree/docs/tutorial.ipynb?token={token}"
    finally:
        try:  # shuts the kernels down too
            urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/shutdown?token={token}", method="POST"), timeout=10).close()
            server.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            server.kill()
            server.wait()


#: per code cell: its last line and what its outputs hold, read from the rendered page
READ_CELLS = """() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')].map(cell => {
    const lines = [...cell.querySelectorAll('.jp-InputArea-editor .cm-line')]
        .map(line => line.textContent.trim()).filter(line => line);
    const outputs = cell.querySelectorAll('.jp-OutputArea-output');
    const svg = cell.querySelector('.jp-OutputArea-output svg');
    return {
        last: lines.length ? lines[lines.length - 1] : '',
        prompt: cell.querySelector('.jp-InputArea-prompt')?.textContent.trim() || '',
        mimes: [...outputs].map(o => o.getAttribute('data-mime-type')),
        svgs: cell.querySelectorAll('.jp-OutputArea-output svg').length,
        nodes: svg ? svg.querySelectorAll('g.node').length : 0,
        labels: svg ? [...svg.querySelectorAll('text')].map(t => t.textContent) : [],
        caption: cell.querySelector('.jp-OutputArea-output p')?.textContent || '',
        tables: cell.querySelectorAll('.jp-OutputArea-output table').length,
        images: cell.querySelectorAll('.jp-OutputArea-output img').length,
        widths: [...cell.querySelectorAll('.jp-OutputArea-output img')].map(i => i.naturalWidth),
        aligns: [...cell.querySelectorAll('.jp-OutputArea-output td, .jp-OutputArea-output th')]
            .map(c => getComputedStyle(c).textAlign),
        shown: [...outputs].every(o => o.getBoundingClientRect().width > 0),
    };
})"""

#: the notebook's kernel has started and waits for work
KERNEL_IDLE = """() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel
    ?.status === 'idle'"""

#: every code cell has run: a number in its prompt, none waiting ([*]) or blank
ALL_RAN = """() => {
    const prompts = [...document.querySelectorAll(
        '.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')];
    return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""


def test_jupyterlab_runs_the_tutorial_and_shows_drawings(lab: str, tmp_path: Path) -> None:
    """Should render each automaton and game graph as an SVG drawing in JupyterLab."""
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    shot = tmp_path / "tutorial.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(lab)
            page.wait_for_function("window.jupyterapp !== undefined", timeout=120_000)
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=60_000)
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            # not awaited: the command's promise settles when the cells have run
            run = "() => {{ window.jupyterapp.commands.execute('notebook:{}'); }}"
            page.evaluate(run.format("clear-all-cell-outputs"))
            page.wait_for_function(
                "document.querySelectorAll('.jp-OutputArea-output').length === 0", timeout=10_000)
            page.evaluate(run.format("run-all-cells"))
            page.wait_for_function(ALL_RAN, timeout=180_000)
            page.wait_for_function(KERNEL_IDLE, timeout=60_000)
            cells: list[dict[str, Any]] = page.evaluate(READ_CELLS)
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    where = f"(the page: {shot})"
    by_last = {c["last"]: c for c in cells}
    assert set(DRAWN + TABULATED) <= set(by_last), (sorted(by_last), where)
    for cell in cells:
        assert "application/vnd.jupyter.error" not in cell["mimes"], (cell, where)
        assert cell["shown"], (cell, where)
    for last in DRAWN:
        cell = by_last[last]
        assert cell["svgs"] == 1 and cell["tables"] == 0, (cell, where)
        assert cell["nodes"] >= 9, (cell, where)  # Example 3: 10 states (8 minimal), 10 positions
    automaton = by_last["GrundyAutomaton(g)"]
    assert automaton["caption"] == "GrundyAutomaton: 10 reachable states over {a, b}", where
    assert "{A¹, aE⁰}" in automaton["labels"], where  # an item set of SPEC §4, drawn
    assert "𝒢 = 2" in by_last["gg"]["labels"], where  # (A, aa) has value 2 (SPEC §2)
    for last in TABULATED:
        cell = by_last[last]
        assert cell["tables"] == 1 and cell["svgs"] == 0, (cell, where)
        # JupyterLab's stylesheet right-aligns cells; ours are left-aligned (issue 28 §2)
        assert cell["aligns"] and set(cell["aligns"]) == {"left"}, (cell, where)
    assert by_last["verdict"]["caption"].startswith("max 𝒢_A = 2, witness 'aa'"), where
    kayles = by_last["kayles"]  # the octal result: its table and its plot, in text/html
    assert kayles["mimes"] == ["text/html"] and kayles["tables"] == 1, (kayles, where)
    assert kayles["images"] == 1 and kayles["widths"][0] > 600, (kayles, where)
    assert kayles["caption"] == "octal game 0.77: preperiod 71, period 12", where
    plotted = by_last["plot(grammar_rows)"]
    assert plotted["images"] == 1 and "image/png" in plotted["mimes"], (plotted, where)
