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
import errno
import functools
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from ..errors import BudgetExceeded, InputError, ResourceError
from ..grammar import Grammar
from ..grammar.parse import load_grammar
from ..runtime.budget import DEGRADED, Budget

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..automaton.construction import ReachableAutomaton

__all__ = [
    "DRAW_LIMIT", "EPILOG", "STOPPED", "Build", "Commands", "ExitCode", "Formatter",
    "INPUT_ARGUMENTS", "NO_ROOM", "Parser", "Reason", "SCHEMA", "STARTED", "StartRole",
    "add_budget", "add_drawing", "add_engine", "add_grammar", "add_output", "budget", "build_all",
    "check_plot", "check_visual", "contradicted", "deliver", "duration", "emit", "emit_stopped",
    "epilog", "explore", "fail", "finish", "json_options", "load", "natural", "notes", "output",
    "positive", "progress", "schema_name", "stamped", "unlimited_digits", "wants_json",
    "write_plot",
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
    #: terminated by SIGTERM (handled as Ctrl-C is: one line saying how far it got)
    TERMINATED = 143


EPILOG = """exit codes: 0 success / yes, 1 no, 2 usage or input error,
3 budget or resource limit (or value not provable), 4 internal error (a bug),
130 interrupted, 143 terminated (SIGTERM)"""


#: errno values of a write that failed for want of room (disk, quota, file size limit):
#: a resource limit, exit 3, not bad input
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def epilog(examples: Sequence[str] = ()) -> str:
    """The end of a command's ``--help``: the exit codes, then its example command lines
    (each runs from the repository's root on the bundled ``examples/``; a test runs them)."""
    lines = "".join(f"\n  {line}" for line in examples)
    return EPILOG + (f"\n\nexamples:{lines}" if examples else "")


class Formatter(argparse.HelpFormatter):
    """Descriptions and epilogs filled to the terminal's width paragraph by paragraph
    (blank lines kept); a paragraph whose lines are indented (examples) is left as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # here: only --help fills text

        return "\n\n".join(
            par if any(line.startswith(" ") for line in par.splitlines()) else textwrap.fill(
                " ".join(par.split()), width, initial_indent=indent, subsequent_indent=indent)
            for par in text.split("\n\n"))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``error:`` line and exit 2, and
    which takes no abbreviated options (``--max`` is not ``--max-states``: a later
    option must not change what an old command line means).  Its subcommands are
    :class:`Commands`.  A command's positionals may follow its options
    (``grundy G --start B ba``): argparse's intermixed parsing, for every parser
    without subcommands."""

    #: the command this parser reads, e.g. ``"imark value"`` (names its JSON schema)
    path = ""
    #: every command's example lines by command (``""``: the root), shared by the whole
    #: tree of parsers; a command's ``--help`` ends with its own (:func:`epilog`)
    examples: dict[str, Sequence[str]] = {}
    #: whether :func:`finish` has run on this parser
    finished = False
    #: for a command whose first word picks a form with options of its own (``octal
    #: survey``): that word -> the form's ``--help`` text (``None``: the command's own)
    form_help: Callable[[str], str | None] | None = None
    _intermixing = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if (not self._intermixing and self.form_help is not None and args
                and not {"-h", "--help"}.isdisjoint(args)
                and (text := self.form_help(args[0])) is not None):
            self._print_message(text, sys.stdout)  # as argparse prints --help
            self.exit()
        if self._intermixing or any(isinstance(a, argparse._SubParsersAction)
                                    for a in self._actions):
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # argparse's intermixed parsing calls us back: plain then
        try:
            return super().parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def add_subparsers(self, **kwargs: Any) -> Commands:
        kwargs.setdefault("parser_class", Parser)
        kwargs.setdefault("action", Commands)
        commands = super().add_subparsers(**kwargs)
        assert isinstance(commands, Commands)
        commands.path, commands.examples = self.path, self.examples
        return commands

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see '{self.prog} --help')")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:  # found by the chosen command's parser: point to its help, not the root's
            command = f"{self.prog} {getattr(parsed, 'command_path', '')}".strip()
            fail(f"unrecognized arguments: {' '.join(extra)} (see '{command} --help')")
        return parsed

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse swallows a failed write of --help or --version: let main report it
        if message:
            (file or sys.stderr).write(message)


#: adds a command's description and arguments to its parser; it may import the command's
#: engine, where its choices live (``--strategy`` offers the keys of ``decide.STRATEGIES``)
Build = Callable[["Parser"], None]


class Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Subcommands whose parsers are built only when needed.

    Start-up is part of the product (issue 18 §4): each command registers its
    name, its one-line help and a :data:`Build` function (:meth:`command`),
    which runs when the command is chosen on the command line, so
    ``sdg-automata max ...`` loads the engine of ``max`` and no other, and
    ``--help`` none.  :meth:`build` runs them ahead of time
    (:func:`~sdg_automata.cli.build_parser` does, for completion and the tests).
    """

    path = ""
    examples: dict[str, Sequence[str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._builders: dict[str, Build] = {}

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        path = f"{self.path} {name}".strip()
        kwargs.setdefault("epilog", epilog(self.examples.get(path, ())))
        kwargs.setdefault("formatter_class", Formatter)
        parser = super().add_parser(name, **kwargs)
        parser.path, parser.examples = path, self.examples
        return parser

    def command(self, name: str, build: Build, *, help: str) -> None:  # noqa: A002
        """Register the command ``name``; ``build`` adds its arguments when it is needed."""
        self.add_parser(name, help=help)
        self._builders[name] = build

    def build(self, name: str) -> Parser:
        """The complete parser of the command ``name`` (built now if it was not yet)."""
        parser: Parser = self.choices[name]
        builder = self._builders.pop(name, None)
        if builder is not None:
            builder(parser)
        finish(parser)
        return parser

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values and values[0] in self.choices:  # an unknown name: argparse says so
            self.build(values[0])
        super().__call__(parser, namespace, values, option_string)


def finish(parser: argparse.ArgumentParser) -> None:
    """Complete a built parser once: its JSON options (:func:`json_options`), and the
    command's name in ``args.command_path`` (for :func:`emit_stopped`)."""
    if not getattr(parser, "finished", True):
        path = getattr(parser, "path", "")
        json_options(parser, path)
        parser.set_defaults(command_path=path)
        parser.finished = True  # type: ignore[attr-defined]


def build_all(parser: argparse.ArgumentParser) -> None:
    """Build every subcommand of ``parser``, at every depth (see :class:`Commands`)."""
    finish(parser)
    for action in parser._actions:
        if isinstance(action, Commands):
            for name in action.choices:
                build_all(action.build(name))


def fail(message: str, code: int = ExitCode.INPUT_ERROR) -> NoReturn:
    """Print one ``error:`` line on stderr and exit with ``code``."""
    if sys.stderr is not None:
        print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


#: the schema of the running command's JSON objects (the package's ``schemas/NAME.json``), or None
SCHEMA: contextvars.ContextVar[str | None] = contextvars.ContextVar("SCHEMA", default=None)
#: the version of every schema in ``sdg_automata/schemas/``; raised when a field changes
#: meaning
SCHEMA_VERSION = 1
#: schemas raised since: ``max/2`` (long witnesses as runs, the ``engine`` field)
SCHEMA_VERSIONS = {"max": 2}


def schema_name(command: str) -> str:
    """The ``"schema"`` value of a command's JSON objects: ``NAME/VERSION``, where
    ``sdg_automata/schemas/NAME.json`` is the JSON Schema (``imark survey`` →
    ``imark-survey/1``)."""
    name = command.replace(" ", "-")
    return f"{name}/{SCHEMA_VERSIONS.get(name, SCHEMA_VERSION)}"


def stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with the running command's ``"schema"`` first (see :func:`schema_name`)."""
    name = SCHEMA.get()
    return obj if name is None else {"schema": name, **obj}


def emit(obj: Any) -> None:
    """One JSON object on one line of stdout, its ``"schema"`` first."""
    print(json.dumps(stamped(obj) if isinstance(obj, dict) else obj, ensure_ascii=False))


#: the schema of what a command prints under --json when it stops with exit 3
#: (``sdg_automata/schemas/stopped.json``; README, "Exit codes")
STOPPED = "stopped/1"
#: why a command stopped with exit 3: a budget or limit, or no value provable within them
Reason = Literal["budget", "unproven"]


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the command's output was asked for as JSON (``--json``, ``--format json``)."""
    return getattr(args, "json", None) is True or getattr(args, "format", None) in (
        "json", "jsonl")


def emit_stopped(args: argparse.Namespace, message: str, *, reason: Reason = "budget",
                 explored: int | None = None, at: dict[str, Any] | None = None) -> None:
    """Under JSON output, the :data:`STOPPED` object of a command that stops with exit 3
    (on stdout, never into ``-o``); the caller prints the ``error:`` line."""
    if wants_json(args):
        print(json.dumps(stamped({"schema": STOPPED, "command": getattr(args, "command_path", ""),
                                  "reason": reason, "error": message, "explored": explored,
                                  "at": at or {}}), ensure_ascii=False))


# -- arguments -----------------------------------------------------------------

