"""Every input file of ours is read as data to verify (issue 34 §3): regular files only,
at most the cap of its kind (``runtime.files.CAPS``), one ``error:`` line otherwise.

The readers: grammar files, word lists, DFA files (``--within F.json``), game graphs,
sweep outputs (``sweep summarize``, and ``--out`` reread to resume).  A FIFO used to
block each of them forever (the test's timeout only catches that hang); a file over its
cap is refused by its size before a byte is read; bytes that are not UTF-8 are named.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run

from sdg_automata.runtime import files

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "example3.txt")

#: a command reading ``{f}`` as the given kind of file
READERS = {
    "grammar file": ["max", "{f}", "A"],
    "word list": ["grundy", EXAMPLE, "A", "--words-from", "{f}"],
    "DFA file": ["max", EXAMPLE, "A", "--within", "{f}"],
    "game graph file": ["graph", "{f}"],
    "sweep output": ["sweep", "summarize", "{f}"],
}


def _argv(kind: str, path: Path) -> list[str]:
    return [a.replace("{f}", str(path)) for a in READERS[kind]]


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_fifo_is_refused_at_once(kind: str, tmp_path: Path) -> None:
    fifo = tmp_path / ("in.json" if kind == "DFA file" else "in")
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "sdg_automata", *_argv(kind, fifo)],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: {str(fifo)!r} is a FIFO, not a {kind}: only regular files " \
                          "are read\n"


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_file_over_its_cap_is_refused_by_its_size(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ("in.json" if kind == "DFA file" else "in")
    path.write_bytes(b" " * 101)
    monkeypatch.setitem(files.CAPS, kind, 100)
    code, out, err = run(_argv(kind, path), capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {str(path)!r} has 101 bytes, more than the 100 a {kind} may have\n"


def test_the_caps_are_above_any_real_input() -> None:
    """The documented caps: a real input never reaches them."""
    assert files.CAPS == {"grammar file": 64 << 20, "word list": 256 << 20,
                          "DFA file": 1 << 30, "game graph file": 1 << 30,
                          "sweep output": 4 << 30}


@pytest.mark.parametrize("kind", ["grammar file", "word list", "game graph file"])
def test_bytes_that_are_not_utf8_are_named(kind: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"A -> a\xff\n")
    code, out, err = run(_argv(kind, path), capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{str(path)!r} is not UTF-8 text" in err


def test_a_sweep_out_is_reread_within_its_cap(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The --out a sweep rereads to resume is a sweep output, capped as one."""
    out = tmp_path / "rows.jsonl"
    out.write_bytes(b"\n" * 101)
    monkeypatch.setitem(files.CAPS, "sweep output", 100)
    code, _, err = run(["octal", "survey", "--digits", "1", "--upto", "64", "--jobs", "1",
                        "--out", out], capsys)
    assert code == 2 and err.endswith("more than the 100 a sweep output may have\n")
