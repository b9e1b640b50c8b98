"""The command line run in-process, for the CLI tests: ``run(argv, capsys)``."""

from __future__ import annotations

from typing import Any

import pytest

from sdg_automata.cli import main


def run(argv: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
