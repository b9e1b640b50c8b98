"""What every command shares: exit codes, argument helpers, budgets, progress, output.

Outputs are written atomically (a temporary file in the same folder, then
``os.replace``), so a failed write leaves the old file as it was, and never
over one of the command's own inputs.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import enum
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

from ..budget import Budget
from ..errors import BudgetExceeded, InputError
from ..grammar import Grammar
from ..parse import load_grammar

if TYPE_CHECKING:
    from ..construction import ReachableAutomaton

__all__ = [
    "DRAW_LIMIT", "EPILOG", "ExitCode", "INPUT_ARGUMENTS", "Parser", "SCHEMA", "add_budget",
    "add_drawing", "add_engine", "add_grammar", "add_output", "budget", "check_visual",
    "deliver", "duration", "emit", "explore", "fail", "json_options", "load", "natural", "notes",
    "output", "positive", "progress", "schema_name", "stamped", "unlimited_digits",
]


class ExitCode(enum.IntEnum):
    """Exit statuses of the command line (a public promise)."""

    #: success; for decision commands, the answer is "yes"
    OK = 0
    #: a decision command's answer is "no"
    NO = 1
    #: bad usage or bad input (file, grammar, word, option)
    INPUT_ERROR = 2
    #: a budget (--max-states, --max-seconds, memory) ran out, or no value could be proven
    BUDGET = 3
    #: an internal consistency check failed: a bug in sdg_automata (please report it)
    BUG = 4
    #: interrupted by Ctrl-C
    INTERRUPTED = 130


EPILOG = """exit codes: 0 success / yes, 1 no, 2 usage or input error,
3 budget or resource limit (or value not provable), 4 internal error (a bug),
130 interrupted"""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``error:`` line and exit 2, and
    which takes no abbreviated options (``--max`` is not ``--max-states``: a later
    option must not change what an old command line means)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see '{self.prog} --help')")

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse swallows a failed write of --help or --version: let main report it
        if message:
            (file or sys.stderr).write(message)


def fail(message: str, code: int = ExitCode.INPUT_ERROR) -> NoReturn:
    """Print one ``error:`` line on stderr and exit with ``code``."""
    if sys.stderr is not None:
        print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


#: the schema of the running command's JSON objects (``docs/schemas/NAME.json``), or None
SCHEMA: contextvars.ContextVar[str | None] = contextvars.ContextVar("SCHEMA", default=None)
#: the version of every schema in ``docs/schemas/``; raised when a field changes meaning
SCHEMA_VERSION = 1
#: schemas raised since: ``max/2`` (long witnesses as runs, the ``engine`` field)
SCHEMA_VERSIONS = {"max": 2}


def schema_name(command: str) -> str:
    """The ``"schema"`` value of a command's JSON objects: ``NAME/VERSION``, where
    ``docs/schemas/NAME.json`` is the JSON Schema (``imark survey`` → ``imark-survey/1``)."""
    name = command.replace(" ", "-")
    return f"{name}/{SCHEMA_VERSIONS.get(name, SCHEMA_VERSION)}"


def stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with the running command's ``"schema"`` first (see :func:`schema_name`)."""
    name = SCHEMA.get()
    return obj if name is None else {"schema": name, **obj}


def emit(obj: Any) -> None:
    """One JSON object on one line of stdout, its ``"schema"`` first."""
    print(json.dumps(stamped(obj) if isinstance(obj, dict) else obj, ensure_ascii=False))


# -- arguments -----------------------------------------------------------------

def add_grammar(p: argparse.ArgumentParser, *, nonterminal: bool = False) -> None:
    """The GRAMMAR argument (and NONTERMINAL), and ``--start X``."""
    p.add_argument("grammar", metavar="GRAMMAR", help="grammar file (.json or text format)")
    if nonterminal:
        p.add_argument("nonterminal", metavar="NONTERMINAL", help="the nonterminal A")
    p.add_argument("--start", metavar="X",
                   help="the start symbol (default: the file's 'start', else the first rule's "
                        "head; pyformlang's text output lists rules in no fixed order)")


def load(args: argparse.Namespace) -> Grammar:
    """The grammar named by the GRAMMAR argument, with ``--start`` applied."""
    g = load_grammar(args.grammar)
    start = getattr(args, "start", None)
    if start is not None and start != g.start:
        if start not in g.nonterminals:
            raise InputError(f"--start {start!r}: not a nonterminal of {args.grammar} "
                             f"(it has {', '.join(g.nonterminals[:10])}"
                             f"{', ...' if len(g.nonterminals) > 10 else ''})")
        g = Grammar(rules=g.rules, start=start, terminals=g.terminals)
    return g