#: what ``--start X`` does for a command (issue 21 §14: it was ignored where it meant nothing):
#: ``grammar``, only set the start symbol (``check``); ``nonterminal``, also name the
#: nonterminal the command works on, which must then agree with a NONTERMINAL given;
#: ``none``, refused: the command reads every nonterminal, or positions name theirs
StartRole = Literal["grammar", "nonterminal", "none"]
_START_HELP: dict[str, str] = {
    "grammar": "the start symbol (default: the file's 'start', else the first rule's head; "
               "pyformlang's text output lists rules in no fixed order)",
    "nonterminal": "the start symbol, and so the nonterminal worked on when none is given "
                   "(a NONTERMINAL given must be the same)",
    "none": "refused here: this command does not use a start symbol",
}


def add_grammar(p: argparse.ArgumentParser, *, nonterminal: bool = False,
                start: StartRole | None = None) -> None:
    """The GRAMMAR argument (and NONTERMINAL), and ``--start X`` in its ``start`` role
    (default: ``nonterminal`` with a NONTERMINAL, else ``grammar``)."""
    role = start or ("nonterminal" if nonterminal else "grammar")
    p.add_argument("grammar", metavar="GRAMMAR", help="grammar file (.json or text format)")
    if nonterminal:
        p.add_argument("nonterminal", metavar="NONTERMINAL", help="the nonterminal A")
    p.add_argument("--start", metavar="X", help=_START_HELP[role])
    p.set_defaults(start_role=role)


def load(args: argparse.Namespace) -> Grammar:
    """The grammar named by the GRAMMAR argument, with ``--start`` applied in its role.

    In the ``nonterminal`` role an optional NONTERMINAL that was left out is the start
    symbol, and for ``grundy`` a first argument that is no nonterminal is the first word
    (``grundy G --start B ba`` is 𝒢(B, ba)); ``args`` is completed accordingly.
    """
    g = load_grammar(args.grammar)
    start = getattr(args, "start", None)
    if start is None:
        return g
    role = getattr(args, "start_role", "grammar")
    if role == "none":
        raise InputError(f"--start does not apply to {getattr(args, 'command_path', 'this')}: "
                         "it uses no start symbol (it reads every nonterminal, or the "
                         "positions name theirs)")
    if start not in g.nonterminals:
        raise InputError(f"--start {start!r}: not a nonterminal of {args.grammar} "
                         f"(it has {', '.join(g.nonterminals[:10])}"
                         f"{', ...' if len(g.nonterminals) > 10 else ''})")
    named = getattr(args, "nonterminal", None)
    if role == "nonterminal" and hasattr(args, "words") and not getattr(args, "position", None):
        if named is not None and named not in g.nonterminals:  # a word, not NONTERMINAL
            args.words = [named, *args.words]
            named = None
        if named is None:
            args.nonterminal = named = start
    if role == "nonterminal" and named is not None and named != start:
        raise InputError(f"--start {start} and NONTERMINAL {named} name different "
                         "nonterminals: give one of them")
    if start != g.start:
        g = Grammar(rules=g.rules, start=start, terminals=g.terminals)
    return g


