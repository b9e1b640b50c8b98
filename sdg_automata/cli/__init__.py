"""The command line: ``python -m sdg_automata COMMAND ...`` (also ``sdg-automata``).

Results go to stdout, progress and warnings to stderr.  Every failure caused
by the input is one line ``error: ...`` on stderr, never a traceback.

Exit codes (a public promise, see :class:`~sdg_automata.cli.exits.ExitCode`):
0 success or "yes", 1 "no", 2 usage or input error, 3 budget or resource limit
(or a value that cannot be proven; a full disk; a lost Dask cluster), 130
interrupted (Ctrl-C), 143 terminated (SIGTERM, handled as Ctrl-C is).

Each command group is a module with a ``register(sub)`` function that names
its subcommands (:meth:`~sdg_automata.cli.parser.Commands.command`); adding a
command group is one module and one entry in :data:`GROUPS` (the module and the
commands it registers).  A command line that names a command imports that
command's group alone; ``--help``, no command or an unknown one import every group.
A group module imports no engine at its top: a command's parser is built, and its
engine imported, only when that command runs, so start-up stays that of a small
script (``tests/project/test_startup.py`` checks which modules a command loads).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from .. import __version__
from ..errors import (
    BudgetExceeded,
    ConvergenceError,
    InputError,
    Interrupted,
    ResourceError,
    SdgBug,
    SdgError,
)
from ..runtime.stopping import received, sigterm_as_interrupt
from .budgets import STARTED, notes
from .exits import NO_ROOM, ExitCode, fail
from .jsonout import SCHEMA, Reason, contradicted, emit_stopped
from .parser import Formatter, Parser, build_all, epilog
from .writing import check_files

__all__ = ["GROUPS", "build_parser", "main"]

#: the command groups, in the order ``--help`` lists them: each group's module (relative
#: to this package, or absolute) -> the commands it registers, so that a command line
#: imports the one group it runs (``tests/cli/test_cli_groups.py`` holds each group to
#: its list)
GROUPS: dict[str, tuple[str, ...]] = {
    ".grundy": ("check", "grundy"),
    ".automata": ("max", "dfa", "spectrum", "regex", "count"),
    ".games": ("moves", "play", "period", "graph", "game-graph"),
    ".family": ("family",),
    ".imark": ("imark",),
    ".octal": ("octal",),
    ".sweep": ("sweep",),
}

#: the installed command (``python -m sdg_automata`` runs the same)
PROG = "sdg-automata"

#: the examples ending ``sdg-automata --help``; each group module has an ``EXAMPLES`` table
#: (command -> 1-3 command lines on the bundled examples/, run by tests/cli/test_cli_help.py)
EXAMPLES = (
    "sdg-automata max examples/example3.txt A",
    "sdg-automata grundy examples/example3.txt A aa ab b",
    "sdg-automata octal 0.77 --values 12",
)


def _groups(command: str | None = None) -> list[ModuleType]:
    """The modules of the command groups (:data:`GROUPS`): the one that registers
    ``command``, or every one for ``None`` or a command no group lists."""
    chosen = [name for name, commands in GROUPS.items() if command in commands]
    return [importlib.import_module(name, __name__) for name in chosen or GROUPS]


def build_parser(*, lazy: bool = False, command: str | None = None
                 ) -> argparse.ArgumentParser:
    """The argument parser with every subcommand.

    ``lazy``: build a subcommand's arguments only when it is chosen (what
    :func:`main` does, so that a command loads only its own engine); by
    default every subcommand is complete (for shtab completion, for the tests).
    ``command``: the command about to run; the parser then knows its group's commands
    alone (:func:`_groups`).
    """
    chosen = _groups(command)
    examples: dict[str, Sequence[str]] = {"": EXAMPLES}
    for group in chosen:  # a group without examples builds; tests/cli/test_cli_help.py fails it
        examples.update(getattr(group, "EXAMPLES", {}))
    parser = Parser(
        prog=PROG,
        description="Impartial games as automata: Grundy numbers of successful derivation "
                    "games on grammars, their DFAs, Max-Grundy decisions, i-Mark, octal "
                    "games, and sweeps over every grammar or game of a size.",
        epilog=epilog(EXAMPLES),
        formatter_class=Formatter,
    )
    parser.examples = examples
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in chosen:
        group.register(sub)
    if not lazy:
        build_all(parser)
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


def _unwritable(e: OSError) -> NoReturn:
    """Report an output that cannot be written: a full disk (or quota, or file size
    limit) is a resource limit, exit 3; any other failure (a closed descriptor) exit 2."""
    _silence_stdout()
    fail(f"cannot write the output: {e.strerror or e}",
         ExitCode.BUDGET if e.errno in NO_ROOM else ExitCode.INPUT_ERROR)


def _flushed() -> None:
    """Flush stdout now, while a failure (a full disk, a closed descriptor) can be reported."""
    try:
        sys.stdout.flush()
    except OSError as e:
        _unwritable(e)


def _signalled(message: str) -> int:
    """One line for Ctrl-C or SIGTERM (which says so); the exit code 128 + the signal."""
    if received() == signal.SIGTERM:
        message = message.replace("interrupted", "terminated (SIGTERM)", 1)
        code = ExitCode.TERMINATED
    else:
        code = ExitCode.INTERRUPTED
    print(f"error: {message}", file=sys.stderr)
    return code


def _run(args: argparse.Namespace) -> int:
    from ..kernels import only_our_kernels  # here, not at the top: --help imports no engine

    only_our_kernels()  # numba skips scipy's BLAS (0.3 s of every compiled run)
    SCHEMA.set(getattr(args, "schema", None))
    check_files(args)  # one rule for every command: no output over an input or another output
    STARTED.set(time.perf_counter())  # --max-seconds bounds the whole command from here
    with notes():  # EngineNotice as one "note:" line each, KernelCacheWarning as "warning:"
        code = int(args.func(args))
    sys.stdout.flush()  # a full disk or a closed pipe shows here, while we can still say so
    return code


def _stopped(args: argparse.Namespace, message: str, *, reason: Reason = "budget",
             explored: int | None = None) -> NoReturn:
    """Exit 3: the ``error:`` line, and under --json the ``stopped/1`` object (one rule for
    every command; the "Command line" page of the documentation, "Exit codes")."""
    try:
        emit_stopped(args, message, reason=reason, explored=explored)
        sys.stdout.flush()
    except OSError:  # stdout unwritable: the error line still says what happened
        _silence_stdout()
    fail(message, ExitCode.BUDGET)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    # No command calls a BLAS (the one matrix product, imark's, is of integers), and the
    # thread pool OpenBLAS starts when numpy is imported costs 0.1 CPU s of every command
    # on two cores (more on more): one thread, unless the user says otherwise
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.stdin is None:
        sys.stdin = _ClosedStream("input")
    if sys.stdout is None:
        sys.stdout = _ClosedStream("output")
    words = sys.argv[1:] if argv is None else list(argv)
    # the command named first is the one that runs: its group alone is loaded (--help,
    # --version, no command or an unknown one: every group, as --help lists them all)
    parser = build_parser(lazy=True, command=words[0] if words else None)
    try:
        args = parser.parse_args(words)
    except SystemExit as e:  # --help, --version: printed; say so if the output was lost
        if e.code == 0:
            _flushed()
        raise
    except OSError as e:  # --help into a closed standard output
        _unwritable(e)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        fail("give a command (see the list above)")
    if (contradiction := contradicted(args)) is not None:
        fail(contradiction)
    try:
        with sigterm_as_interrupt():
            return _run(args)
    except InputError as e:
        fail(str(e))
    except (BudgetExceeded, ResourceError) as e:
        _stopped(args, str(e), explored=getattr(e, "explored", None))
    except ConvergenceError as e:
        _stopped(args, str(e), reason="unproven")
    except MemoryError:
        _stopped(args, "out of memory: the computation does not fit; give a smaller input or "
                       "a --max-states budget")
    except RecursionError:
        _stopped(args, "the input is nested too deeply to process")
    except Interrupted as e:
        return _signalled(str(e))
    except SdgBug as e:
        fail(f"internal error (a bug in sdg_automata; please report it): {e}", ExitCode.BUG)
    except SdgError as e:  # pragma: no cover - every SdgError should be one of the above
        fail(str(e), ExitCode.INPUT_ERROR)
    except KeyboardInterrupt:
        return _signalled("interrupted")
    except BrokenPipeError:  # `... | head`: not an error of ours
        _silence_stdout()
        sys.stderr.close()
        return ExitCode.OK
    except OSError as e:  # standard output unwritable (a full disk, a closed descriptor)
        _unwritable(e)