class _FormatAsJson(argparse.Action):
    """``--format text|json`` on a command that has ``--json``: the same flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values == "json")


def json_options(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Accept both ``--json`` and ``--format json`` wherever a JSON form exists, and
    name each command's JSON schema (for :func:`emit`), on ``parser`` and every subcommand.

    A command with ``--json`` gains ``--format {text,json}``; a command whose
    ``--format`` offers ``json`` gains ``--json`` (short for ``--format json``).
    """
    options = {o: a for a in parser._actions for o in a.option_strings}
    has_json, fmt = "--json" in options, options.get("--format")
    if has_json and fmt is None:
        parser.add_argument("--format", choices=("text", "json"), action=_FormatAsJson,
                            dest=options["--json"].dest,
                            help="--format json is --json; text (the default) is for people")
    elif fmt is not None and not has_json and "json" in (fmt.choices or ()):
        parser.add_argument("--json", action="store_const", dest=fmt.dest, const="json",
                            help="the same as --format json")
    if has_json or (fmt is not None and "json" in (fmt.choices or ())):
        parser.set_defaults(schema=schema_name(command))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                json_options(sub, f"{command} {name}".strip())


_NUMBER = re.compile(r"(-?\d+)(?:(\^|\*\*)(\d+)|[eE](\d+))?")
#: the most digits a number on the command line may have (10^1000000 is accepted)
MAX_DIGITS = 10**6


def _whole(text: str, least: int, what: str) -> int:
    """A whole number, also written 10^18, 10**18 or 1e18 (the notation of huge positions)."""
    match = _NUMBER.fullmatch(text.strip().replace("_", ""))
    if not match or len(match.group(1)) > 4000:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a {what} (write e.g. 1000000, 10^18, 10**18 or 1e18)")
    base, _, power, exp10 = match.groups()
    value = int(base)
    digits = len(str(abs(value))) if value else 1
    if (power is not None and abs(value) > 1 and digits * int(power) > MAX_DIGITS) or (
            exp10 is not None and value and int(exp10) > MAX_DIGITS):
        raise argparse.ArgumentTypeError(f"{text!r} has more than {MAX_DIGITS:,} digits")
    if power is not None:
        value = value ** int(power)
    elif exp10 is not None:
        value = value * 10 ** int(exp10)
    if value < least:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be at least 1" if least else
            f"{text!r} must be a natural number (0, 1, 2, ...)")
    return value


def positive(text: str) -> int:
    """An argparse type: a whole number ≥ 1."""
    return _whole(text, 1, "whole number")


def natural(text: str) -> int:
    """An argparse type: a whole number ≥ 0."""
    return _whole(text, 0, "natural number")


def duration(text: str) -> float:
    """An argparse type: a positive finite number of seconds (validated by :class:`Budget`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    try:
        Budget(max_seconds=value)
    except InputError:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be a positive finite number of seconds") from None
    return value


def add_budget(p: argparse.ArgumentParser, *, states: bool = True, seconds: bool = True) -> None:
    """``--max-states`` and ``--max-seconds``: the phase stops with exit 3, saying how far."""
    if states:
        p.add_argument("--max-states", type=positive, metavar="N",
                       help="stop with exit 3 once N states are needed")
    if seconds:
        p.add_argument("--max-seconds", type=duration, metavar="S",
                       help="stop with exit 3 after S seconds")


def add_engine(p: argparse.ArgumentParser) -> None:
    """``--engine auto|compiled|python``: the compiled kernels or the Python reference
    (:mod:`sdg_automata.kernels`)."""
    from ..kernels import ENGINES

    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="compiled: the numba kernels; python: the pure-Python reference; "
                        "auto (default): compiled for runs large enough to repay loading numba")


@contextlib.contextmanager
def notes() -> Iterator[None]:
    """Show :class:`~sdg_automata.errors.EngineNotice` warnings as one ``note:`` line on
    stderr each (others as Python shows them)."""
    import warnings

    from ..errors import EngineNotice

    shown = warnings.showwarning

    def show(message: Any, category: type[Warning], *rest: Any, **kw: Any) -> None:
        if issubclass(category, EngineNotice):
            print(f"note: {message}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("default", EngineNotice)
        warnings.showwarning = show
        yield


def budget(args: argparse.Namespace,
           progress: Callable[[int], None] | None = None) -> Budget:
    """The :class:`Budget` the options of ``args`` ask for."""
    return Budget(max_states=getattr(args, "max_states", None),
                  max_seconds=getattr(args, "max_seconds", None), progress=progress)


# -- progress on stderr ----------------------------------------------------------

@contextlib.contextmanager
def progress(description: str, *, enabled: bool = True,
             unit: str = "states") -> Iterator[Callable[[int], None] | None]:
    """A rich progress display on stderr, or ``None`` when stderr is not a terminal."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  TextColumn("{task.completed:,} " + unit), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None)
        yield lambda n: bar.update(task, completed=n)


