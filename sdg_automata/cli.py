"""The command line: ``python -m sdg_automata COMMAND ...`` (also ``sdg-automata``).

Results go to stdout, progress and warnings to stderr.  Every failure caused
by the input is one line ``error: ...`` on stderr, never a traceback.

Exit codes (a public promise, see :class:`ExitCode`): 0 success or "yes",
1 "no", 2 usage or input error, 3 budget exhausted without an answer,
130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__
from .errors import BudgetExceeded, ConvergenceError, InputError, Interrupted, SdgError
from .grammar import Grammar
from .parse import load_grammar, read_text

if TYPE_CHECKING:
    from .construction import ReachableAutomaton

__all__ = ["ExitCode", "main"]


class ExitCode(enum.IntEnum):
    """Exit statuses of the command line."""

    #: success; for decision commands, the answer is "yes"
    OK = 0
    #: a decision command's answer is "no"
    NO = 1
    #: bad usage or bad input (file, grammar, word, option)
    INPUT_ERROR = 2
    #: a budget (--max-states, --max-seconds) ran out, or no value could be proven
    BUDGET = 3
    #: interrupted by Ctrl-C
    INTERRUPTED = 130


EPILOG = """exit codes: 0 success / yes, 1 no, 2 usage or input error,
3 budget exhausted (or value not provable), 130 interrupted"""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``error:`` line and exit 2."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see '{self.prog} --help')")


def _fail(message: str, code: int = ExitCode.INPUT_ERROR) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _emit(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _add_grammar(p: argparse.ArgumentParser, *, nonterminal: bool = False) -> None:
    p.add_argument("grammar", metavar="GRAMMAR", help="grammar file (.json or text format)")
    if nonterminal:
        p.add_argument("nonterminal", metavar="NONTERMINAL", help="the nonterminal A")


def _grammar(args: argparse.Namespace) -> Grammar:
    return load_grammar(args.grammar)


# ---------------------------------------------------------------------------
# check


def _add_check(sub: Any) -> None:
    p = sub.add_parser("check", help="validate a grammar and print its classification",
                       description="Validate a grammar file and print its classification, "
                                   "alphabet, nonterminals and rule count.")
    _add_grammar(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    g = _grammar(args)
    info = {
        "grammar": args.grammar,
        "kind": g.kind,
        "start": g.start,
        "nonterminals": list(g.nonterminals),
        "terminals": "".join(g.terminals),
        "rules": len(g.rules),
    }
    if args.json:
        _emit(info)
    else:
        print(f"{args.grammar}: valid {g.kind} grammar")
        print(f"start:        {g.start}")
        print(f"nonterminals: {', '.join(g.nonterminals)}")
        print(f"terminals:    {', '.join(g.terminals) or '(none)'}")
        print(f"rules:        {len(g.rules)}")
    return ExitCode.OK


# ---------------------------------------------------------------------------
# grundy


def _add_grundy(sub: Any) -> None:
    p = sub.add_parser(
        "grundy", help="Grundy numbers of words or of a multiset position",
        description="Print 𝒢_{G,A}(w) for each word, one line per word (a number or "
                    "'not a position'); or, with --position, the XOR of a multiset position.")
    _add_grammar(p)
    p.add_argument("nonterminal", metavar="NONTERMINAL", nargs="?", help="the nonterminal A")
    p.add_argument("words", metavar="WORD", nargs="*", help="words to evaluate")
    p.add_argument("--words-from", metavar="FILE",
                   help="read further words from FILE, one per line ('-' for stdin)")
    p.add_argument("--position", metavar="A:w", nargs="+",
                   help="a multiset position, e.g. --position A:aab B:ba")
    p.add_argument("--method", choices=["auto", "dfa", "brute", "cyk", "naive"], default="auto",
                   help="auto: the automaton for right/left-linear grammars, the substring DP "
                        "otherwise; dfa: the automaton; brute: the exact dynamic programs; "
                        "cyk: the substring DP; naive: the definition (exponential)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=_cmd_grundy)


def _words(args: argparse.Namespace) -> list[str]:
    words = list(args.words)
    if args.words_from:
        text = read_text(args.words_from, what="word list")
        words.extend(line.strip() for line in text.splitlines() if line.strip())
    return words


def _warn_outside(g: Grammar, w: str) -> None:
    """Say on stderr why a word with letters outside Σ is not a position."""
    bad = sorted(set(w) - set(g.terminals))
    if bad:
        print(f"warning: {w!r} has letter(s) {', '.join(map(repr, bad))} outside the alphabet "
              f"{{{', '.join(g.terminals)}}}: not a position", file=sys.stderr)


def _cmd_grundy(args: argparse.Namespace) -> int:
    from .semantics import evaluator

    g = _grammar(args)
    value = evaluator(g, method=args.method)
    if args.position:
        if args.nonterminal or args.words or args.words_from:
            raise InputError("--position takes the place of NONTERMINAL and WORDs")
        parts = []
        for item in args.position:
            head, sep, w = item.partition(":")
            if not sep:
                raise InputError(f"position part {item!r} must be written NONTERMINAL:WORD")
            g.check_nonterminal(head)
            parts.append((head, w))
        values = []
        for head, w in parts:
            _warn_outside(g, w)
            values.append(value(head, w))
        total = None if None in values else _xor(v for v in values if v is not None)
        if args.json:
            _emit({"position": [{"nonterminal": h, "word": w, "grundy": v}
                                for (h, w), v in zip(parts, values, strict=True)],
                   "grundy": total})
        else:
            for (h, w), v in zip(parts, values, strict=True):
                print(f"{h}:{w}\t{_show(v)}")
            print(f"xor\t{_show(total)}")
        return ExitCode.OK
    if not args.nonterminal:
        raise InputError("give NONTERMINAL and WORDs, or --position A:w ...")
    head = g.check_nonterminal(args.nonterminal)
    words = _words(args)
    if not words:
        raise InputError("no words given (WORD arguments or --words-from FILE)")
    for w in words:
        _warn_outside(g, w)
        v = value(head, w)
        if args.json:
            _emit({"nonterminal": head, "word": w, "grundy": v})
        else:
            print(_show(v))
    return ExitCode.OK


def _xor(values: Any) -> int:
    from .impartial import nim_sum

    return nim_sum(values)


def _show(v: int | None) -> str:
    return "not a position" if v is None else str(v)


# ---------------------------------------------------------------------------
# progress on stderr


@contextlib.contextmanager
def _progress(description: str, *, enabled: bool = True) -> Iterator[Callable[[int], None] | None]:
    """A rich progress display on stderr, or ``None`` when stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  TextColumn("{task.completed:,} states"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None)
        yield lambda n: bar.update(task, completed=n)


