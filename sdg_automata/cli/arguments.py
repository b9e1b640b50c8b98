"""Argument types and the grammar argument shared by the commands.

:func:`positive`, :func:`natural` and :func:`duration` are argparse types (whole
numbers may be written 10^18, 10**18 or 1e18); :func:`add_grammar` and
:func:`load` are the GRAMMAR argument with ``--start`` in its role.
"""

from __future__ import annotations

import argparse
import re
from typing import Literal

from ..errors import InputError
from ..grammar import Grammar
from ..grammar.parse import load_grammar
from ..runtime.budget import Budget

__all__ = ["MAX_DIGITS", "StartRole", "add_grammar", "duration", "load", "natural", "positive"]


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
