"""The command line's parsers: one ``error:`` line on bad usage, no abbreviated
options, and subcommands whose parsers are built only when chosen (issue 18 §4).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .exits import EPILOG, fail
from .jsonout import json_options

__all__ = ["Build", "Commands", "Formatter", "Parser", "build_all", "epilog", "finish"]


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
#: engine, where its choices live (``--strategy`` offers the names of
#: ``search.strategies.STRATEGIES``)
Build = Callable[["Parser"], None]


class Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Subcommands whose parsers are built only when needed.

    Start-up is part of the product (issue 18 §4): each command registers its
    name, its one-line help and a :data:`Build` function (:meth:`command`); its
    parser is made, and the function run, when the command is chosen on the command
    line, so ``sdg-automata max ...`` builds one parser and loads the engine of ``max``
    and no other, and ``--help`` none.  :meth:`build` runs them ahead of time
    (:func:`~sdg_automata.cli.build_parser` does, for completion and the tests).
    """

    path = ""
    examples: dict[str, Sequence[str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._builders: dict[str, Build] = {}

    def _made(self, name: str) -> Parser:
        """The parser of a command registered by :meth:`command`, made now in its place: its
        name after its parent's, its examples ending its ``--help``, its :class:`Formatter`
        (``--help`` lists it by the line :meth:`command` made)."""
        path = f"{self.path} {name}".strip()
        parser: Parser = self._parser_class(
            prog=f"{self._prog_prefix} {name}", epilog=epilog(self.examples.get(path, ())),
            formatter_class=Formatter)
        parser.path, parser.examples = path, self.examples
        self._name_parser_map[name] = parser  # the same key: the commands keep their order
        return parser

    def command(self, name: str, build: Build, *, help: str) -> None:  # noqa: A002
        """Register the command ``name``: its line of ``--help`` now; its parser, and the
        arguments ``build`` adds to it, when it is needed.  An argparse parser costs about
        what importing a small module does, and ``max`` has 15 siblings it never reads."""
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        self._name_parser_map[name] = None  # made by build(); argparse only tests the name
        self._builders[name] = build

    def build(self, name: str) -> Parser:
        """The complete parser of the command ``name`` (built now if it was not yet)."""
        parser: Parser = self.choices[name] or self._made(name)
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
