"""The i-Mark survey on the sweep engine, and sweep summaries and plots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sdg_automata.errors import InputError
from sdg_automata.games.imark import survey_instance
from sdg_automata.sweeps.imark import imark_sweep, survey_instances
from sdg_automata.sweeps.pool import process_pool
from sdg_automata.sweeps.runner import run_sweep
from sdg_automata.sweeps.summarize import load_rows, plot, summarize

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("converges", "c", "worst_start", "failed_start", "starts")


def survey_rows(**kw: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    run_sweep(imark_sweep(survey_instances(2, 4), upto=400), rows.append, **kw)
    return rows


def test_survey_rows_keep_their_meaning() -> None:
    """Should give, instance by instance and in order, what survey_instance says."""
    with process_pool(2) as pool:
        rows = survey_rows(executor=pool, ordered=True, batch=2, window=4)
    instances = survey_instances(2, 4)
    assert [(tuple(r["S"]), tuple(r["D"])) for r in rows] == [(g.S, g.D) for g in instances]
    for r, g in zip(rows, instances, strict=True):
        direct = survey_instance(g.S, g.D, upto=400)
        assert r["status"] == "ok" and r["upto"] == 400 and r["max_c"] == 128
        assert [r[f] for f in FIELDS] == [getattr(direct, f) for f in FIELDS]
        assert r["key"] == f"S={{{','.join(map(str, g.S))}}} D={{{','.join(map(str, g.D))}}} " \
                           f"upto=400 max_c=128"
    by = {(tuple(r["S"]), tuple(r["D"])): r for r in rows}
    assert by[(1,), (2, 3)]["c"] == 9 and by[(2,), (2,)]["failed_start"] == 3  # SPEC §6 notes


def test_survey_summary_and_heat_map(tmp_path: Path) -> None:
    rows = survey_rows()
    s = summarize(rows)
    assert s.kind == "imark" and s.status == {"ok": len(rows)}
    table = s.tables["convergence per instance"]
    assert table[0] == ["S", "D", "c", "worst start", "result"]
    assert ["{1}", "{2,3}", 9, 61, "converges"] in table
    assert ["{2}", "{2}", None, None, "no convergence from 3"] in table
    by_c = dict((c, n) for c, n in s.tables["instances by c"][1:])
    assert sum(by_c.values()) == len(rows)
    assert by_c["none"] == sum(1 for r in rows if not r["converges"])
    json.dumps(s.to_json())
    pytest.importorskip("matplotlib")
    out = tmp_path / "c.png"
    plot(rows, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_grammar_summary_counts_and_plot(tmp_path: Path) -> None:
    rows = [
        {"key": "ab: N0 -> a", "status": "ok", "states": 3, "bounds": {"N0": 1},
         "max": {"N0": 1}, "witness": {"N0": "a"}, "grammar": "N0 -> a\nterminals: b\n"},
        {"key": "ab: N0 -> a | a a", "status": "ok", "states": 4, "bounds": {"N0": 2},
         "max": {"N0": 1}, "witness": {"N0": "a"}, "grammar": "N0 -> a | a a\nterminals: b\n"},
        {"key": "ab: N0 -> a | a N0 | a a", "status": "ok", "states": 6, "bounds": {"N0": 3},
         "max": {"N0": 2}, "witness": {"N0": "aa"}, "grammar": "N0 -> a | a N0 | a a\n"},
        {"key": "ab: N0 -> b", "status": "budget", "states": 2, "bounds": {"N0": 1},
         "max": {}, "witness": {}, "grammar": "N0 -> b\n", "error": "over"},
    ]
    s = summarize(rows, top=2)
    assert s.status == {"budget": 1, "ok": 3}
    assert s.tables["maximum per nonterminal (grammars)"] == [["max", "N0"], [1, 2], [2, 1]]
    assert s.tables["largest automata (top 2)"] == [
        ["states", "max", "key"], [6, 2, "ab: N0 -> a | a N0 | a a"], [4, 1, "ab: N0 -> a | a a"]]
    assert s.tables["smallest grammar reaching each value"][1:] == [
        [1, 1, 1, 1, "N0", "a", "ab: N0 -> a"],
        [2, 1, 3, 4, "N0", "aa", "ab: N0 -> a | a N0 | a a"]]
    pytest.importorskip("matplotlib")
    out = tmp_path / "h.svg"
    plot(rows, out)
    assert b"<svg" in out.read_bytes()[:500]
    plot(rows, tmp_path / "h.pdf")  # the file types of every --plot
    assert (tmp_path / "h.pdf").read_bytes().startswith(b"%PDF-")
    with pytest.raises(InputError, match=r"\.png, \.svg or \.pdf"):
        plot(rows, tmp_path / "h.jpg")


def test_load_rows_skips_a_torn_tail(tmp_path: Path) -> None:
    f = tmp_path / "rows.jsonl"
    f.write_text('{"key": "x", "S": [1], "D": [2]}\n{"key": "y", "S"')
    assert [r["key"] for r in load_rows(f)] == ["x"]
    f.write_text('nonsense\n{"key": "x"}\n')
    with pytest.raises(InputError, match="rows.jsonl:1: not a JSON row"):
        load_rows(f)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sdg_automata", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120,
                          cwd=cwd)


def test_survey_out_resumes_and_summarizes(tmp_path: Path) -> None:
    args = ["imark", "survey", "--max-s", "2", "--max-d", "3", "--upto", "300", "--jobs", "1",
            "--out", "s.jsonl"]
    first = _cli(*args, cwd=tmp_path)
    assert first.returncode == 0 and "9 rows (9 ok" in first.stderr and first.stdout == ""
    again = _cli(*args, cwd=tmp_path)
    assert again.returncode == 0 and "9 skipped" in again.stderr
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 9
    summary = _cli("sweep", "summarize", "s.jsonl", "--json", cwd=tmp_path)
    assert summary.returncode == 0 and json.loads(summary.stdout)["kind"] == "imark"
    bad = _cli("sweep", "summarize", "missing.jsonl", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and bad.stderr.count("\n") == 1


def test_plot_without_matplotlib_is_refused_before_any_output(tmp_path: Path) -> None:
    """Should refuse ``--plot`` without matplotlib with one line naming the plot extra, exit 2,
    before the summary is printed (issue 28 §7: it printed the summary, then failed)."""
    rows = tmp_path / "s.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in survey_rows()))
    hidden = ("import sys; sys.modules['matplotlib'] = None\n"  # as if not installed
              "from sdg_automata.cli import main; raise SystemExit(main())")
    done = subprocess.run([sys.executable, "-c", hidden, "sweep", "summarize", str(rows),
                           "--plot", str(tmp_path / "c.png")], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr == ('error: plots need matplotlib, which is not installed: '
                           'pip install "sdg_automata[plot]"\n')
    assert not (tmp_path / "c.png").exists()
    with_json = subprocess.run([sys.executable, "-c", hidden, "sweep", "summarize", str(rows),
                                "--json", "--plot", str(tmp_path / "c.svg")],
                               capture_output=True, text=True,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert with_json.returncode == 2 and with_json.stdout == ""
    assert with_json.stderr.count("\n") == 1 and "sdg_automata[plot]" in with_json.stderr


def test_plot_returns_a_figure_and_writes_only_when_asked(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Should return a matplotlib Figure holding the counts (issue 22 §1), write no file
    without ``out``, and leave pyplot's backend as it was (a notebook keeps its own)."""
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    rows = [{"key": f"ab: {k}", "status": "ok", "states": 3, "max": {"N0": v},
             "witness": {"N0": "a" * v}, "grammar": g}
            for k, (v, g) in enumerate([(1, "N0 -> a\n"), (1, "N0 -> b\n"),
                                        (2, "N0 -> a | a N0 | a a\n")])]
    monkeypatch.chdir(tmp_path)
    backend = matplotlib.get_backend()
    fig = plot(rows)
    assert isinstance(fig, Figure) and list(tmp_path.iterdir()) == []
    assert matplotlib.get_backend() == backend
    (ax,) = fig.axes
    # one bar group per grammar size: 1 rule reaches 1 twice, 3 rules reach 2 once
    heights = sorted((round(b.get_x() + b.get_width() / 2), b.get_height())
                     for b in ax.patches if b.get_height() > 0)
    assert [h for _, h in heights] == [2, 1]
    assert plot(rows, tmp_path / "h.png") is not None
    assert [p.name for p in tmp_path.iterdir()] == ["h.png"]