class _FormatAsJson(argparse.Action):
    """``--format text|json`` on a command that has ``--json``: the same flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values == "text" and getattr(namespace, self.dest, False) is True:
            parser.error("--json and --format text contradict each other")
        setattr(namespace, self.dest, values == "json")
        namespace.format_said = (self.dest, values)  # --json after it: see contradicted()


def contradicted(args: argparse.Namespace) -> str | None:
    """The contradiction of ``--format text`` followed by ``--json`` (the other order is
    refused while parsing), or ``None``."""
    said = getattr(args, "format_said", None)
    if said is not None and said[1] == "text" and getattr(args, said[0], False) is True:
        return "--format text and --json contradict each other"
    return None


def json_options(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Accept both ``--json`` and ``--format json`` wherever a JSON form exists, and
    name the command's JSON schema (for :func:`emit`).

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
                       help="stop with exit 3 after S seconds (the whole command, every "
                            "phase included)")


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
    stderr each, :class:`~sdg_automata.errors.KernelCacheWarning` as one ``warning:`` line
    (others as Python shows them)."""
    import warnings

    from ..errors import EngineNotice, KernelCacheWarning

    shown = warnings.showwarning

    def show(message: Any, category: type[Warning], *rest: Any, **kw: Any) -> None:
        if issubclass(category, EngineNotice):
            print(f"note: {message}", file=sys.stderr)
        elif issubclass(category, KernelCacheWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("default", EngineNotice)
        warnings.simplefilter("default", KernelCacheWarning)
        warnings.showwarning = show
        yield


#: when the running command started (:func:`time.perf_counter`): ``--max-seconds`` counts
#: from here, over every phase of the command (set by :func:`sdg_automata.cli.main`)
STARTED: contextvars.ContextVar[float | None] = contextvars.ContextVar("STARTED", default=None)


def budget(args: argparse.Namespace, progress: Callable[[int], None] | None = None, *,
           each: bool = False) -> Budget:
    """The :class:`Budget` the options of ``args`` ask for.

    ``--max-seconds`` bounds the whole command: every phase shares the deadline
    counted from the command's start (:data:`STARTED`).  ``each``: the seconds
    are per item instead, each phase with its own clock (a word of ``grundy``,
    a job of a sweep, an analysis of ``play``), as those commands document.  On
    a system where budgets are weaker (:data:`sdg_automata.runtime.budget.DEGRADED`), a
    ``--max-seconds`` says how, once.
    """
    limits = Budget(max_states=getattr(args, "max_states", None),
                    max_seconds=getattr(args, "max_seconds", None), progress=progress,
                    since=None if each else STARTED.get())
    if limits.max_seconds is not None and DEGRADED:
        _say_degraded()
    return limits


@functools.cache
def _say_degraded() -> None:
    if sys.stderr is not None:
        print(f"note: budgets are weaker on this system ({'; '.join(DEGRADED)})",
              file=sys.stderr)


# -- progress on stderr ----------------------------------------------------------

@contextlib.contextmanager
def progress(description: str, *, enabled: bool = True, unit: str = "states",
             rate: bool = False) -> Iterator[Callable[[int], None] | None]:
    """A rich progress display on stderr, or ``None`` when stderr is not a terminal;
    ``rate`` adds the count per second since the start."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  TextColumn("{task.completed:,} " + unit), TextColumn("{task.fields[rate]}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None, rate="")

        def report(n: int) -> None:
            seconds = time.monotonic() - started
            speed = f"{n / seconds:,.0f} {unit}/s" if rate and seconds > 0.5 else ""
            bar.update(task, completed=n, rate=speed)

        yield report


def explore(args: argparse.Namespace, g: Grammar) -> ReachableAutomaton:
    """The reachable automaton serving ``g`` (its mirror's when left-linear), with progress."""
    from ..automaton.construction import automaton_for

    with progress("building the automaton", enabled=not getattr(args, "json", False)) as bar:
        return automaton_for(g).explore(budget(args, bar),
                                        engine=getattr(args, "engine", "auto"))


# -- output ------------------------------------------------------------------------

#: the argument names that hold input files (an output may never replace one)
INPUT_ARGUMENTS = ("grammar", "within", "words_from", "graph", "file")


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
    import tempfile  # here: tempfile loads random, shutil and more, for commands that write

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


def output(args: argparse.Namespace, data: str | bytes, *, to: str | None = None,
           option: str = "-o") -> None:
    """Write a result to ``-o FILE`` when given (atomically), else to stdout.

    ``to`` names another file option's value (``--plot OUT``), written the same
    way: atomically, never over one of the command's inputs (a link to one
    included); a full disk is :class:`~sdg_automata.errors.ResourceError`.
    """
    path = getattr(args, "output", None) if to is None else to
    if path == "":
        raise InputError(f"{option} needs a file name")
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
            fault = ResourceError if e.errno in NO_ROOM else InputError
            raise fault(f"cannot write {path!r}: {e.strerror or e}") from None
    elif isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def check_plot(path: str, last: int | None = None, *, option: str | None = None) -> None:
    """Refuse a ``--plot FILE`` before any work: a file type it cannot write, no
    matplotlib, and where ``option N`` bounds what is drawn (the values 0..N), no N or
    too many values."""
    from ..render.plots import MAX_POINTS, plot_suffix, require_plot

    plot_suffix(path)
    if option is not None:
        if last is None:
            raise InputError(f"--plot draws the values of 0..N: give {option} N")
        if last >= MAX_POINTS:
            raise InputError(f"--plot draws at most {MAX_POINTS:,} values: {option} {last:,} "
                             "is beyond")
    require_plot()


def write_plot(args: argparse.Namespace, figure: Figure) -> None:
    """Write ``figure`` to ``--plot FILE`` as every output file is written (atomically,
    never over an input: :func:`output`), and say so on stderr."""
    from ..render.plots import figure_bytes

    output(args, figure_bytes(figure, args.plot), to=args.plot, option="--plot")
    print(f"wrote {args.plot}", file=sys.stderr)


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
    ``--max-draw-states`` before Graphviz runs; the layout gets what is left of
    ``--max-seconds`` (the command's one deadline).
    """
    from ..render import dot_to_png, dot_to_svg

    data: str | bytes = text
    if args.format in ("svg", "png") and size > args.max_draw_states:
        raise BudgetExceeded(f"refusing to draw {size} states or positions with Graphviz (more "
                             f"than --max-draw-states {args.max_draw_states}); use --format dot "
                             "or text, or raise --max-draw-states")
    seconds = None
    if args.format in ("svg", "png") and getattr(args, "max_seconds", None) is not None:
        meter = budget(args).start("Graphviz layout", unit="states or positions")
        seconds = meter.deadline - time.perf_counter()
        if seconds <= 0:
            raise meter.exceeded(size, f"{args.max_seconds:g} s")
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
