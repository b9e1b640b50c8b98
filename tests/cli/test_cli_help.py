"""Every command's ``--help`` ends with 1–3 example command lines, and each one works
(issue 22 §3).

The examples are read from the help text a user sees (``sdg-automata CMD --help``),
and each line runs in bash, as typed, from a folder holding a copy of the bundled
``examples/``, with ``sdg-automata`` standing for this checkout's ``python -m
sdg_automata``; the exit status is the one a shell sees.  A command added without
examples fails ``test_every_help_ends_with_examples``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from clirun import run

from sdg_automata.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
#: the most an example may print on stdout: a screenful or two
MAX_EXAMPLE_OUTPUT = 2000


def _commands(parser: argparse.ArgumentParser, name: str = "") -> Iterator[str]:
    yield name
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, p in action.choices.items():
                yield from _commands(p, f"{name} {sub}".strip())


COMMANDS = list(_commands(build_parser()))


def _examples(help_text: str) -> list[str]:
    """The example lines ending a help text (none when it does not end with them)."""
    head, found, tail = help_text.rpartition("\nexamples:\n")
    lines = tail.rstrip("\n").split("\n")
    if not found or not all(line.startswith("  sdg-automata ") or line.startswith("  printf ")
                            for line in lines):
        return []
    return [line.strip() for line in lines]


def _help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run([*command.split(), "--help"], capsys)
    assert code == 0 and not err
    return out


def test_every_command_is_found() -> None:
    assert {"", "max", "imark value", "octal", "sweep summarize", "family random"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c or "sdg-automata")
def test_every_help_ends_with_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Should end ``--help`` with 1–3 example lines that use the command."""
    lines = _examples(_help(command, capsys))
    assert 1 <= len(lines) <= 3, f"'{command} --help' does not end with 1-3 examples"
    for line in lines:
        assert f"sdg-automata {command}".strip() in line, line
        assert "examples/" in line or "examples" not in line  # bundled inputs only


def _all_examples() -> list[tuple[str, str]]:
    parser = build_parser()
    found = []
    for command in COMMANDS:
        p = parser
        for word in command.split():
            sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
            p = sub.choices[word]
        found += [(command, line) for line in _examples(p.format_help())]
    return found


EXAMPLES = _all_examples()


@pytest.fixture(scope="module")
def playground(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a copy of examples/, where the examples write their files."""
    folder = tmp_path_factory.mktemp("examples")
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder


@pytest.mark.parametrize(("command", "line"), EXAMPLES,
                         ids=[f"{c or 'sdg-automata'}:{k}" for k, (c, _) in enumerate(EXAMPLES)])
def test_each_example_runs(command: str, line: str, playground: Path) -> None:
    """Should exit 0 (the shell's status, the last command of the line) without an error."""
    script = f'sdg-automata() {{ {shlex.quote(sys.executable)} -m sdg_automata "$@"; }}\n{line}\n'
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script], cwd=playground, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, (line, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "error:" not in done.stderr, done.stderr
    # an example shows what a command does; it must not flood the terminal (issue 28 §4:
    # count --length 1000000 --json printed a 301,030-digit integer)
    assert len(done.stdout) < MAX_EXAMPLE_OUTPUT, f"{line}: {len(done.stdout):,} characters"
    words = shlex.split(line)
    written = [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("-o", "--out", ">")]
    assert done.stdout.strip() or written, f"{line}: no output"
    for name in written:  # what -o/--out names was written, and is not empty
        assert (playground / name).stat().st_size > 0, name


@pytest.mark.parametrize("command", [c for c in COMMANDS if c and c != "sweep"])
def test_an_unknown_option_points_to_the_commands_help(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Should name the chosen command's --help, not the root's, for an option it lacks (the
    command's required arguments are missing too: whichever argparse reports, one line)."""
    code, out, err = run([*command.split(), "--no-such-option"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: ") and f"(see 'sdg-automata {command} --help')" in err, err
