"""Lost or misplaced output (issue 34 §4): one rule on a command's files, values of an
unproven octal run kept, temporaries of killed writers cleaned.

Truth: the files on disk after each command — the certificate still a certificate
(``octal verify`` accepts it), no file named after a folder, the listed values those of
the definition (:func:`naive_values`), only the dead writers' temporaries gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run

from sdg_automata.games.octal import OctalGame, naive_values

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "example3.txt")


def test_an_output_naming_another_output_is_refused(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Should refuse ``-o`` naming the certificate before any work (old: exit 0, the text
    replaced the certificate)."""
    cert = tmp_path / "k.cert"
    code, out, err = run(["octal", "0.77", "--certificate", cert, "-o", cert], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "name the same file" in err and not cert.exists()
    cert_alias = tmp_path / "." / "k.cert"  # the same file by another spelling
    code, _, err = run(["octal", "0.77", "--certificate", cert, "--plot", f"{cert_alias}.png",
                        "-o", cert_alias], capsys)
    assert code == 2 and "name the same file" in err


def test_the_checkpoint_is_an_input_and_an_output(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ckpt = tmp_path / "run.ckpt"
    for other in (["-o", ckpt], ["--certificate", ckpt]):
        code, _, err = run(["octal", "0.77", "--checkpoint", ckpt, *other], capsys)
        assert code == 2 and "name the same file" in err
    assert not ckpt.exists()


def test_an_existing_certificate_is_kept_whole(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "k.cert"
    assert run(["octal", "0.77", "--certificate", cert], capsys)[0] == 0
    before = cert.read_bytes()
    assert run(["octal", "0.77", "--certificate", cert, "-o", cert], capsys)[0] == 2
    assert cert.read_bytes() == before
    assert run(["octal", "verify", cert], capsys)[0] == 0


@pytest.mark.parametrize("argv", [["octal", "0.77"], ["dfa", EXAMPLE, "A", "0"],
                                  ["game-graph", EXAMPLE, "A"], ["family", "subtraction", "1,2"]])
def test_an_output_named_like_a_folder_is_refused(argv: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Should refuse ``-o newdir/`` (old: a file named ``newdir``) and ``-o`` an existing
    folder, writing nothing."""
    for target in (f"{tmp_path / 'newdir'}/", str(tmp_path)):
        code, out, err = run([*argv, "-o", target], capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert "directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_output_over_an_input_of_any_command_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = tmp_path / "g.txt"
    grammar.write_text("A -> a A | a\n", encoding="utf-8")
    for argv in (["game-graph", grammar, "A"], ["dfa", grammar, "A", "0"]):
        code, _, err = run([*argv, "-o", tmp_path / "." / "g.txt"], capsys)
        assert code == 2 and "over the input" in err
    assert grammar.read_text(encoding="utf-8") == "A -> a A | a\n"


# -- an unproven run keeps the values asked for --------------------------------------------


def test_unproven_values_are_written_marked(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Should write the first K values of a run that proves no period, exact and marked
    unproven, still exit 3 (old: the values were discarded).  0.6 (Officers) is open."""
    truth = naive_values(OctalGame.parse("0.6"), 50)
    out_file = tmp_path / "v.json"
    code, out, err = run(["octal", "0.6", "--upto", "2000", "--values", "50", "--json",
                          "-o", out_file], capsys)
    assert code == 3 and "no period proven up to n = 1999" in err
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert (data["certified"], data["preperiod"], data["period"]) == (False, None, None)
    assert data["values"] == truth and data["checked_to"] == 2000
    assert json.loads(out)["schema"] == "stopped/1"  # stdout: the stop, as every exit 3
    code, out, _ = run(["octal", "0.6", "--upto", "2000", "--values", "50"], capsys)
    first, second = out.splitlines()
    assert code == 3 and first == "0.6: no period proven up to n = 1999"
    assert second == "values from n = 0, no period proven: " + " ".join(map(str, truth))


def test_unproven_without_values_writes_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "v.txt"
    code, _, _ = run(["octal", "0.6", "--upto", "2000", "-o", out_file], capsys)
    assert code == 3 and not out_file.exists()


# -- temporaries of killed writers -------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Should remove, on the next write in the folder, only the temporaries of this host's
    writers that are gone; leave a live writer's, another host's, and other files."""
    from sdg_automata.runtime import atomic

    host = atomic._HOST
    other_host = f"{(int(host, 16) + 1) % (1 << 32):08x}"
    dead = tmp_path / f".sdg-{_dead_pid()}-{host}-abc.tmp"
    alive = tmp_path / f".sdg-{os.getppid()}-{host}-abc.tmp"
    foreign = tmp_path / f".sdg-{_dead_pid()}-{other_host}-abc.tmp"
    old_style = tmp_path / ".sdg-x1y2z3.tmp"
    mine = tmp_path / "notes.tmp"
    for p in (dead, alive, foreign, old_style, mine):
        p.write_bytes(b"partial")
    code, _, _ = run(["octal", "0.77", "-o", tmp_path / "out.txt"], capsys)
    assert code == 0
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([alive.name, foreign.name, old_style.name, mine.name, "out.txt"])


def test_a_killed_checkpoint_writer_leaves_nothing_after_the_next_run(tmp_path: Path) -> None:
    """A SIGKILL in the middle of writing a checkpoint leaves its temporary file; the next
    run in the folder removes it."""
    ckpt = tmp_path / "run.ckpt"
    code = ("import os, signal\n"
            "from sdg_automata.runtime import atomic\n"
            f"with atomic.replacing({str(ckpt)!r}) as f:\n"
            "    f.write(b'half a checkpoint')\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run([sys.executable, "-c", code], timeout=120)
    assert done.returncode == -signal.SIGKILL
    (stale,) = [p for p in tmp_path.iterdir() if p.name.startswith(".sdg-")]
    assert not ckpt.exists()
    assert OctalGame.parse("0.77").period(checkpoint=str(ckpt)).period == 12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.ckpt"]
    assert not stale.exists()