def _explore(args: argparse.Namespace, g: Grammar) -> ReachableAutomaton:
    """The reachable automaton serving ``g`` (its mirror's when left-linear), with progress."""
    from .construction import automaton_for

    with _progress("building the automaton", enabled=not getattr(args, "json", False)) as bar:
        return automaton_for(g).explore(max_states=args.max_states, progress=bar)


def _add_budget(p: argparse.ArgumentParser, *, seconds: bool = True) -> None:
    p.add_argument("--max-states", type=_positive, metavar="N",
                   help="stop with exit 3 once N states are needed")
    if seconds:
        p.add_argument("--max-seconds", type=float, metavar="S",
                       help="stop with exit 3 after S seconds")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _natural(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a natural number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a natural number (0, 1, 2, ...)")
    return value


# ---------------------------------------------------------------------------
# max


def _add_max(sub: Any) -> None:
    p = sub.add_parser(
        "max", help="Max-Grundy: the maximum Grundy number over L(G, A), or is it K?",
        description="Without K: print the maximum of 𝒢_{G,A} over L(G, A) and a witness word. "
                    "With K: print yes or no (exit 0 or 1): is the maximum equal to K? "
                    "Right- and left-linear grammars (SPEC §5).")
    _add_grammar(p, nonterminal=True)
    p.add_argument("k", metavar="K", nargs="?", type=_natural, help="the value to test")
    p.add_argument("--method", choices=["onthefly", "explicit"], default="onthefly",
                   help="onthefly: search the implicit automaton, stopping as soon as settled; "
                        "explicit: build every M_{A,i} with automata-lib and test emptiness")
    p.add_argument("--strategy", choices=["bfs", "dfs"], default="bfs",
                   help="on-the-fly search order: bfs gives shortest witnesses, dfs keeps less "
                        "in memory")
    p.add_argument("--within", metavar="REGEX_OR_DFA_JSON",
                   help="only positions whose word matches this regular expression (automata-lib "
                        "syntax) or is accepted by this DFA (a .json file in automata-lib's "
                        "constructor shape)")
    _add_budget(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_max)


def _load_within(spec: str) -> Any:
    """A DFA JSON file (automata-lib's constructor shape) or a regular expression."""
    if not spec.endswith(".json"):
        return spec
    from automata.base.exceptions import AutomatonException
    from automata.fa.dfa import DFA

    try:
        data = json.loads(read_text(spec, what="DFA file"))
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg} (column {e.colno})", source=spec,
                         line=e.lineno) from None
    try:
        return DFA(
            states=frozenset(data["states"]),
            input_symbols=frozenset(data["input_symbols"]),
            transitions={s: dict(t) for s, t in data["transitions"].items()},
            initial_state=data["initial_state"],
            final_states=frozenset(data["final_states"]),
            allow_partial=bool(data.get("allow_partial", True)),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(f"not a DFA in automata-lib's constructor shape (states, input_symbols, "
                         f"transitions, initial_state, final_states): {e!r}", source=spec) from None
    except AutomatonException as e:
        raise InputError(f"invalid DFA: {e}", source=spec) from None


def _abbreviated(word: str | None, limit: int = 60) -> str:
    """A witness for a terminal: in full when short, else its ends and length (--json has all)."""
    if word is None or len(word) <= limit:
        return repr(word)
    return f"{word[:24]!r}…{word[-24:]!r} (length {len(word)}; --json prints it whole)"


def _cmd_max(args: argparse.Namespace) -> int:
    from .decide import max_grundy

    g = _grammar(args)
    head = g.check_nonterminal(args.nonterminal)
    within = _load_within(args.within) if args.within else None
    with _progress(f"exploring from {head}", enabled=not args.json) as progress:
        verdict = max_grundy(g, head, args.k, method=args.method, strategy=args.strategy,
                             within=within, max_states=args.max_states,
                             max_seconds=args.max_seconds, progress=progress)
    if args.json:
        _emit(verdict.to_json())
    else:
        where = f"L(G, {head})" + (" ∩ L(within)" if within is not None else "")
        if verdict.maximum is None:
            summary = f"no positions: {where} is empty"
        else:
            bound = "" if verdict.exact else "at least "
            summary = f"max {bound}{verdict.maximum}, witness {_abbreviated(verdict.witness)}"
        done = "explored" if args.method == "onthefly" else "built"
        summary += f" ({verdict.states} states {done}"
        summary += ", stopped early)" if verdict.stopped_early else ")"
        if args.k is None:
            print(summary)
        else:
            print("yes" if verdict.answer else "no")
            print(summary, file=sys.stderr)
    if args.k is None:
        return ExitCode.OK
    return ExitCode.OK if verdict.answer else ExitCode.NO


# ---------------------------------------------------------------------------
# dfa


def _add_dfa(sub: Any) -> None:
    p = sub.add_parser(
        "dfa", help="the DFA M_{A,i} of the Step 1–5 construction",
        description="Print M_{A,I}, which accepts the reverses of the words w with 𝒢_{G,A}(w) = I "
                    "(SPEC §4, Step 5), or with --forward the DFA of those words themselves.")
    _add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="I", type=_natural, help="the Grundy number")
    p.add_argument("--forward", action="store_true",
                   help="the DFA of {w : 𝒢(A, w) = I} (reversed with automata-lib, minimal)")
    p.add_argument("--minimal", action="store_true", help="minimize (automata-lib minify)")
    p.add_argument("--format", choices=["text", "json", "dot", "jff", "svg", "png"],
                   default="text",
                   help="text: transition table; json: automata-lib constructor shape; dot: DOT; "
                        "jff: JFLAP; svg, png: drawn by Graphviz (pip install "
                        "\"sdg_automata[visual]\")")
    p.add_argument("--labels", choices=["ids", "items"], default="ids",
                   help="state names: numbers, or the item sets of SPEC §4 (only for the "
                        "unminimized M_{A,i})")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    _add_budget(p, seconds=False)
    p.set_defaults(func=_cmd_dfa)


