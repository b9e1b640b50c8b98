"""The process-level entry points (``python -m sdg_automata`` and the ``sdg-automata``
script named in pyproject.toml): they exit with the command line's code, and leave the
cyclic collector running after loading (paused while it loads, then frozen)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script_target() -> str:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(project["project"]["scripts"]["sdg-automata"])


@pytest.mark.parametrize(("words", "code"), [(["--version"], 0), (["no-such-command"], 2),
                                             (["max", "/nonexistent.json", "A", "2"], 2)])
def test_the_script_exits_with_the_command_lines_code(words: list[str], code: int) -> None:
    module, _, function = _script_target().partition(":")
    probe = (f"import gc, sys\nsys.argv = ['sdg-automata', *{words!r}]\n"
             f"from {module} import {function} as entry\n"
             "try:\n    entry()\nexcept SystemExit as e:\n"
             "    print('EXIT', e.code, gc.isenabled(), gc.get_freeze_count() > 0)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert f"EXIT {code} True True" in done.stdout, done.stderr


def test_python_dash_m_runs_the_same_entry() -> None:
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "max",
                           str(ROOT / "examples" / "example3.json"), "A", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "yes\n"  # the paper's Example 3: the maximum of 𝒢_{G,A} is 2


def test_the_library_entry_freezes_nothing() -> None:
    """``cli.main`` (what a notebook or a test calls) leaves the collector as it was."""
    probe = ("import gc\nfrom sdg_automata.cli import main\n"
             "try:\n    main(['no-such-command'])\nexcept SystemExit as e:\n"
             "    print('EXIT', e.code, gc.isenabled(), gc.get_freeze_count())\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert "EXIT 2 True 0" in done.stdout, done.stderr