def explore(args: argparse.Namespace, g: Grammar) -> ReachableAutomaton:
    """The reachable automaton serving ``g`` (its mirror's when left-linear), with progress."""
    from ..construction import automaton_for

    with progress("building the automaton", enabled=not getattr(args, "json", False)) as bar:
        return automaton_for(g).explore(budget(args, bar),
                                        engine=getattr(args, "engine", "auto"))


# -- output ------------------------------------------------------------------------

#: the argument names that hold input files (an output may never replace one)
INPUT_ARGUMENTS = ("grammar", "within", "words_from", "graph")


def add_output(p: argparse.ArgumentParser) -> None:
    """``-o FILE``: written atomically, never over an input."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE instead of stdout (atomically; never over an input)")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_atomically(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that any failure leaves the old file untouched.

    A symbolic link is followed (its target is replaced, the link stays); a path
    that is not a regular file (a device such as /dev/null, a FIFO) is written
    in place, as there is no old content to keep.
    """
    blob = data if isinstance(data, bytes) else data.encode("utf-8")
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as f:
            f.write(blob)
        return
    fd, tmp = tempfile.mkstemp(prefix=".sdg-", suffix=".tmp", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        # the old file's permissions, or those of a new file (mkstemp's are 0600)
        os.chmod(tmp, mode & 0o7777 if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def output(args: argparse.Namespace, data: str | bytes) -> None:
    """Write a result to ``-o FILE`` when given (atomically), else to stdout."""
    path = getattr(args, "output", None)
    if path == "":
        raise InputError("-o needs a file name")
    if path:
        for name in INPUT_ARGUMENTS:
            given = getattr(args, name, None)
            if isinstance(given, str) and given != "-" and _same_file(given, path):
                raise InputError(f"refusing to write the output over the input {given!r}")
        if os.path.isdir(path):
            raise InputError(f"cannot write {path!r}: it is a directory")
        try:
            _write_atomically(path, data)
        except OSError as e:
            raise InputError(f"cannot write {path!r}: {e.strerror or e}") from None
    elif isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def check_visual(args: argparse.Namespace) -> None:
    """Fail before any work when SVG/PNG is asked for and Graphviz is missing."""
    if args.format in ("svg", "png"):
        from ..render import require_visual

        require_visual(args.format.upper())


#: drawings (SVG, PNG) with more states or positions are refused unless --max-draw-states
#: says otherwise: Graphviz's layout of a few thousand nodes takes minutes
DRAW_LIMIT = 500


def add_drawing(p: argparse.ArgumentParser) -> None:
    """``--max-draw-states``: the size guard checked before Graphviz is called."""
    p.add_argument("--max-draw-states", type=positive, default=DRAW_LIMIT, metavar="N",
                   help=f"--format svg/png: refuse drawings of more than N states or positions "
                        f"(default {DRAW_LIMIT}; Graphviz's layout grows fast)")


def deliver(args: argparse.Namespace, text: str, *, size: int = 0) -> None:
    """Write ``text`` (DOT for --format svg/png, which Graphviz lays out) to -o or stdout.

    ``size`` is the number of states or positions drawn, checked against
    ``--max-draw-states`` before Graphviz runs; ``--max-seconds`` bounds the layout.
    """
    from ..render import dot_to_png, dot_to_svg

    data: str | bytes = text
    if args.format in ("svg", "png") and size > args.max_draw_states:
        raise BudgetExceeded(f"refusing to draw {size} states or positions with Graphviz (more "
                             f"than --max-draw-states {args.max_draw_states}); use --format dot "
                             "or text, or raise --max-draw-states")
    seconds = getattr(args, "max_seconds", None)
    if args.format == "svg":
        data = dot_to_svg(text, max_seconds=seconds)
    elif args.format == "png":
        data = dot_to_png(text, max_seconds=seconds)
        if not args.output and sys.stdout.isatty():
            raise InputError("--format png is binary: give -o FILE (or redirect stdout)")
    output(args, data)


@contextlib.contextmanager
def unlimited_digits() -> Iterator[None]:
    """Let exact integers of any size be printed (the guard is for untrusted parsing)."""
    setter = getattr(sys, "set_int_max_str_digits", None)
    if setter is None:  # Python < 3.10.7 has no limit
        yield
        return
    old = sys.get_int_max_str_digits()
    setter(0)
    try:
        yield
    finally:
        setter(old)