def _cmd_dfa(args: argparse.Namespace) -> int:
    from .construction import dfa
    from .render import dfa_to_dot, dfa_to_jff, dfa_to_json, dfa_to_table

    _check_visual(args)
    g = _grammar(args)
    head = g.check_nonterminal(args.nonterminal)
    reachable = _explore(args, g)
    machine = dfa(g, head, args.value, forward=args.forward, minimal=args.minimal,
                  reachable=reachable)
    automaton = reachable.automaton
    label: Callable[[Any], str] = str
    if args.labels == "items":
        if args.forward or args.minimal or not g.is_right_linear:
            raise InputError("--labels items names the states of the unminimized M_{A,i} of a "
                             "right-linear grammar; drop --forward/--minimal")
        label = lambda s: automaton.label(reachable.states[s])  # noqa: E731
    writers: dict[str, Callable[..., str]] = {
        "text": dfa_to_table, "json": dfa_to_json, "dot": dfa_to_dot, "jff": dfa_to_jff,
        "svg": dfa_to_dot, "png": dfa_to_dot}  # svg/png: DOT laid out by _deliver
    _deliver(args, writers[args.format](machine, label=label))
    return ExitCode.OK


# ---------------------------------------------------------------------------
# spectrum


def _add_spectrum(sub: Any) -> None:
    p = sub.add_parser(
        "spectrum", help="every nonterminal: bound, values reached, a witness per value",
        description="For every nonterminal A: the bound m_A (SPEC §3), the Grundy values that "
                    "occur on L(G, A), a shortest witness for each, and the reachable states.")
    _add_grammar(p)
    p.add_argument("--json", action="store_true", help="one JSON object per nonterminal")
    _add_budget(p, seconds=False)
    p.set_defaults(func=_cmd_spectrum)


def _cmd_spectrum(args: argparse.Namespace) -> int:
    from .decide import spectrum

    g = _grammar(args)
    with _progress("building the automaton", enabled=not args.json) as progress:
        rows = spectrum(g, max_states=args.max_states, progress=progress)
    if args.json:
        for r in rows:
            _emit({"nonterminal": r.nonterminal, "bound": r.bound, "max": r.maximum,
                   "values": list(r.witnesses), "witnesses": {str(v): w for v, w in
                                                              r.witnesses.items()},
                   "states": r.states})
        return ExitCode.OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Grundy spectrum of {args.grammar} ({rows[0].states} reachable states)")
    for col in ("nonterminal", "m_A", "values", "witnesses"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.nonterminal, str(r.bound),
                      ", ".join(map(str, r.witnesses)) or "none (no positions)",
                      "  ".join(f"{v}: {w}" for v, w in r.witnesses.items()))
    Console(soft_wrap=True).print(table)
    return ExitCode.OK


# ---------------------------------------------------------------------------
# family


def _add_family(sub: Any) -> None:
    p = sub.add_parser(
        "family", help="write an instance with an independently known answer",
        description="Write a grammar whose Max-Grundy answer is known without the automaton "
                    "(JSON or text, to stdout or -o FILE) and print that ground truth on "
                    "stderr. modular: the SPEC §5 reduction on the unary DFAs of aⁿ with "
                    "n ≡ R (mod P) and n even, answered by the Chinese remainder theorem; "
                    "random: the same reduction on random binary DFAs, answered by "
                    "automata-lib products; subtraction: A → aᵏA | aᵏ for k ∈ S (SPEC §7).")
    kinds = p.add_subparsers(dest="family", metavar="FAMILY", parser_class=_Parser)
    kinds.required = True
    m = kinds.add_parser(
        "modular", help="unary DFAs n ≡ R (mod P), n even; ground truth by the CRT",
        description="D_i accepts aⁿ with n ≡ R_i (mod P_i) and n even; max 𝒢(A) is the "
                    "largest j whose first j congruences have a common solution.")
    m.add_argument("specs", metavar="P:R", nargs="+",
                   help="modulus and residue of one DFA, e.g. 5:2 (0 ≤ R < P)")
    m.set_defaults(func=_cmd_family_modular)
    r = kinds.add_parser(
        "random", help="random binary DFAs (made even-length); ground truth by products",
        description="COUNT random DFAs on N states over {a, b}, each crossed with the "
                    "even-length DFA; max 𝒢(A) is the largest j with "
                    "L(D_1) ∩ … ∩ L(D_j) ∖ {ε} ≠ ∅.")
    r.add_argument("--dfas", type=_positive, default=3, metavar="COUNT",
                   help="how many DFAs (default 3)")
    r.add_argument("--states", type=_positive, default=6, metavar="N",
                   help="states of each random DFA before the even-length product (default 6)")
    r.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    r.set_defaults(func=_cmd_family_random)
    s = kinds.add_parser(
        "subtraction", help="A → aᵏA | aᵏ for k ∈ S (the subtraction game when 1 ∈ S)",
        description="The unary grammar of the subtraction game with set S (SPEC §7).")
    s.add_argument("subtraction", metavar="S", help="comma-separated positive integers, e.g. 1,3,4")
    s.set_defaults(func=_cmd_family_subtraction)
    for q in (m, r, s):
        q.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
        q.add_argument("--format", choices=["json", "text"], default="json",
                       help="grammar format (default json)")
        q.epilog = EPILOG
        q.formatter_class = argparse.RawDescriptionHelpFormatter


