"""No file is ever lost: atomic outputs, never over an input; closed and full streams.

Each case ends with one ``error:`` line and a non-zero exit, and the files
involved keep their bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run

from sdg_automata.cli import writing

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = "A -> a A | a a A | B | a | a a\nB -> b A | b\n"




def cli(*argv: str, stdin: int | None = None, stdout: int | None = None,
        close: str = "") -> subprocess.CompletedProcess[bytes]:
    """The CLI in a child process; ``close`` is a shell redirection such as ``<&-``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = " ".join([sys.executable, "-m", "sdg_automata", *argv]) + " " + close
    return subprocess.run(["bash", "-c", command], capture_output=stdout is None, env=env,
                          stdin=subprocess.DEVNULL if stdin is None else stdin, timeout=120,
                          check=False)


@pytest.fixture
def grammar(tmp_path: Path) -> Path:
    path = tmp_path / "g.txt"
    path.write_text(GRAMMAR, encoding="utf-8")
    return path


def test_output_over_the_grammar_is_refused(grammar, capsys):
    code, out, err = run(["dfa", grammar, "A", "0", "-o", grammar], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: refusing to write the output over the input")
    assert grammar.read_text(encoding="utf-8") == GRAMMAR


def test_output_over_the_grammar_through_another_name_is_refused(grammar, tmp_path, capsys):
    link = tmp_path / "link.txt"
    link.symlink_to(grammar)
    code, _, err = run(["dfa", link, "A", "0", "-o", grammar], capsys)
    assert code == 2 and "over the input" in err
    assert grammar.read_text(encoding="utf-8") == GRAMMAR


def test_a_failed_write_keeps_the_old_file(grammar, tmp_path, capsys, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_bytes(b"the old result\n")
    real_fdopen = os.fdopen

    class Failing:
        """A file whose write stops half way with a full disk."""

        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(writing.os, "fdopen", lambda *a, **k: Failing(real_fdopen(*a, **k)))
    code, _, err = run(["dfa", grammar, "A", "0", "-o", target], capsys)
    assert code == 3  # a full disk is a resource limit (issue 21 §6)
    assert err.splitlines() == [f"error: cannot write {str(target)!r}: No space left on device"]
    assert target.read_bytes() == b"the old result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.txt"]  # no temp left


def test_a_successful_write_replaces_the_file(grammar, tmp_path, capsys):
    target = tmp_path / "out.txt"
    target.write_bytes(b"the old result\n")
    code, out, _ = run(["dfa", grammar, "A", "0", "-o", target], capsys)
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8").splitlines()[0].split() == ["state", "a", "b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.txt"]


def test_output_into_a_directory_is_refused(grammar, tmp_path, capsys):
    code, _, err = run(["dfa", grammar, "A", "0", "-o", tmp_path], capsys)
    assert code == 2 and "is a directory" in err


@pytest.mark.parametrize("argv, close", [
    (["grundy", "{g}", "A", "--words-from", "-"], "<&-"),
    (["play", "{g}", "A:aa"], "<&-"),
    (["dfa", "{g}", "A", "0"], ">&-"),
    (["dfa", "{g}", "A", "0"], "> /dev/full"),
    (["check", "{g}"], "> /dev/full"),
])
def test_closed_or_full_streams(grammar, argv, close):
    done = cli(*[a.format(g=grammar) for a in argv], close=close)
    err = done.stderr.decode()
    # a full disk is a resource limit (exit 3, issue 21 §6); a closed stream bad usage
    assert done.returncode == (3 if "full" in close else 2), err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.splitlines()[-1].startswith("error: ")
    assert len(err.splitlines()) == 1, err
    assert grammar.read_text(encoding="utf-8") == GRAMMAR


def test_pipe_closed_early_is_not_an_error():
    """``... | head``: the reader left; more output than a pipe buffer holds."""
    done = cli("imark", "sequence", "--S", "1", "--D", "2", "--upto", "300000",
               close="| head -c 1 > /dev/null; exit ${PIPESTATUS[0]}")
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


def test_drawings_are_size_guarded(capsys, tmp_path):
    """Before Graphviz runs: a limit on the states drawn (exit 3, naming the option)."""
    pytest.importorskip("pygraphviz")
    g = tmp_path / "m.json"
    assert run(["family", "modular", "3:0", "5:2", "7:3", "-o", g], capsys)[0] == 0
    code, out, err = run(["dfa", g, "A", "0", "--format", "svg", "--max-draw-states", "20"],
                         capsys)
    assert code == 3 and out == ""
    assert err.startswith("error: refusing to draw") and "--max-draw-states" in err
    code, out, _ = run(["dfa", g, "A", "0", "--format", "svg", "--max-draw-states", "10000"],
                       capsys)
    assert code == 0 and out.lstrip().startswith("<?xml")


def test_output_through_a_symlink_replaces_the_target_and_keeps_the_link(grammar, tmp_path,
                                                                          capsys):
    target = tmp_path / "target.txt"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    code, _, _ = run(["dfa", grammar, "A", "0", "-o", link], capsys)
    assert code == 0 and link.is_symlink()
    assert target.read_text(encoding="utf-8").split()[:3] == ["state", "a", "b"]


def test_output_to_a_device_is_written_in_place(grammar, capsys):
    code, _, err = run(["dfa", grammar, "A", "0", "-o", os.devnull], capsys)
    assert code == 0 and err == ""
    assert Path(os.devnull).is_char_device()  # still the device, not a file put in its place


def test_a_new_output_file_follows_the_umask(grammar, tmp_path, capsys):
    old = os.umask(0o022)
    try:
        assert run(["dfa", grammar, "A", "0", "-o", tmp_path / "new.txt"], capsys)[0] == 0
    finally:
        os.umask(old)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o644


def test_an_empty_output_name_is_refused(grammar, capsys):
    code, out, err = run(["dfa", grammar, "A", "0", "-o", ""], capsys)
    assert code == 2 and out == "" and err == "error: -o needs a file name\n"


@pytest.mark.parametrize("argv, close", [(["--help"], "> /dev/full"), (["--help"], ">&-"),
                                         (["--version"], ">&-")])
def test_help_that_cannot_be_written_is_an_error(argv, close):
    done = cli(*argv, close=close)
    assert done.returncode == (3 if "full" in close else 2)
    assert done.stderr.decode().startswith("error: cannot write the output")


def test_no_command_is_an_error_after_the_help(capsys):
    code, out, err = run([], capsys)
    assert code == 2 and out == ""
    assert err.splitlines()[-1].startswith("error: ") and "usage:" in err
