"""Commands on the automata of right- and left-linear grammars: ``max``, ``dfa``,
``spectrum``, ``regex`` and ``count`` (SPEC §4–5)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn, get_args

from ..errors import BudgetExceeded, InputError
from ..grammar.parse import read_text
from .arguments import add_grammar, duration, load, natural, positive
from .budgets import add_budget, add_engine, budget, explore, progress
from .exits import ExitCode, fail
from .jsonout import emit, emit_stopped
from .parser import Commands, Parser
from .writing import (
    add_drawing,
    add_output,
    check_plot,
    check_visual,
    deliver,
    output,
    unlimited_digits,
    write_plot,
)

if TYPE_CHECKING:
    from ..search.options import Configurable

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "max": ("sdg-automata max examples/example3.txt A",
            "sdg-automata max examples/example3.txt A 2 --within 'b*a*'",
            "sdg-automata max examples/csub.json A --strategy sat --json"),
    "dfa": ("sdg-automata dfa examples/example3.txt A 0 --forward --minimal",
            "sdg-automata dfa examples/example3.txt A 0 --labels items --format dot -o m.dot"),
    "spectrum": ("sdg-automata spectrum examples/example3.txt",),
    "regex": ("sdg-automata regex examples/example3.txt A 2",),
    "count": ("sdg-automata count examples/example3.txt A 0 --length 10 --gf --density",
              # the exact count has 301,030 digits: into a file, not onto the terminal
              "sdg-automata count examples/example3.txt A 0 --length 1000000 --json "
              "> count.json"),
}

#: ``regex`` counts the states of the minimal DFA up to this many times ``--max-dfa-states``
#: before refusing, so that a DFA not far above the limit is refused with its exact size
REGEX_COUNT_FACTOR = 10
#: the argparse types a strategy's or engine's :class:`~sdg_automata.search.options.Argument`
#: names
ARGUMENT_KINDS: dict[str | None, Callable[[str], Any]] = {
    None: str, "positive": positive, "natural": natural, "duration": duration}


def _add_options(p: Parser, entries: Iterable[Configurable]) -> None:
    """Each strategy's or engine's own arguments (:class:`~sdg_automata.search.options.Argument`).

    An argument left out is left out of ``args`` too (``argparse.SUPPRESS``): its option
    then has its own default, and the options classes of the entries not asked for are
    never imported (:meth:`~sdg_automata.search.options.Configurable.read_arguments`)."""
    flags: set[str] = set()
    for entry in entries:
        for a in entry.arguments:
            if a.flag in flags:  # shared by two entries (the SAT solver): once
                continue
            flags.add(a.flag)
            p.add_argument(a.flag, dest=a.field, default=argparse.SUPPRESS,
                           type=ARGUMENT_KINDS[a.kind], choices=a.choices, metavar=a.metavar,
                           help=a.help)


def _add_max(p: Parser) -> None:
    from ..search.decide import Route
    from ..search.engines import AUTO, ENGINES
    from ..search.strategies import STRATEGIES

    p.description = ("Without K: print the maximum of 𝒢_{G,A} over L(G, A) and a witness word. "
                     "With K: print yes or no (exit 0 or 1): is the maximum equal to K? "
                     "Right- and left-linear grammars (SPEC §5).")
    add_grammar(p, nonterminal=True)
    p.add_argument("k", metavar="K", nargs="?", type=natural, help="the value to test")
    p.add_argument("--method", choices=get_args(Route), default="onthefly",
                   help="onthefly: search the implicit automaton, stopping as soon as settled; "
                        "explicit: build every M_{A,i} with automata-lib and test emptiness")
    p.add_argument("--strategy", choices=["auto", *STRATEGIES], default="auto",
                   help="on-the-fly search: " + "; ".join(
                       f"{name}: {s.describe}" for name, s in STRATEGIES.items())
                   + "; auto (default): lasso when one letter is read, else bfs")
    _add_options(p, STRATEGIES.values())
    p.add_argument("--dump-circuit", metavar="FILE.aig|FILE.cnf",
                   help="also write the instance for another tool, before searching "
                        "(atomically, never over an input): FILE.aig, the Step 3–4 relation "
                        "as binary AIGER (one latch per item bit, all starting at 0; output v: "
                        "the state shows value v); FILE.cnf, DIMACS of one unrolling of "
                        "--dump-length letters asking for a value above K (with K) or the "
                        "value m_A; the comment lines say what each variable means")
    p.add_argument("--dump-length", type=positive, metavar="L",
                   help="--dump-circuit FILE.cnf: the number of letters unrolled")
    p.add_argument("--within", metavar="REGEX_OR_DFA_JSON",
                   help="only positions whose word matches this regular expression (automata-lib "
                        "syntax) or is accepted by this DFA (a .json file in automata-lib's "
                        "constructor shape)")
    add_budget(p)
    p.add_argument("--engine", choices=[AUTO, *ENGINES], default=AUTO,
                   help="what runs the on-the-fly search (the same verdict on each): " + "; ".join(
                       f"{name}: {e.describe}" for name, e in ENGINES.items())
                   + "; auto (default): python, then compiled for searches large enough to "
                     "repay loading numba (the explicit route explores with python or "
                     "compiled)")
    _add_options(p, ENGINES.values())
    p.add_argument("--full-witness", action="store_true",
                   help="spell out witnesses longer than 65,536 letters in full (by default "
                        "they are printed run-length, e.g. a^160949018, in text and JSON)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_max)


def _load_within(spec: str) -> Any:
    """A DFA JSON file (automata-lib's constructor shape) or a regular expression.

    A name ending in ``.json`` in any case is a file, as for grammars: ``E.JSON`` read as
    an expression would silently answer for another language."""
    if not spec.lower().endswith(".json"):
        return spec
    from ..render.exports import dfa_from_json

    return dfa_from_json(read_text(spec, what="DFA file"), source=spec)


def _abbreviated(word: Any, limit: int = 60, *, full: bool = False) -> str:
    """A witness for a terminal: in full when short (or ``full``), a run-length word as
    ``a^160949018``, else its ends and length (--json has all)."""
    from ..grammar.words import Word, brief

    if isinstance(word, Word):
        if full:
            return repr(str(word))
        return brief(word, limit, note="; --json gives the runs, --full-witness the word")
    if word is None or len(word) <= limit or full:
        return repr(word)
    return f"{word[:24]!r}…{word[-24:]!r} (length {len(word)}; --json prints it whole)"


def _unsettled(args: argparse.Namespace, verdict: Any) -> NoReturn:
    """Exit 3 for a verdict that settled nothing by its strategy's nature (a bounded search
    that found nothing beyond a length, a proof that failed its check): the error line says
    what it found, as the evidence words it
    (:meth:`~sdg_automata.search.request.Evidence.unsettled`), and, under --json, the
    ``stopped/1`` object carries the verdict (max/3: ``"exact": false``, the largest value
    found, the evidence) in ``at`` — never a bare verdict that could be read as an
    answer."""
    top = verdict.maximum
    context = ("for any value" if top is None else
               f"for a value above {top}; max ≥ {top}, witness {_abbreviated(verdict.witness)}")
    evidence = verdict.evidence
    why = None if evidence is None else evidence.unsettled(verdict)
    message = f"{why or 'not settled'} ({context})"
    emit_stopped(args, message, reason="unproven",
                 explored=None if evidence is None else evidence.reached(),
                 at=verdict.to_json(full_witness=args.full_witness))
    fail(message, ExitCode.BUDGET)


def _dump(args: argparse.Namespace, g: Any, head: str, within: Any) -> None:
    """``--dump-circuit``: the instance as AIGER or DIMACS (:mod:`sdg_automata.search.dump`),
    written as every output is (atomically, never over an input)."""
    from ..search.dump import circuit_file

    path = args.dump_circuit
    if path is None:
        raise InputError("--dump-length goes with --dump-circuit FILE.cnf")
    kind = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if kind not in ("aig", "cnf"):
        raise InputError(f"--dump-circuit writes FILE.aig (AIGER) or FILE.cnf (DIMACS), not "
                         f"{path!r}")
    if kind == "cnf" and args.dump_length is None:
        raise InputError("a DIMACS dump is one unrolling: give its number of letters with "
                         "--dump-length L")
    if kind == "aig" and args.dump_length is not None:
        raise InputError("--dump-length goes with a DIMACS dump (FILE.cnf): AIGER holds the "
                         "relation, not an unrolling")
    data = circuit_file(g, head, kind, k=args.k, within=within, length=args.dump_length)
    output(args, data, to=path, option="--dump-circuit")
    print(f"wrote {path}", file=sys.stderr)


def _cmd_max(args: argparse.Namespace) -> int:
    from ..search.decide import max_grundy
    from ..search.engines import ENGINES
    from ..search.strategies import STRATEGIES
    from ..search.strategies.base import EXPLORING

    g = load(args)
    head = g.check_nonterminal(args.nonterminal)
    within = _load_within(args.within) if args.within else None
    strategy = None if args.strategy == "auto" else args.strategy
    # the progress bar says what the strategy counts (the default ones and routes: states)
    what, unit = (STRATEGIES[strategy].progress if strategy is not None
                  and args.method == "onthefly" else EXPLORING)
    # every strategy's and engine's arguments: max_grundy refuses those of others than
    # the ones that run
    options = {k: v for entry in (*STRATEGIES.values(), *ENGINES.values())
               for k, v in entry.read_arguments(args).items()}
    if args.dump_circuit is not None or args.dump_length is not None:
        _dump(args, g, head, within)
    with progress(f"{what} from {head}", enabled=not args.json, unit=unit) as bar:
        verdict = max_grundy(g, head, args.k, method=args.method, strategy=strategy,
                             within=within, engine=args.engine, options=options,
                             budget=budget(args, bar))
    # a bounded search that settled nothing: exit 3 with what it found (not a "no")
    if not verdict.exact if args.k is None else verdict.answer is None:
        _unsettled(args, verdict)
    if args.json:
        emit(verdict.to_json(full_witness=args.full_witness))
    else:
        where = f"L(G, {head})" + (" ∩ L(within)" if within is not None else "")
        if verdict.maximum is None:
            summary = f"no positions: {where} is empty"
        else:
            bound = "" if verdict.exact else "at least "
            summary = (f"max {bound}{verdict.maximum}, witness "
                       f"{_abbreviated(verdict.witness, full=args.full_witness)}")
        # the strategy's own note (a solver's: the lengths searched, the proof), else states
        note = None if verdict.evidence is None else verdict.evidence.summary(verdict.proof)
        if note is not None:
            summary += f" ({note})"
        else:
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


def _add_dfa(p: Parser) -> None:
    p.description = ("Print M_{A,I}, which accepts the reverses of the words w with "
                     "𝒢_{G,A}(w) = I (SPEC §4, Step 5), or with --forward the DFA of those "
                     "words themselves.")
    add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="I", type=natural, help="the Grundy number")
    p.add_argument("--forward", action="store_true",
                   help="the minimal DFA of {w : 𝒢(A, w) = I}, without a dead state (right-"
                        "linear: a subset construction of the reversed automaton, counted "
                        "against --max-states as it is built; left-linear: the automaton "
                        "minimized by automata-lib)")
    p.add_argument("--minimal", action="store_true", help="minimize (automata-lib minify)")
    p.add_argument("--format", choices=["text", "json", "dot", "jff", "svg", "png"],
                   default="text",
                   help="text: transition table; json: automata-lib constructor shape; dot: DOT; "
                        "jff: JFLAP; svg, png: drawn by Graphviz (pip install "
                        "\"sdg_automata[visual]\")")
    p.add_argument("--labels", choices=["ids", "items"], default="ids",
                   help="state names: numbers, or the item sets of SPEC §4 (only for the "
                        "unminimized M_{A,i})")
    add_output(p)
    add_drawing(p)
    add_budget(p)
    add_engine(p)
    p.set_defaults(func=_cmd_dfa)


def _cmd_dfa(args: argparse.Namespace) -> int:
    from ..automaton.construction import dfa
    from ..render.dot import dfa_to_dot
    from ..render.exports import dfa_to_jff, dfa_to_json
    from ..render.tables import dfa_to_table

    check_visual(args)
    g = load(args)
    head = g.check_nonterminal(args.nonterminal)
    reachable = explore(args, g)
    machine = dfa(g, head, args.value, forward=args.forward, minimal=args.minimal,
                  reachable=reachable, budget=budget(args))
    automaton = reachable.automaton
    label: Callable[[Any], str] = str
    if args.labels == "items":
        if args.forward or args.minimal or automaton.reading.mirrored:
            raise InputError("--labels items names the states of the unminimized M_{A,i} of a "
                             "right-linear grammar; drop --forward/--minimal")
        label = lambda s: automaton.label(reachable.states[s])  # noqa: E731
    writers: dict[str, Callable[..., str]] = {
        "text": dfa_to_table, "json": dfa_to_json, "dot": dfa_to_dot, "jff": dfa_to_jff,
        "svg": dfa_to_dot, "png": dfa_to_dot}  # svg/png: DOT laid out by deliver
    deliver(args, writers[args.format](machine, label=label), size=len(machine.states))
    if not machine.final_states:  # every state is reachable: no final state, no word
        print(f"note: no word w has 𝒢({head}, w) = {args.value}: the DFA accepts nothing",
              file=sys.stderr)
    return ExitCode.OK


def _add_spectrum(p: Parser) -> None:
    p.description = ("For every nonterminal A: the bound m_A (SPEC §3), the Grundy values that "
                     "occur on L(G, A), a shortest witness for each, and the reachable states. "
                     "The automaton reads all of Σ, so a declared letter that no rule uses "
                     "(terminals: c) adds one reachable state: the dead state it leads to.")
    add_grammar(p, start="none")
    p.add_argument("--json", action="store_true", help="one JSON object per nonterminal")
    add_budget(p)
    add_engine(p)
    p.set_defaults(func=_cmd_spectrum)


def _cmd_spectrum(args: argparse.Namespace) -> int:
    from ..search.spectrum import spectrum

    g = load(args)
    with progress("building the automaton", enabled=not args.json) as bar:
        rows = spectrum(g, budget=budget(args, bar), engine=args.engine)
    if args.json:
        for r in rows:
            emit({"nonterminal": r.nonterminal, "bound": r.bound, "max": r.maximum,
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


def _add_regex(p: Parser) -> None:
    p.description = ("Print a regular expression, in automata-lib's syntax (| * + ? and "
                     "parentheses), for the words w with 𝒢_{G,A}(w) = C: state elimination "
                     "(automata-lib's GNFA) on the minimal forward DFA. The expression can grow "
                     "exponentially with the DFA, so larger DFAs than --max-dfa-states are "
                     "refused. An empty class prints ∅. Right- and left-linear grammars.")
    add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="C", type=natural, help="the Grundy number")
    p.add_argument("--max-dfa-states", type=positive, default=50, metavar="N",
                   help="refuse minimal DFAs with more than N states (default 50), checked as "
                        "the DFA is built from the explored automaton (the exploration before "
                        "it is bounded by --max-states and --max-seconds)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_budget(p)
    add_engine(p)
    p.set_defaults(func=_cmd_regex)


def _cmd_regex(args: argparse.Namespace) -> int:
    from ..automaton.construction import dfa
    from ..render.exports import dfa_to_regex

    g = load(args)
    head = g.check_nonterminal(args.nonterminal)
    reachable = explore(args, g)
    # the size guard, checked while the subset construction builds the minimal DFA (and
    # before automata-lib is called): counting on up to REGEX_COUNT_FACTOR times the limit
    # lets the refusal say how large a DFA just above the limit is
    cap = args.max_dfa_states * REGEX_COUNT_FACTOR
    limits = budget(args)
    guard = replace(limits, max_states=min(cap, limits.max_states or cap))
    try:
        machine = dfa(g, head, args.value, forward=True, reachable=reachable, budget=guard)
    except BudgetExceeded as e:
        if limits.max_states is not None and limits.max_states <= cap or e.explored < cap:
            raise  # the user's own budget (states or seconds) ran out
        raise BudgetExceeded(f"the DFA has more than {cap} states (counting stopped there), "
                             f"over --max-dfa-states {args.max_dfa_states}: regular expressions "
                             "by state elimination grow exponentially with the states",
                             explored=e.explored) from None
    meter = limits.start("state elimination", unit="states")
    meter.count = len(machine.states)
    with meter.library("automata-lib GNFA"):  # --max-seconds reaches inside automata-lib
        regex = dfa_to_regex(machine, limit=args.max_dfa_states)
    if args.json:
        emit({"nonterminal": head, "grundy": args.value, "regex": regex,
               "empty": regex is None, "dfa_states": len(machine.states)})
    elif regex is None:
        print("∅")
        print(f"note: no word w has 𝒢({head}, w) = {args.value}", file=sys.stderr)
    else:
        print(regex)
    return ExitCode.OK


def _add_count(p: Parser) -> None:
    from ..automaton.transfer import COUNT_SECONDS, CountMethod

    p.description = (
        "Count the words w of length N with 𝒢_{G,A}(w) = C, exactly, over the int "
        "tables of the minimal automaton (not by enumeration): two rolling levels of "
        "integers, or powers of the transfer matrix when N is large and the class "
        "small, whichever is estimated cheaper. A count estimated to need more "
        f"memory than is available, or more than {COUNT_SECONDS:g} s (3 × S with "
        "--max-seconds S), is refused at once with exit 3. --gf: the "
        "rational generating function Σ countₙ xⁿ (sympy); --density: the limit of "
        "countₙ / |Σ|ⁿ, or its limit points along the residues of n when the class "
        "oscillates (exact rationals). Right- and left-linear grammars.")
    add_grammar(p, nonterminal=True)
    p.add_argument("value", metavar="C", type=natural, help="the Grundy number")
    p.add_argument("--length", type=natural, metavar="N", help="the word length")
    p.add_argument("--gf", action="store_true", help="the generating function")
    p.add_argument("--density", action="store_true", help="the density of the class")
    p.add_argument("--max-dfa-states", type=positive, default=500, metavar="N",
                   help="--gf/--density: refuse classes whose minimal DFA has more than N "
                        "states (default 500; the cost grows quadratically)")
    p.add_argument("--method", choices=get_args(CountMethod), default="auto",
                   help="auto: the cheaper by estimate; levels: two rolling levels of "
                        "integers; power: transfer-matrix powers; automata-lib: its "
                        "count_words_of_length (the reference; keeps every level)")
    p.add_argument("--plot", metavar="FILE",
                   help="with --length N: also draw the counts of every length 0..N on a log "
                        "axis, as a .png, .svg or .pdf FILE (atomically; the plot extra)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_budget(p)
    add_engine(p)
    p.set_defaults(func=_cmd_count)


def _cmd_count(args: argparse.Namespace) -> int:
    from ..automaton.counting import ClassMachine

    if args.length is None and not (args.gf or args.density):
        raise InputError("give --length N, --gf or --density")
    if args.plot is not None:  # refused before any work
        check_plot(args.plot, args.length, option="--length")
    g = load(args)
    head = g.check_nonterminal(args.nonterminal)
    machine = ClassMachine.build(g, head, reachable=explore(args, g))
    out: dict[str, Any] = {"nonterminal": head, "grundy": args.value}
    with progress("counting", enabled=not args.json, unit="levels") as bar:
        limits = budget(args, bar)
        if args.length is not None:
            out["length"] = args.length
            # refuse before any work what could not be counted or printed in time
            machine.plan(args.value, args.length, method=args.method, budget=limits,
                         decimal=True)
            out["count"] = machine.count(args.value, args.length, method=args.method,
                                         budget=limits)
        if args.gf:
            out["gf"] = str(machine.generating_function(args.value, limit=args.max_dfa_states,
                                                        budget=limits))
        density = (machine.density(args.value, limit=args.max_dfa_states, budget=limits)
                   if args.density else None)
        if args.plot is not None:  # every length's count: one backward pass over the class
            from ..render.plots import counts_by_length, plot_counts

            counts = counts_by_length(g, head, args.value, max_length=args.length,
                                      budget=limits, machine=machine)
            write_plot(args, plot_counts(counts))
    if density is not None:
        out["density"] = density.to_json()
    with unlimited_digits():  # counts of long words exceed Python's 4300-digit default
        if args.json:
            emit(out)
            return ExitCode.OK
        if "count" in out:
            print(out["count"])
    if args.gf:
        print(f"gf: {out['gf']}")
    if density is not None:
        print(f"density: {density}")
    return ExitCode.OK


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("max", _add_max,
                help="Max-Grundy: the maximum Grundy number over L(G, A), or is it K?")
    sub.command("dfa", _add_dfa, help="the DFA M_{A,i} of the Step 1–5 construction")
    sub.command("spectrum", _add_spectrum,
                help="every nonterminal: bound, values reached, a witness per value")
    sub.command("regex", _add_regex, help="a regular expression for {w : 𝒢(A, w) = C}")
    sub.command("count", _add_count, help="how many words of length N have 𝒢(A, w) = C; "
                                          "generating function; density")