def _write_grammar(g: Grammar, args: argparse.Namespace) -> None:
    from .parse import grammar_to_json, grammar_to_text

    _output(args, grammar_to_json(g) if args.format == "json" else grammar_to_text(g))


def _cmd_family_modular(args: argparse.Namespace) -> int:
    from .families import ModularSpec, modular_family, modular_truth

    specs = [ModularSpec.parse(text) for text in args.specs]
    g = modular_family(specs)  # InputError when no D_i accepts a non-empty word
    best, length = modular_truth(specs)
    _write_grammar(g, args)
    if best:
        detail = f", shortest witness a^{length}"
    else:
        first = specs[0]
        detail = f" (no even n ≡ {first.residue} mod {first.modulus}: D1 is empty)"
    print(f"ground truth (CRT): max 𝒢(A) = {best}{detail}", file=sys.stderr)
    return ExitCode.OK


def _cmd_family_random(args: argparse.Namespace) -> int:
    from automata.fa.dfa import DFA

    from .families import intersection_grammar, product_truth, random_family

    dfas = random_family(args.dfas, args.states, seed=args.seed)
    g = intersection_grammar(dfas)  # InputError when every language is ⊆ {ε}
    best = product_truth(dfas)
    detail = ""
    if best:
        both = DFA.of_length(set(g.terminals), min_length=1, max_length=None)
        for d in dfas[:best]:
            both = both.intersection(d)
        shortest = both.minimum_word_length()  # bound to a name: a cached method
        detail = f", shortest witness length {shortest}"
    print(f"ground truth (automata-lib products): max 𝒢(A) = {best}{detail}", file=sys.stderr)
    _write_grammar(g, args)
    return ExitCode.OK


def _cmd_family_subtraction(args: argparse.Namespace) -> int:
    from .families import subtraction_grammar

    try:
        ks = [int(part) for part in args.subtraction.split(",")]
    except ValueError:
        raise InputError(f"{args.subtraction!r} is not a comma-separated list of positive "
                         "integers (e.g. 1,3,4)") from None
    g = subtraction_grammar(ks)  # InputError for an empty S or k < 1
    _write_grammar(g, args)
    shown = "{" + ", ".join(map(str, sorted(set(ks)))) + "}"
    if 1 in ks:
        print(f"note: 1 ∈ S, so 𝒢(A, aⁿ) is the Grundy value of n in the subtraction game "
              f"with S = {shown}", file=sys.stderr)
    else:
        print(f"note: 1 ∉ S: lengths outside the numerical semigroup generated by {shown} are "
              "not positions and no move lands on them, so values differ from the classic "
              "subtraction game (SPEC §7)", file=sys.stderr)
    return ExitCode.OK


# ---------------------------------------------------------------------------
# imark (SPEC §6)


def _add_imark(sub: Any) -> None:
    p = sub.add_parser(
        "imark", help="i-Mark(S, D): Grundy values by the convergence technique, the naive "
                      "sequence, the convergence survey",
        description="i-Mark(S, D) (SPEC §6): from n move to n-s (s in S, n-s >= 0) or to n/d "
                    "(d in D, d divides n, n >= 1).  'value' proves 𝒢(n) for huge n by the "
                    "convergence technique of Nivasch and Rubinstein (arXiv 2503.23196); "
                    "'sequence' prints the naive table; 'survey' measures convergence.")
    isub = p.add_subparsers(dest="imark_command", metavar="SUBCOMMAND", parser_class=_Parser)
    p.set_defaults(func=_cmd_imark_missing)

    def game_args(q: Any) -> None:
        q.add_argument("--S", dest="S", metavar="S", type=_imark_ints, required=True,
                       help="subtractions, comma-separated, each >= 1 (e.g. 1 or 1,2; '' for "
                            "none: the pure division game)")
        q.add_argument("--D", dest="D", metavar="D", type=_imark_ints, required=True,
                       help="divisors, comma-separated, each >= 2 (e.g. 2,3)")

    v = isub.add_parser(
        "value", help="𝒢(n) by the convergence technique, one line per n",
        description="Print 𝒢(n) for each N, one line each, proven by the convergence technique "
                    "(SPEC §6) in time polylogarithmic in n.  N may be written 10^18, 10**18 or "
                    "1e18.  A value that cannot be proven is an error (exit 3), never a number.")
    game_args(v)
    v.add_argument("n", metavar="N", nargs="+", type=_imark_big, help="positions")
    v.add_argument("--c", type=int, default=None,
                   help="the window c (I_m = [m-2c, m], J_m = [m-c, m]); default: 8, doubled "
                        "on failure up to --max-c")
    v.add_argument("--max-c", type=int, default=512, help="largest automatic c (default 512)")
    v.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"S": [1], "D": [2, 3], "n": ..., '
                        '"grundy": ..., "c": ...}')

    v.set_defaults(func=_cmd_imark_value)

    s = isub.add_parser(
        "sequence", help="the naive sequence 𝒢(0..N)",
        description="Stream 𝒢(0), ..., 𝒢(N) computed bottom up (Θ(N) time and memory; "
                    "N = 10^7 takes about a second), one value per line.")
    game_args(s)
    s.add_argument("--upto", metavar="N", type=_imark_big, required=True, help="last position")
    s.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"n": ..., "grundy": ...}')
    s.set_defaults(func=_cmd_imark_sequence)

    y = isub.add_parser(
        "survey", help="which instances converge, and with which c",
        description="For every instance i-Mark(S, D) with S a non-empty subset of {1..MAX_S} and "
                    "D a non-empty subset of {2..MAX_D} with at most MAX_D_SIZE elements: run all "
                    "(|S|+|D|+1)^max(S) guess vectors from every start lo in max(S)+1..N with "
                    "the true division followers and report the smallest c such that all guess "
                    "sequences agree from lo+c on for every start (then 'value' proves every "
                    "n <= N+2c with that c), or the first start where they do not agree within "
                    "--max-c steps.  Instances run in parallel over local processes.")
    y.add_argument("--max-s", type=int, default=3, help="S ranges over subsets of {1..MAX_S} "
                                                        "(default 3)")
    y.add_argument("--max-d", type=int, default=6, help="D ranges over subsets of {2..MAX_D} "
                                                        "(default 6)")
    y.add_argument("--max-d-size", type=int, default=2, help="at most this many divisors "
                                                             "(default 2)")
    y.add_argument("--upto", metavar="N", type=_imark_big, default=2000,
                   help="last start checked (default 2000)")
    y.add_argument("--max-c", type=int, default=128,
                   help="a start needing more steps counts as not converging (default 128)")
    y.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the number of CPUs)")
    y.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (rich, with a progress bar on a terminal), JSON lines or CSV")
    y.set_defaults(func=_cmd_imark_survey)


