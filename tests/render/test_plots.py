"""Sequences as pictures and notebook displays of results (issue 28 §2 and §3).

The plots are checked by the data they draw (matplotlib's artists: the line's
points, the shaded spans' edges, the bar labels), the files by their magic
bytes and size, the notebook displays by the MIME bundle a kernel sends and by
the HTML nbconvert renders from an executed notebook.
"""

from __future__ import annotations

import math
import re
import struct
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from clirun import run
from golden import example3

from sdg_automata import render
from sdg_automata.automaton.construction import GrundyAutomaton
from sdg_automata.games.imark import imark_sequence
from sdg_automata.games.octal import OctalGame, naive_values
from sdg_automata.generators.families import subtraction_grammar
from sdg_automata.render import display
from sdg_automata.search.decide import max_grundy

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "example3.txt")

#: Winning Ways (ch. 4): Kayles 0.77 has period 12, its last exceptional value at n = 70
#: (so the least preperiod is 71); Dawson's chess 0.137 has period 34 from n = 52
PUBLISHED = {"0.77": (71, 12), "0.137": (52, 34)}


def _spans(ax: Any) -> list[tuple[float, float]]:
    """The x-ranges of the shaded spans (axvspan's rectangles) of ``ax``."""
    from matplotlib.patches import Rectangle

    return sorted((patch.get_x(), patch.get_x() + patch.get_width())
                  for patch in ax.patches if isinstance(patch, Rectangle))


@pytest.mark.parametrize("code", sorted(PUBLISHED))
def test_the_octal_plot_draws_the_sequence_and_marks_the_proven_period(code: str) -> None:
    pytest.importorskip("matplotlib")
    from sdg_automata.render.plots import plot_octal

    result = OctalGame.parse(code).period()
    n0, p = PUBLISHED[code]
    assert (result.preperiod, result.period, result.certified) == (n0, p, True)
    fig = plot_octal(result)
    (ax,) = fig.axes
    (line,) = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    assert xs == list(range(n0 + 3 * p)) and ys == result.first(n0 + 3 * p)
    # the values the line draws repeat with the period from n0 on, and not from n0 - 1
    assert all(ys[n] == ys[n + p] for n in range(n0, len(ys) - p))
    assert ys[n0 - 1] != ys[n0 - 1 + p]
    assert _spans(ax) == [(-0.5, n0 - 0.5), (n0 - 0.5, n0 + p - 0.5)]
    marks = sorted(ln.get_xdata()[0] for ln in ax.get_lines() if ln is not line)
    assert marks == [n0 - 0.5, n0 + p - 0.5]
    assert f"preperiod {n0}, period {p}" in ax.get_title()


def test_an_unproven_octal_result_is_not_plotted() -> None:
    from sdg_automata.errors import InputError
    from sdg_automata.render.plots import plot_octal

    result = OctalGame.parse("0.007").period(max_n=64)
    assert not result.certified
    with pytest.raises(InputError, match="no proven period"):
        plot_octal(result)


