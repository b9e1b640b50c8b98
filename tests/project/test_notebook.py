"""docs/tutorial.ipynb, as its readers see it (issues 13 and 22 §1).

The tutorial is committed with its outputs, so a code host shows them.  nbclient
executes it again in an ipykernel kernel started from this Python (the ``test``
extra installs nbclient, nbformat and ipykernel; without them these tests are
skipped), and the tests check that

* no cell raises, and the committed outputs are the ones it gives now, up to
  what changes from run to run or machine to machine (timings, and the
  coordinates of Graphviz's layout: a drawing is compared by its labels, nodes
  and edges);
* each drawing cell shows a drawing: its text/html is the caption and an inline
  ``<svg``, which JupyterLab, Notebook, VS Code and nbconvert render first; and
  ``jupyter nbconvert --to html`` of the executed and of the committed notebook
  has an ``<svg`` in every drawing cell (the JupyterLab check in a real browser
  is tests/project/test_browser.py);
* the figures printed agree with independent values (SPEC §2: 409 words of
  length 10 have 𝒢(A, w) = 0, found by brute force in tests/cli/test_cli_render.py;
  the subtraction game S = {1, 3, 4} has period 7, Winning Ways ch. 4; Kayles has
  preperiod 71 and period 12, shown as a table with its plot).

After changing the tutorial or a display, refresh its outputs with
``python tests/project/test_notebook.py`` (executes it and writes it in place).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"
#: the last line of each cell that shows a drawing (Graphviz, with the visual extra)
DRAWN = ("GrundyAutomaton(g)", "m_a0", "forward", "gg")
#: the last line of each cell that shows a table (no drawing exists for a verdict)
TABULATED = ("verdict", "constrained")


def execute(nb: Any) -> Any:
    """Run every cell of ``nb`` in a fresh kernel importing this checkout; ``nb`` itself."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), old) if p)
    try:
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return nb


def _source(cell: Any) -> str:
    return "".join(cell.source) if isinstance(cell.source, list) else str(cell.source)


def _last_line(cell: Any) -> str:
    return _source(cell).strip().splitlines()[-1] if cell.cell_type == "code" else ""


def _displays(cell: Any) -> list[dict[str, Any]]:
    return [dict(o["data"]) for o in cell.outputs
            if o["output_type"] in ("execute_result", "display_data")]


def _stdout(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs
                   if o["output_type"] == "stream" and o.get("name") == "stdout")