def _imark_ints(text: str) -> tuple[int, ...]:
    parts = [t.strip() for t in text.replace(" ", ",").split(",") if t.strip()]
    try:
        return tuple(int(t) for t in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of integers") from None


def _imark_big(text: str) -> int:
    import re

    t = text.strip().replace("_", "")
    match = re.fullmatch(r"(\d+)(?:(\^|\*\*)(\d+)|[eE](\d+))?", t)
    if not match:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a natural number (write e.g. 1000000, 10^18, 10**18 or 1e18)")
    base, _, power, exp10 = match.groups()
    if power is not None and len(str(int(base))) * int(power) > 10**6 or (
            exp10 is not None and int(exp10) > 10**6):
        raise argparse.ArgumentTypeError(f"{text!r} has more than a million digits")
    value: int = int(base)
    if power is not None:
        value = value ** int(power)
    elif exp10 is not None:
        value = value * 10 ** int(exp10)
    return value


def _cmd_imark_missing(args: argparse.Namespace) -> int:
    raise InputError("imark needs a subcommand: value, sequence or survey "
                     "(see 'sdg_automata imark --help')")


def _cmd_imark_value(args: argparse.Namespace) -> int:
    from .imark import IMark, imark_value

    game = IMark.of(args.S, args.D)
    for n in args.n:
        v = imark_value(game, n=n, c=args.c, max_c=args.max_c)
        if args.json:
            _emit(v.as_dict())
        else:
            print(v.grundy)
        sys.stdout.flush()  # each proven value is out before a later one fails
    return ExitCode.OK


def _cmd_imark_sequence(args: argparse.Namespace) -> int:
    from .imark import IMark, imark_sequence_chunks

    game = IMark.of(args.S, args.D)
    if args.upto > 10**10:
        raise InputError(f"--upto {args.upto} is beyond the naive sequence (it keeps one byte "
                         "per position); use 'imark value' for single large positions")
    n = 0
    for chunk in imark_sequence_chunks(game, upto=args.upto):
        if args.json:
            lines = [json.dumps({"n": n + i, "grundy": g}) for i, g in enumerate(chunk)]
        else:
            lines = list(map(str, chunk))
        sys.stdout.write("\n".join(lines) + "\n")
        n += len(chunk)
    return ExitCode.OK


def _cmd_imark_survey(args: argparse.Namespace) -> int:
    import os

    from .imark import SurveyRow, survey, survey_instances

    instances = survey_instances(args.max_s, args.max_d, max_d_size=args.max_d_size)
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be >= 1")
    if args.max_c < 1:
        raise InputError("--max-c must be >= 1")
    jobs = args.jobs or os.cpu_count() or 1
    show_progress = args.format == "table" and sys.stderr.isatty()
    if show_progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"i-Mark survey ({jobs} jobs)", total=len(instances))
            rows = survey(instances, upto=args.upto, max_c=args.max_c, jobs=jobs,
                          on_result=lambda _row: bar.advance(task))
    else:
        rows = survey(instances, upto=args.upto, max_c=args.max_c, jobs=jobs)

    def show(t: tuple[int, ...]) -> str:
        return "{" + ",".join(map(str, t)) + "}"

    if args.format == "json":
        for row in rows:
            _emit(row.as_dict())
    elif args.format == "csv":
        import csv

        out = csv.writer(sys.stdout, lineterminator="\n")
        fields = ["S", "D", "upto", "max_c", "converges", "c", "worst_start", "failed_start",
                  "starts", "seconds"]
        out.writerow(fields)
        for row in rows:
            d = row.as_dict()
            d["S"], d["D"] = show(row.S), show(row.D)
            out.writerow(["" if d[f] is None else d[f] for f in fields])
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"i-Mark convergence, starts up to {args.upto} "
                            f"(c capped at {args.max_c})")
        for name in ("S", "D", "c", "worst start", "result", "seconds"):
            table.add_column(name, justify="right" if name in ("c", "worst start", "seconds")
                             else "left")

        def result(row: SurveyRow) -> str:
            if row.converges:
                return "[green]converges[/green]"
            return f"[red]no convergence from start {row.failed_start}[/red]"

        for row in rows:
            table.add_row(show(row.S), show(row.D), "" if row.c is None else str(row.c),
                          "" if row.worst_start is None else str(row.worst_start), result(row),
                          f"{row.seconds:.2f}")
        console = Console()
        console.print(table)
        good = sum(row.converges for row in rows)
        console.print(f"{good} of {len(rows)} instances converge for every start up to "
                      f"{args.upto}")
    return ExitCode.OK


# ---------------------------------------------------------------------------
# moves, play: every move of a position; a game against the engine (play.py)


