"""The command line run in-process, for the CLI tests: ``run(argv, capsys)``, and the one
``error:`` line a refusal prints (``one_error``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sdg_automata.cli import main

#: the tests folder
TESTS = Path(__file__).resolve().parent


def run(argv: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def fresh(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -c script tests/ *args`` in a fresh interpreter from the repository's root
    (``sys.argv[1]`` is the tests folder, for the helper modules): what happens first thing
    in a program, before the package is imported."""
    return subprocess.run([sys.executable, "-c", script, str(TESTS), *args],
                          capture_output=True, text=True, cwd=TESTS.parent, timeout=120)


def one_error(err: str, *fragments: str) -> str:
    """The one line of ``err``, an ``error:`` line holding each of ``fragments``."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]