def _drawing(svg: str) -> str:
    """What a drawing shows, without where Graphviz put it: its labels, nodes and edges."""
    texts = sorted(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    nodes, edges = svg.count('class="node"'), svg.count('class="edge"')
    return f"<svg nodes={nodes} edges={edges} labels={texts}>"


def _normal(text: str) -> str:
    text = re.sub(r"<svg\b.*?</svg>", lambda m: _drawing(m.group(0)), text, flags=re.S)
    text = re.sub(r"<\?xml.*?\?>\s*|<!DOCTYPE[^>]*>\s*|<!--.*?-->\s*", "", text, flags=re.S)
    # a plot inside HTML: its PNG's bytes vary with matplotlib and FreeType, as image/png's
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:image/png;base64,<png>", text)
    return re.sub(r"\d+\.\d+ s\b", "_ s", text)  # timings


def normalized(nb: Any) -> list[list[Any]]:
    """Each code cell's outputs with the volatile parts replaced (see the module docstring)."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs: list[Any] = [cell.execution_count]
        for o in cell.outputs:
            if o["output_type"] == "stream":
                # consecutive ones merged, as front ends show them: a kernel may send one
                # print as two messages (CI saw "…\n" then "\n" once)
                if isinstance(outputs[-1], tuple) and outputs[-1][0] == o["name"]:
                    outputs[-1] = (o["name"], outputs[-1][1] + o["text"])
                else:
                    outputs.append((o["name"], o["text"]))
            elif o["output_type"] in ("execute_result", "display_data"):
                outputs.append({kind: "<png>" if kind == "image/png" else _normal(str(data))
                                for kind, data in o["data"].items()})
            else:
                outputs.append(o["output_type"])
        cells.append([(x[0], _normal(x[1])) if isinstance(x, tuple) else x for x in outputs])
    return cells


@pytest.fixture(scope="module")
def committed() -> Any:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    return nb


@pytest.fixture(scope="module")
def executed() -> Any:
    return execute(nbformat.read(NOTEBOOK, as_version=4))


def test_committed_with_current_outputs(committed: Any, executed: Any) -> None:
    """Should carry the outputs that running it gives today (refresh: see the docstring)."""
    pytest.importorskip("pygraphviz")  # the committed outputs hold drawings: the visual extra
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert len(code) >= 12 and all(c.outputs for c in code)
    assert normalized(committed) == normalized(executed), (
        "docs/tutorial.ipynb's outputs are stale: run python tests/project/test_notebook.py")


def test_no_cell_raises(executed: Any) -> None:
    for cell in executed.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o["output_type"] == "error"]
            assert not errors, f"{_source(cell)[:80]!r}: {errors[0].get('evalue')}"
            assert not any(o.get("name") == "stderr" and "Traceback" in o.get("text", "")
                           for o in cell.outputs)


def test_drawing_cells_show_the_drawing(executed: Any) -> None:
    """Should show each automaton and game graph as a drawing first (text/html: caption and
    inline SVG), and a verdict as a table, with their independent values."""
    pytest.importorskip("pygraphviz")
    shown = {}
    for cell in executed.cells:
        last = _last_line(cell)
        if last in DRAWN + TABULATED:
            (display,) = _displays(cell)
            shown[last] = display
    assert set(shown) == set(DRAWN + TABULATED)
    for last in DRAWN:
        page = shown[last]["text/html"]
        assert "<svg" in page and "<table" not in page, last
        assert "<svg" in shown[last]["image/svg+xml"]
    assert shown["GrundyAutomaton(g)"]["text/html"].startswith(
        "<p>GrundyAutomaton: 10 reachable states over {a, b}</p>")
    assert "{A¹, aE⁰}" in shown["GrundyAutomaton(g)"]["text/html"]  # an item set of SPEC §4
    assert shown["m_a0"]["text/html"].startswith("<p>DFA: 10 states")  # ours, not automata-lib's
    assert "(A, ab)" in shown["gg"]["text/html"] and "𝒢 = 2" in shown["gg"]["text/html"]
    for last in TABULATED:
        assert "<table>" in shown[last]["text/html"] and "image/svg+xml" not in shown[last]
    assert "max 𝒢_A = 2" in shown["verdict"]["text/html"]


@pytest.mark.parametrize("which", ["executed", "committed"])
def test_nbconvert_html_has_a_drawing_in_every_drawing_cell(which: str,
                                                            request: pytest.FixtureRequest) -> None:
    """Should give, through ``jupyter nbconvert --to html``, an ``<svg`` in each drawing cell
    (the page a reader of the HTML sees), and none in the table cells."""
    pytest.importorskip("pygraphviz")
    nbconvert = pytest.importorskip("nbconvert")
    nb = request.getfixturevalue(which)
    page, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    # the lab template puts each cell in one <div class="jp-Cell ...">, in order
    chunks = re.split(r'<div[^>]*class="jp-Cell jp-', page)[1:]
    assert len(chunks) == len(nb.cells)
    for cell, chunk in zip(nb.cells, chunks, strict=True):
        last = _last_line(cell)
        if last in DRAWN:
            assert "<svg" in chunk, f"{which}: no drawing in the HTML of the cell {last!r}"
        if last in TABULATED:
            assert "<svg" not in chunk and "<table>" in chunk, last


def test_printed_figures_agree_with_independent_values(executed: Any) -> None:
    text = "\n".join(_stdout(c) for c in executed.cells if c.cell_type == "code")
    assert "[" in text and ", 409]" in text  # count(A, 0, n) for n = 1..10 ends with 409
    assert "period=7" in text and "proven=True" in text  # S = {1, 3, 4}: period 7
    assert "right-linear" in text
    assert "→0  {E⁰}" in text.replace(" ", "").replace("→0{E⁰}", "→0  {E⁰}")  # the table


def test_imark_the_sweeps_and_the_plot(executed: Any) -> None:
    cells = [c for c in executed.cells if c.cell_type == "code"]
    imark = next(c for c in cells if "imark_grundy([1], [2, 3], 10**18)" in _source(c))
    from sdg_automata import imark_grundy  # the same value outside the kernel (no state)

    assert int(_displays(imark)[0]["text/plain"]) == imark_grundy([1], [2, 3], 10**18)
    sweep = next(c for c in cells if "subtraction_grammar(s)" in _source(c))
    html = _displays(sweep)[0]["text/html"]
    assert html.count("<tr>") == 1 + 8  # header + every S ∋ 1 within {1..4}
    assert "<td>{1, 3, 4}</td><td>0</td><td>7</td>" in html
    plotted = next(c for c in cells if "plot(grammar_rows)" in _source(c))
    # docs/sweeps.md: 130 classes; none reaches 3 with at most 3 rules (the first sweep's finding)
    assert "130 grammars; the largest maximum: 2" in _stdout(plotted)
    (figure,) = _displays(plotted)
    assert figure["image/png"] and figure["text/plain"].startswith("<Figure size")


def test_an_octal_result_shows_its_table_and_plot(executed: Any) -> None:
    """Should show Kayles's proven preperiod and period (Winning Ways: period 12, the last
    exceptional value at n = 70) in a table, with the plot inside the HTML that JupyterLab
    renders first and as image/png."""
    cell = next(c for c in executed.cells if c.cell_type == "code" and _last_line(c) == "kayles")
    (shown,) = _displays(cell)
    page = shown["text/html"]
    assert page.startswith("<p>octal game 0.77: preperiod 71, period 12</p>\n<table>")
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]{1000,}"', page)
    assert shown["image/png"] and "array(" not in shown["text/plain"]


if __name__ == "__main__":  # refresh the committed outputs
    nb = execute(nbformat.read(NOTEBOOK, as_version=4))
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} with its outputs", file=sys.stderr)