def _add_position_args(p: argparse.ArgumentParser) -> None:
    _add_grammar(p)
    p.add_argument("position", metavar="A:w", nargs="+",
                   help="the components of the position, e.g. A:aab B:ba")
    p.add_argument("--method", choices=["auto", "dfa", "cyk"], default="auto",
                   help="auto: the automaton for right/left-linear grammars (one pass over each "
                        "word's suffixes), the substring DP otherwise; dfa: the automaton; cyk: "
                        "the substring DP")


def _add_moves(sub: Any) -> None:
    p = sub.add_parser(
        "moves", help="every legal move of a position, its value, and the winning moves",
        description="List every move of a multiset position A:w ... (SPEC §2) with the Grundy "
                    "number of the position it leads to, and name the winning moves (those to "
                    "XOR 0).")
    _add_position_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_moves)


def _cmd_moves(args: argparse.Namespace) -> int:
    from .play import Analyzer, format_parts, parse_position

    analyzer = Analyzer(_grammar(args), method=args.method)
    analysis = analyzer.analyze(parse_position(analyzer, args.position))
    if args.json:
        _emit(analysis.to_json())
        return ExitCode.OK
    who = ("N-position: the player to move wins" if analysis.grundy
           else "P-position: the player to move loses")
    print(f"position  {format_parts(analysis.position)}")
    print(f"values    {' xor '.join(map(str, analysis.values))} = {analysis.grundy} ({who})")
    rows = [(str(k), m.text(), str(m.rule), str(m.grundy), "wins" if m.winning else "")
            for k, m in enumerate(analysis.moves, 1)]
    head = ("#", "move", "rule", "grundy after", "")
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(4)]
    for r in [head, *rows]:
        print(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
              f"{r[3]:>{widths[3]}}  {r[4]}".rstrip())
    winning = [str(k) for k, m in enumerate(analysis.moves, 1) if m.winning]
    print(f"winning moves: {', '.join(winning) if winning else 'none'}")
    return ExitCode.OK


def _add_play(sub: Any) -> None:
    p = sub.add_parser(
        "play", help="play a position against the engine in the terminal",
        description="Play the SDG from a position against the engine (normal play: who cannot "
                    "move loses). The engine plays a winning move when there is one; otherwise "
                    "the move removing the fewest letters. At your turn type a move number, "
                    "'h' for a hint or 'q' to quit. When standard input is not a terminal, "
                    "moves are read from it one per line.")
    _add_position_args(p)
    p.add_argument("--first", choices=["engine", "human"], default="human",
                   help="who moves first (default: human)")
    p.set_defaults(func=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .play import Analyzer, Game, parse_position, play_terminal

    analyzer = Analyzer(_grammar(args), method=args.method)
    game = Game(analyzer, parse_position(analyzer, args.position), to_move=args.first)
    console = Console(highlight=False)
    interactive = sys.stdin.isatty()

    def read_line(prompt: str) -> str | None:
        if not interactive:  # scripted: one move per line, the transcript echoes it
            line = sys.stdin.readline()
            return line if line else None
        try:
            return console.input(prompt)
        except EOFError:
            return None

    play_terminal(game, console=console, read_line=read_line, echo=not interactive)
    return ExitCode.OK


# ---------------------------------------------------------------------------
# period: the proven period of n ↦ 𝒢(A, aⁿ) on one letter (periodicity.py)


def _add_period(sub: Any) -> None:
    p = sub.add_parser(
        "period", help="proven preperiod and period of n ↦ 𝒢(A, aⁿ) over one letter",
        description="For a right- or left-linear grammar over one letter (e.g. a subtraction "
                    "game A -> a^k A | a^k), read the preperiod and period of "
                    "s(n) = 𝒢(A, aⁿ), n ≥ 1, off the automaton's lasso: a proof, not a guess "
                    "(SPEC §7). Prints them and the values s(p0+1), ..., s(p0+p).")
    _add_grammar(p, nonterminal=True)
    _add_budget(p, seconds=False)
    p.add_argument("--json", action="store_true",
                   help="print {nonterminal, preperiod, period, values} (⊥ as null)")
    p.set_defaults(func=_cmd_period)


def _cmd_period(args: argparse.Namespace) -> int:
    from .periodicity import proven_period

    g = _grammar(args)
    period = proven_period(g, g.check_nonterminal(args.nonterminal), max_states=args.max_states)
    if args.json:
        _emit(period.to_json())
        return ExitCode.OK

    def show(values: Sequence[int | None]) -> str:
        return " ".join("⊥" if v is None else str(v) for v in values)

    p0, p = period.preperiod, period.period
    print(f"nonterminal  {period.nonterminal}  (s(n) = 𝒢({period.nonterminal}, "
          f"{period.letter}ⁿ), n ≥ 1; ⊥: not a position)")
    print(f"preperiod    {p0}" + (f"  (s(1) … s({p0}): {show(period.prefix)})" if p0 else ""))
    print(f"period       {p}")
    print(f"values       {show(period.values)}  (s({p0 + 1}) … s({p0 + p}))")
    print(f"proof        the automaton over {{{period.letter}}} is a lasso of "
          f"{period.lasso_tail + period.lasso_cycle} states whose cycle has length "
          f"{period.lasso_cycle}: every n is covered")
    return ExitCode.OK


# ---------------------------------------------------------------------------
# graph


def _add_graph(sub: Any) -> None:
    p = sub.add_parser(
        "graph", help="Grundy numbers and outcomes of a finite game graph",
        description="Solve a finite acyclic game graph given as JSON "
                    '{"positions": {"x": ["y", "z"], ...}} (a follower that is not a key is a '
                    "sink, a position with no moves): print every position's Grundy number and "
                    "outcome (P: the player to move loses; N: the player to move wins).  With "
                    "--sum, print the XOR of a sum of positions and a winning move.")
    p.add_argument("graph", metavar="GRAPH", help="game graph file (JSON)")
    p.add_argument("--misere", action="store_true",
                   help="misère play (the last mover loses): outcomes only, no Grundy numbers; "
                        "refused with --sum (the XOR does not decide misère sums)")
    p.add_argument("--sum", metavar="POSITION", nargs="+",
                   help="the sum of these positions (one per component, repeats allowed; "
                        "components are numbered from 0): print its XOR and a winning move")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_graph)