def test_the_imark_and_count_plots_draw_their_values() -> None:
    pytest.importorskip("matplotlib")
    from sdg_automata.automaton.counting import count
    from sdg_automata.render.plots import counts_by_length, imark_series, plot_counts, plot_imark

    sequence = imark_series([1], [2, 3], upto=200)
    (line,) = plot_imark(sequence).axes[0].get_lines()
    assert list(line.get_ydata()) == list(imark_sequence([1], [2, 3], upto=200))
    counts = counts_by_length(example3(), "A", 0, max_length=12)
    # independent: count() one length at a time; SPEC §2: 409 words of length 10
    assert counts.counts == tuple(count(example3(), "A", 0, n) for n in range(13))
    assert counts.counts[10] == 409
    ax = plot_counts(counts).axes[0]
    (line,) = ax.get_lines()
    # log₁₀ of the exact counts on a linear axis labelled in powers of ten (a float log
    # scale overflows for long words: issue 34 §6, tests/render/test_count_plot_large.py)
    assert ax.get_yscale() == "linear"
    positive = [(n, c) for n, c in enumerate(counts.counts) if c]
    assert list(line.get_xdata()) == [n for n, _ in positive]
    assert list(line.get_ydata()) == [math.log10(c) for _, c in positive]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("argv", [
    ["octal", "0.77", "--values", "5"],
    ["imark", "sequence", "-S", "1", "-D", "2,3", "--upto", "300"],
    ["count", EXAMPLE, "A", "0", "--length", "30"],
], ids=["octal", "imark", "count"])
@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_plot_writes_a_real_image(argv: list[str], suffix: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / f"plot{suffix}"
    code, stdout, err = run([*argv, "--plot", out], capsys)
    assert code == 0, err
    assert stdout and f"wrote {out}" in err
    data = out.read_bytes()
    if suffix == ".png":
        width, height = _png_size(data)
        assert 600 <= width <= 1200 and 300 <= height <= 700
    elif suffix == ".svg":
        assert data.startswith(b"<?xml") and b"<svg" in data and b"</svg>" in data
    else:
        assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically: no temporary left


@pytest.mark.parametrize("argv", [
    ["octal", "0.77"],
    ["imark", "sequence", "-S", "1", "-D", "2,3", "--upto", "30"],
    ["count", EXAMPLE, "A", "0", "--length", "30"],
], ids=["octal", "imark", "count"])
def test_plot_without_matplotlib_is_refused_before_any_work(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sdg_automata.automaton.counting
    import sdg_automata.games.imark.naive
    import sdg_automata.games.octal

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)

    def no_work(*_: Any, **__: Any) -> Any:
        raise AssertionError("computed before refusing")

    monkeypatch.setattr(sdg_automata.games.octal.OctalGame, "period", no_work)
    monkeypatch.setattr(sdg_automata.games.imark.naive, "_blocks", no_work)
    monkeypatch.setattr(sdg_automata.automaton.counting.ClassMachine, "build", no_work)
    out = tmp_path / "p.png"
    code, stdout, err = run([*argv, "--plot", out], capsys)
    assert (code, stdout) == (2, "")
    assert err == ("error: plots need matplotlib, which is not installed: "
                   'pip install "sdg_automata[plot]"\n')
    assert not out.exists()


@pytest.mark.parametrize("argv, message", [
    (["octal", "0.77", "--plot", "k.gif"], "--plot writes .png, .svg or .pdf files"),
    (["octal", "0.77", "--grammar", "--plot", "k.png"], "--plot does not apply to --grammar"),
    (["count", EXAMPLE, "A", "0", "--gf", "--plot", "c.png"], "give --length N"),
    (["imark", "sequence", "-S", "1", "-D", "2", "--upto", "10000000", "--plot", "i.png"],
     "at most 1,000,000 values"),
])
def test_bad_plot_requests_are_one_error_line(argv: list[str], message: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(argv, capsys)
    assert (code, stdout) == (2, "")
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_plot_is_never_written_over_an_input(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    grammar = tmp_path / "g.png"  # a grammar file with an image's name
    grammar.write_text(Path(EXAMPLE).read_text())
    code, _, err = run(["count", grammar, "A", "0", "--length", "5", "--plot", grammar], capsys)
    assert code == 2 and "over the input" in err
    assert grammar.read_text() == Path(EXAMPLE).read_text()


def test_the_grammar_histogram_labels_every_bar(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from sdg_automata.sweeps.summarize import plot

    # one grammar reaching 3 among many reaching 1: a bar of 1 on a log axis
    rows = [{"key": f"k{i}", "status": "ok", "grammar": "A -> a | a A", "states": 3,
             "max": {"A": 1}, "witness": {"A": "a"}} for i in range(500)]
    rows.append({"key": "top", "status": "ok", "grammar": "A -> a | a A | a a A",
                 "states": 4, "max": {"A": 3}, "witness": {"A": "aaa"}})
    ax = plot(rows).axes[0]
    labels = sorted(t.get_text() for t in ax.texts if t.get_text())
    assert labels == ["1", "500"]
    assert ax.get_ylim()[0] < 1  # the bar of 1 rises from the axis


# ---------------------------------------------------------------------------
# notebook displays


def _shell() -> Any:
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "sdg_automata")
    return shell


def _displayed(obj: object) -> dict[str, Any]:
    data, _ = _shell().display_formatter.format(obj)
    assert isinstance(data, dict)
    return data


def _big_verdict() -> Any:
    verdict = max_grundy(example3(), "A")
    return replace(verdict, witnesses={0: "b", 1: "a" * 65_536, 2: "a" * 65_535 + "b"})


def test_a_big_automaton_shows_items_run_length_and_capped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # the table, as beyond DRAW_LIMIT
    automaton = GrundyAutomaton(subtraction_grammar([1, 40, 60]))
    states = len(automaton.explore().states)
    assert states >= 100
    page = _displayed(automaton)["text/html"]
    assert page.count("<tr>") == 1 + render.TABLE_LIMIT + 1  # header, rows, the cap line
    assert f"… {states - render.TABLE_LIMIT} more rows" in page
    assert "a^7A" in page and "aaaaaaaa" not in page  # run-length prefixes
    assert f"… {61 - display.ITEM_LIMIT - 8} more" in page  # state 60: 61 items, 8 shown
    assert "<td>" not in page and page.count('<td style="text-align: left"') >= 60 * 4


def test_a_verdict_shows_witnesses_run_length_left_aligned() -> None:
    data = _displayed(_big_verdict())
    page, text = data["text/html"], data["text/plain"]
    for shown in (page, text):
        assert "a^65536 (length 65,536)" in shown and "a^65535b (length 65,536)" in shown
        assert "a" * 100 not in shown
    assert "<td style=\"text-align: left\">&#x27;b&#x27;</td>" in page  # the short one


def test_results_show_a_table_and_their_plot() -> None:
    pytest.importorskip("matplotlib")
    from sdg_automata.render.plots import counts_by_length, imark_series

    octal = _displayed(OctalGame.parse("0.137").period())
    page = octal["text/html"]
    assert page.startswith("<p>octal game 0.137: preperiod 52, period 34</p>")
    assert ">preperiod</td><td style=\"text-align: left\">52<" in page
    assert "yes, by the octal periodicity theorem" in page
    assert '<img src="data:image/png;base64,' in page
    assert _png_size(__import__("base64").b64decode(octal["image/png"]))[0] > 600
    # the first values, by the definition (naive_values), not a numpy array's repr
    first = " ".join(map(str, naive_values(OctalGame.parse("0.137"), 40)))
    assert "array(" not in octal["text/plain"] and f"{first} …" in octal["text/plain"]
    # facts, not a table with column titles: no header row (JupyterLab bolds a <th> row)
    assert "<th" not in octal["text/html"]
    assert '<tr><td style="text-align: left">code</td>' in octal["text/html"]
    imark = _displayed(imark_series([1], [2, 3], upto=100))
    assert "i-Mark({1}, {2, 3})" in imark["text/html"] and imark["image/png"]
    assert "<th" not in imark["text/html"]
    counts = _displayed(counts_by_length(example3(), "A", 0, max_length=10))
    assert "409" in counts["text/plain"] and counts["image/png"]


def test_nbconvert_renders_the_displays(tmp_path: Path) -> None:
    """Should show, in the HTML nbconvert makes of an executed notebook, the run-length
    witnesses and items, the cap line, left-aligned cells and the octal plot."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    import os

    cells = [
        "import sys; sys.modules['pygraphviz'] = None  # tables, as for a big automaton\n"
        "from dataclasses import replace\nimport sdg_automata\n"
        "from sdg_automata import GrundyAutomaton, load_grammar, max_grundy\n"
        "from sdg_automata.generators.families import subtraction_grammar\n"
        "from sdg_automata.games.octal import OctalGame",
        "GrundyAutomaton(subtraction_grammar([1, 40, 60]))",
        f"v = max_grundy(load_grammar({EXAMPLE!r}), 'A')\n"
        "replace(v, witnesses={0: 'b', 1: 'a' * 65536, 2: 'a' * 65535 + 'b'})",
        "OctalGame.parse('0.77').period()",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), old) if p)
    try:
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    page, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    assert "… 100 more rows" in page and "a^7A" in page
    assert "a^65536 (length 65,536)" in page and "a" * 1000 not in page
    assert "<td style=\"text-align: left\">'b'</td>" in page  # the short one, left-aligned
    assert "octal game 0.77: preperiod 71, period 12" in page
    assert re.search(r'<img [^>]*src="data:image/png;base64,', page)
