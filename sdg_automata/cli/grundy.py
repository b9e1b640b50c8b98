"""Commands on grammars and words: ``check`` and ``grundy`` (SPEC §1–2)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any, get_args

from ..errors import InputError, brief
from ..grammar import Grammar
from ..grammar.parse import read_text
from .arguments import add_grammar, duration, load
from .budgets import budget, progress
from .exits import ExitCode
from .jsonout import emit
from .parser import Commands, Parser

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "check": ("sdg-automata check examples/dyck.txt",),
    "grundy": ("sdg-automata grundy examples/example3.txt A aa ab b",
               "sdg-automata grundy examples/dyck.txt S abab aabb --json"),
}


def _add_check(p: Parser) -> None:
    p.description = ("Validate a grammar file and print its classification, alphabet, "
                     "nonterminals and rule count.")
    add_grammar(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    g = load(args)
    info = {
        "grammar": args.grammar,
        "kind": g.kind,
        "start": g.start,
        "nonterminals": list(g.nonterminals),
        "terminals": "".join(g.terminals),
        "rules": len(g.rules),
    }
    if args.json:
        emit(info)
    else:
        print(f"{args.grammar}: valid {g.kind} grammar")
        print(f"start:        {g.start}")
        print(f"nonterminals: {_listing(g.nonterminals)}")
        print(f"terminals:    {_listing(g.terminals) or '(none)'}")
        print(f"rules:        {len(g.rules)}")
    return ExitCode.OK


def _listing(names: tuple[str, ...], limit: int = 12) -> str:
    """``A, B, C``; a long list keeps its ends and says how long it is (--json has all)."""
    if len(names) <= limit:
        return ", ".join(names)
    head, tail = names[: limit - 3], names[-2:]
    return (f"{', '.join(head)}, …, {', '.join(tail)} ({len(names):,} in all; "
            "--json lists every one)")


def _add_grundy(p: Parser) -> None:
    from ..derivation.semantics import Method

    p.description = ("Print 𝒢_{G,A}(w) for each word, one line per word (a number or "
                     "'not a position'); or, with --position, the XOR of a multiset position. "
                     "With --start X the nonterminal may be left out: then every argument "
                     "after GRAMMAR that is not a nonterminal is a word of X.")
    add_grammar(p, start="nonterminal")
    p.add_argument("nonterminal", metavar="NONTERMINAL", nargs="?", help="the nonterminal A")
    p.add_argument("words", metavar="WORD", nargs="*", help="words to evaluate")
    p.add_argument("--words-from", metavar="FILE",
                   help="read further words from FILE, one per line ('-' for stdin); a blank "
                        "line is the empty word, 'not a position', so output lines match "
                        "input lines")
    p.add_argument("--position", metavar="A:w", nargs="+",
                   help="a multiset position, e.g. --position A:aab B:ba")
    p.add_argument("--method", choices=get_args(Method), default="auto",
                   help="auto: the automaton for right/left-linear grammars, the substring DP "
                        "otherwise; dfa: the automaton; brute: the exact dynamic programs; "
                        "cyk: the substring DP; naive: the definition (exponential)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--max-seconds", type=duration, metavar="S",
                   help="stop with exit 3 after S seconds on one word (the substring DP of a "
                        "context-free grammar, or --method naive); a word whose table would "
                        "not fit in memory is refused at once")
    p.set_defaults(func=_cmd_grundy)


#: line ends of a word list: those of files, not str.splitlines's (form feeds, U+2028, ...),
#: so that the n-th answer is about the n-th line as an editor counts lines
_LINE_END = re.compile(r"\r\n|\r|\n")


def _words(args: argparse.Namespace) -> list[str]:
    words = list(args.words)
    if args.words_from is not None:  # "" too: read_text says the name is empty
        text = read_text(args.words_from, what="word list")
        lines = _LINE_END.split(text)
        if lines and lines[-1] == "":  # the end of the last line, not one more line
            lines.pop()
        # blank lines are kept (the empty word, never a position): one answer per line
        words.extend(line.strip() for line in lines)
    return words


def _warn_outside(g: Grammar, w: str) -> None:
    """Say on stderr why a word with letters outside Σ is not a position."""
    bad = sorted(set(w) - set(g.terminals))
    if bad:
        print(f"warning: {brief(w)} has letter(s) {', '.join(map(repr, bad))} outside the alphabet "
              f"{{{', '.join(g.terminals)}}}: not a position", file=sys.stderr)


def _cmd_grundy(args: argparse.Namespace) -> int:
    from ..automaton.reading import servable
    from ..derivation.semantics import evaluator

    g = load(args)
    # only the substring DP and the definition run long enough to show progress
    tabled = args.method in ("cyk", "naive") or (args.method != "dfa" and not servable(g))
    unit = "subwords" if args.method == "naive" else "substrings"
    with progress("Grundy numbers", enabled=tabled and not args.json, unit=unit) as bar:
        return _grundy_words(args, g, evaluator(g, method=args.method,
                                                budget=budget(args, bar, each=True)))


def _grundy_words(args: argparse.Namespace, g: Grammar,
                  value: Callable[[str, str], int | None]) -> int:
    from ..derivation.play import parse_pair

    if args.position:
        if args.nonterminal or args.words or args.words_from is not None:
            raise InputError("--position takes the place of NONTERMINAL and WORDs")
        parts = [parse_pair(g, item) for item in args.position]
        values = []
        for head, w in parts:
            _warn_outside(g, w)
            values.append(value(head, w))
        total = None if None in values else _xor(v for v in values if v is not None)
        if args.json:
            emit({"position": [{"nonterminal": h, "word": w, "grundy": v}
                                for (h, w), v in zip(parts, values, strict=True)],
                   "grundy": total})
        else:
            for (h, w), v in zip(parts, values, strict=True):
                print(f"{h}:{w}\t{_show(v)}")
            print(f"xor\t{_show(total)}")
        return ExitCode.OK
    if not args.nonterminal:
        raise InputError("give NONTERMINAL and WORDs, or --position A:w ...")
    if not g.is_nonterminal(args.nonterminal):
        more = ", ..." if len(g.nonterminals) > 10 else ""
        raise InputError(f"{brief(args.nonterminal)} is not a nonterminal (the nonterminals "
                         f"are {', '.join(g.nonterminals[:10])}{more}); to give words of the "
                         "start symbol alone, add --start X")
    head = args.nonterminal
    words = _words(args)
    if not words:
        raise InputError("no words given (WORD arguments or --words-from FILE)")
    for w in words:
        _warn_outside(g, w)
        v = value(head, w)
        if args.json:
            emit({"nonterminal": head, "word": w, "grundy": v})
        else:
            print(_show(v))
    return ExitCode.OK


def _xor(values: Any) -> int:
    from ..games.mex import nim_sum

    return nim_sum(values)


def _show(v: int | None) -> str:
    return "not a position" if v is None else str(v)


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("check", _add_check, help="validate a grammar and print its classification")
    sub.command("grundy", _add_grundy, help="Grundy numbers of words or of a multiset position")