def _graph_table(header: Sequence[str], columns: Sequence[Sequence[str]],
                 right: Sequence[bool]) -> str:
    """An aligned table given column by column (rows for :func:`render.text_table`)."""
    from .render import text_table

    return text_table([header, *zip(*columns, strict=True)], right=right).rstrip("\n")


def _cmd_graph(args: argparse.Namespace) -> int:
    from .impartial import MisereSumError, solve_game_graph_file

    if args.sum and args.misere:
        raise MisereSumError
    sol = solve_game_graph_file(args.graph)
    if args.sum:
        try:
            total = sol.sum_grundy(args.sum)
        except InputError as e:
            raise e.located(args.graph) from None
        moves = sol.winning_moves(args.sum)
        if args.json:
            _emit({"components": [{"position": c, "grundy": sol.grundy[c]} for c in args.sum],
                   "grundy": total, "outcome": sol.sum_outcome(args.sum),
                   "winning_moves": [{"component": m.component, "from": m.source, "to": m.target}
                                     for m in moves]})
            return ExitCode.OK
        print(_graph_table(["component", "position", "grundy"],
                           [[str(i) for i in range(len(args.sum))], args.sum,
                            [str(sol.grundy[c]) for c in args.sum]],
                           [True, False, True]))
        print(f"xor: {total}")
        if moves:
            m = moves[0]
            others = len(moves) - 1
            more = f" ({others} other winning move{'s' * (others > 1)})" if others else ""
            print(f"winning move: component {m.component}: {m.source} -> {m.target}{more}")
        else:
            print("P-position: no winning move (the player to move loses)")
        return ExitCode.OK
    outcome = sol.outcomes(misere=args.misere)
    if args.json:
        if args.misere:
            _emit({"positions": {p: {"outcome": o} for p, o in outcome.items()}})
        else:
            _emit({"positions": {p: {"grundy": g, "outcome": outcome[p]}
                                 for p, g in sol.grundy.items()}})
    elif args.misere:
        print(_graph_table(["position", "outcome (misère)"],
                           [list(outcome), list(outcome.values())], [False, False]))
    else:
        print(_graph_table(["position", "grundy", "outcome"],
                           [list(sol.grundy), list(map(str, sol.grundy.values())),
                            list(outcome.values())],
                           [False, True, False]))
    return ExitCode.OK


# ---------------------------------------------------------------------------
# game-graph (and the output of drawings, shared with dfa)


def _deliver(args: argparse.Namespace, text: str) -> None:
    """Write ``text`` (DOT for --format svg/png, which Graphviz lays out) to -o or stdout."""
    from .render import dot_to_png, dot_to_svg

    data: str | bytes = text
    if args.format == "svg":
        data = dot_to_svg(text)
    elif args.format == "png":
        data = dot_to_png(text)
        if not args.output and sys.stdout.isatty():
            raise InputError("--format png is binary: give -o FILE (or redirect stdout)")
    _output(args, data)


def _output(args: argparse.Namespace, data: str | bytes) -> None:
    """Write a result to ``-o FILE`` when given, else to stdout."""
    if args.output:
        try:
            if isinstance(data, bytes):
                with open(args.output, "wb") as fb:
                    fb.write(data)
            else:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(data)
        except OSError as e:
            raise InputError(f"cannot write {args.output!r}: {e.strerror}") from None
    elif isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def _check_visual(args: argparse.Namespace) -> None:
    """Fail before any work when SVG/PNG is asked for and Graphviz is missing."""
    if args.format in ("svg", "png"):
        from .render import require_visual

        require_visual(args.format.upper())


def _add_game_graph(sub: Any) -> None:
    p = sub.add_parser(
        "game-graph", help="the game graph of the positions (X, w), |w| ≤ N, with Grundy numbers",
        description="Every position (X, w) with 1 ≤ |w| ≤ N for the chosen nonterminals "
                    "(default: all), every position reachable from them, and the moves; ∅ is "
                    "the final position. Each node shows its Grundy number and the P-positions "
                    "(𝒢 = 0) are highlighted, as in Figures 1 and 7 of the paper. SVG and PNG "
                    "need the visual extra: pip install \"sdg_automata[visual]\".")
    _add_grammar(p)
    p.add_argument("nonterminals", metavar="NONTERMINAL", nargs="*",
                   help="the nonterminals X (default: all)")
    p.add_argument("--max-length", type=_natural, default=3, metavar="N",
                   help="the largest |w| (default 3)")
    p.add_argument("--max-nodes", type=_positive, default=2000, metavar="K",
                   help="refuse graphs with more than K positions (default 2000)")
    p.add_argument("--format", choices=["text", "json", "dot", "svg", "png"], default="text",
                   help="text: one line per position; json: nodes and moves; dot: DOT; "
                        "svg, png: drawn by Graphviz")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.set_defaults(func=_cmd_game_graph)


