"""The command line: ``python -m sdg_automata COMMAND ...`` (also ``sdg-automata``).

Results go to stdout, progress and warnings to stderr.  Every failure caused
by the input is one line ``error: ...`` on stderr, never a traceback.

Exit codes (a public promise, see :class:`~sdg_automata.cli.common.ExitCode`):
0 success or "yes", 1 "no", 2 usage or input error, 3 budget or resource limit
(or a value that cannot be proven), 130 interrupted.

Each command group is a module with a ``register(sub)`` function that adds its
subcommands; adding a command group is one module and one entry in
:data:`GROUPS`.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..errors import (
    BudgetExceeded,
    ConvergenceError,
    InputError,
    Interrupted,
    SdgBug,
    SdgError,
)
from . import automata, family, games, grundy, imark, octal, sweep
from .common import EPILOG, SCHEMA, ExitCode, Parser, fail, json_options, notes

__all__ = ["ExitCode", "GROUPS", "build_parser", "main"]

#: the command groups, in the order ``--help`` lists them
GROUPS = (grundy, automata, games, family, imark, octal, sweep)

#: the installed command (``python -m sdg_automata`` runs the same)
PROG = "sdg-automata"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = Parser(
        prog=PROG,
        description="Impartial games as automata: Grundy numbers of successful derivation "
                    "games on grammars, their DFAs, Max-Grundy decisions, i-Mark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for group in GROUPS:
        group.register(sub)
    json_options(parser)
    for p in sub.choices.values():
        p.epilog = p.epilog or EPILOG
        p.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


class _ClosedStream:
    """Stands in for a standard stream that was closed before we started (``<&-``, ``>&-``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, f"standard {self.name} is closed")

    def _closed(self, *_: Any) -> Any:
        if self.name == "input":
            raise InputError("standard input is closed")
        raise OSError(errno.EBADF, f"standard {self.name} is closed")

    read = readline = readlines = write = writelines = _closed

    def __iter__(self) -> Any:
        return self._closed()

    def flush(self) -> None:
        pass


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:  # pragma: no cover - nothing more can be done
        pass


def _flushed() -> None:
    """Flush stdout now, while a failure (a full disk, a closed descriptor) can be reported."""
    try:
        sys.stdout.flush()
    except OSError as e:
        _silence_stdout()
        fail(f"cannot write the output: {e.strerror or e}")


def _run(args: argparse.Namespace) -> int:
    SCHEMA.set(getattr(args, "schema", None))
    with notes():  # EngineNotice warnings as one "note:" line each
        code = int(args.func(args))
    sys.stdout.flush()  # a full disk or a closed pipe shows here, while we can still say so
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    if sys.stdin is None:
        sys.stdin = _ClosedStream("input")
    if sys.stdout is None:
        sys.stdout = _ClosedStream("output")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version: printed; say so if the output was lost
        if e.code == 0:
            _flushed()
        raise
    except OSError as e:  # --help into a closed standard output
        _silence_stdout()
        fail(f"cannot write the output: {e.strerror or e}")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        fail("give a command (see the list above)")
    try:
        return _run(args)
    except InputError as e:
        fail(str(e))
    except (BudgetExceeded, ConvergenceError) as e:
        fail(str(e), ExitCode.BUDGET)
    except MemoryError:
        fail("out of memory: the computation does not fit; give a smaller input or a "
             "--max-states budget", ExitCode.BUDGET)
    except RecursionError:
        fail("the input is nested too deeply to process", ExitCode.BUDGET)
    except Interrupted as e:
        print(f"error: {e}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except SdgBug as e:
        fail(f"internal error (a bug in sdg_automata; please report it): {e}", ExitCode.BUG)
    except SdgError as e:  # pragma: no cover - every SdgError should be one of the above
        fail(str(e), ExitCode.INPUT_ERROR)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `... | head`: not an error of ours
        _silence_stdout()
        sys.stderr.close()
        return ExitCode.OK
    except OSError as e:  # standard output unwritable (a full disk, a closed descriptor)
        _silence_stdout()
        fail(f"cannot write the output: {e.strerror or e}")