def _cmd_game_graph(args: argparse.Namespace) -> int:
    from .render import game_graph, game_graph_to_dot

    _check_visual(args)
    g = _grammar(args)
    gg = game_graph(g, args.nonterminals or None, args.max_length, max_nodes=args.max_nodes)
    if args.format == "json":
        moves: list[list[int]] = [[] for _ in gg.nodes]
        for s, t in gg.edges:
            moves[s].append(t)
        text = json.dumps({"nodes": [{"position": [list(part) for part in p], "grundy": v,
                                      "moves": m}
                                     for p, v, m in zip(gg.nodes, gg.values, moves, strict=True)]},
                          ensure_ascii=False) + "\n"
    elif args.format == "text":
        targets: list[list[str]] = [[] for _ in gg.nodes]
        for s, t in gg.edges:
            targets[s].append(gg.name(gg.nodes[t]))
        text = "".join(f"{gg.name(p)}\t{v}\t{', '.join(ts) or '(no move)'}\n"
                       for p, v, ts in zip(gg.nodes, gg.values, targets, strict=True))
    else:
        text = game_graph_to_dot(gg)
    _deliver(args, text)
    return ExitCode.OK


# ---------------------------------------------------------------------------
# regex


def _add_regex(sub: Any) -> None:
    p = sub.add_parser(
        "regex", help="a regular expression for {w : 𝒢(A, w) = C}",
        description="Print a regular expression, in automata-lib's syntax (| * + ? and "
                    "parentheses), for the words w with 𝒢_{G,A}(w) = C: state elimination "
                    "(automata-lib's GNFA) on the minimal forward DFA. The expression can grow "
                    "exponentially with the DFA, so larger DFAs than --max-dfa-states are "
                    "refused. An empty class prints ∅. Right- and left-linear grammars.")
    _add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="C", type=_natural, help="the Grundy number")
    p.add_argument("--max-dfa-states", type=_positive, default=50, metavar="N",
                   help="refuse minimal DFAs with more than N states (default 50)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_budget(p, seconds=False)
    p.set_defaults(func=_cmd_regex)


def _cmd_regex(args: argparse.Namespace) -> int:
    from .construction import dfa
    from .render import dfa_to_regex

    g = _grammar(args)
    head = g.check_nonterminal(args.nonterminal)
    machine = dfa(g, head, args.value, forward=True, reachable=_explore(args, g))
    regex = dfa_to_regex(machine, limit=args.max_dfa_states)
    if args.json:
        _emit({"nonterminal": head, "grundy": args.value, "regex": regex,
               "empty": regex is None, "dfa_states": len(machine.states)})
    elif regex is None:
        print("∅")
        print(f"note: no word w has 𝒢({head}, w) = {args.value}", file=sys.stderr)
    else:
        print(regex)
    return ExitCode.OK


# ---------------------------------------------------------------------------
# count


def _add_count(sub: Any) -> None:
    p = sub.add_parser(
        "count", help="how many words of length N have 𝒢(A, w) = C; generating function; density",
        description="Count the words w of length N with 𝒢_{G,A}(w) = C, exactly, by dynamic "
                    "programming over the minimal automaton (not by enumeration). --gf: the "
                    "rational generating function Σ countₙ xⁿ (sympy); --density: the limit of "
                    "countₙ / |Σ|ⁿ, or its limit points along the residues of n when the class "
                    "oscillates (exact rationals). Right- and left-linear grammars.")
    _add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="C", type=_natural, help="the Grundy number")
    p.add_argument("--length", type=_natural, metavar="N", help="the word length")
    p.add_argument("--gf", action="store_true", help="the generating function")
    p.add_argument("--density", action="store_true", help="the density of the class")
    p.add_argument("--max-dfa-states", type=_positive, default=500, metavar="N",
                   help="--gf/--density: refuse classes whose minimal DFA has more than N "
                        "states (default 500; the cost grows quadratically)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_budget(p, seconds=False)
    p.set_defaults(func=_cmd_count)


def _cmd_count(args: argparse.Namespace) -> int:
    from .counting import ClassMachine

    if args.length is None and not (args.gf or args.density):
        raise InputError("give --length N, --gf or --density")
    g = _grammar(args)
    head = g.check_nonterminal(args.nonterminal)
    machine = ClassMachine.build(g, head, reachable=_explore(args, g))
    out: dict[str, Any] = {"nonterminal": head, "grundy": args.value}
    if args.length is not None:
        out["length"] = args.length
        out["count"] = machine.count(args.value, args.length)
    if args.gf:
        out["gf"] = str(machine.generating_function(args.value, limit=args.max_dfa_states))
    density = machine.density(args.value, limit=args.max_dfa_states) if args.density else None
    if density is not None:
        out["density"] = density.to_json()
    with _unlimited_digits():  # counts of long words exceed Python's 4300-digit default
        if args.json:
            _emit(out)
            return ExitCode.OK
        if "count" in out:
            print(out["count"])
    if args.gf:
        print(f"gf: {out['gf']}")
    if density is not None:
        print(f"density: {density}")
    return ExitCode.OK


@contextlib.contextmanager
def _unlimited_digits() -> Iterator[None]:
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


# ---------------------------------------------------------------------------
# the parser and main


#: every subcommand: a function that adds its parser to the subparsers
COMMANDS: list[Callable[[Any], None]] = [
    _add_check, _add_grundy, _add_max, _add_dfa, _add_spectrum, _add_family,
    _add_imark, _add_moves, _add_play, _add_period,
    _add_graph,
    _add_game_graph, _add_regex, _add_count,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = _Parser(
        prog="sdg_automata",
        description="Impartial games as automata: Grundy numbers of successful derivation "
                    "games on grammars, their DFAs, Max-Grundy decisions, i-Mark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in COMMANDS:
        add(sub)
    for p in sub.choices.values():
        p.epilog = p.epilog or EPILOG
        p.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return ExitCode.INPUT_ERROR
    try:
        return int(args.func(args))
    except InputError as e:
        _fail(str(e))
    except BudgetExceeded as e:
        _fail(str(e), ExitCode.BUDGET)
    except ConvergenceError as e:
        _fail(str(e), ExitCode.BUDGET)
    except Interrupted as e:
        print(f"error: {e}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except SdgError as e:  # pragma: no cover - every SdgError should be one of the above
        _fail(str(e), ExitCode.INPUT_ERROR)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `... | head`: not an error of ours
        sys.stderr.close()
        return ExitCode.OK
