"""Commands on games: ``moves``, ``play``, ``period``, ``graph`` and ``game-graph``
(SPEC §2, §7)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, get_args

from ..errors import InputError
from .arguments import add_grammar, load, natural, positive
from .budgets import add_budget, add_engine, budget, progress
from .exits import ExitCode
from .jsonout import emit, stamped
from .misere import add_misere_options
from .parser import Commands, Parser
from .writing import add_drawing, add_output, check_visual, deliver

if TYPE_CHECKING:
    from ..games.graphfile import NodeId

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "moves": ("sdg-automata moves examples/example3.txt A:aab B:ba",),
    "play": ("sdg-automata play examples/example3.txt A:aab",
             "printf '1\\n' | sdg-automata play examples/example3.txt A:aab"),
    "period": ("sdg-automata family subtraction 1,3,4 -o s134.txt && "
               "sdg-automata period s134.txt A",),
    "graph": ("sdg-automata graph examples/graphs/dag.json",
              "sdg-automata graph examples/graphs/nim_heaps.json --sum h3 h2 h1",
              "sdg-automata graph examples/graphs/nim_heaps.json --misere --sum h1 h1 h1"),
    "game-graph": ("sdg-automata game-graph examples/example3.txt A --max-length 2",
                   "sdg-automata game-graph examples/example3.txt --max-length 3 --format dot "
                   "-o gg.dot"),
}


def _add_position_args(p: Parser) -> None:
    from ..derivation.play import MoveMethod

    add_grammar(p, start="none")  # the positions name their nonterminals
    p.add_argument("position", metavar="A:w", nargs="+",
                   help="the components of the position, e.g. A:aab B:ba")
    p.add_argument("--method", choices=get_args(MoveMethod), default="auto",
                   help="auto: the automaton for right/left-linear grammars (one pass over each "
                        "word's suffixes), the substring DP otherwise; dfa: the automaton; cyk: "
                        "the substring DP")
    add_budget(p, states=False)


def _add_moves(p: Parser) -> None:
    p.description = ("List the moves of a multiset position A:w ... (SPEC §2) with the Grundy "
                     "number of the position each leads to, and name the winning moves (those "
                     "to XOR 0). Moves that lead to the same position (two derivation steps "
                     "with the same result) are listed once.")
    _add_position_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_moves)


def _cmd_moves(args: argparse.Namespace) -> int:
    from ..derivation.play import Analyzer, format_parts, parse_position
    from ..render.tables import text_table

    analyzer = Analyzer(load(args), method=args.method, budget=budget(args))
    analysis = analyzer.analyze(parse_position(analyzer, args.position))
    if args.json:
        emit(analysis.to_json())
        return ExitCode.OK
    who = ("N-position: the player to move wins" if analysis.grundy
           else "P-position: the player to move loses")
    print(f"position  {format_parts(analysis.position)}")
    print(f"values    {' xor '.join(map(str, analysis.values))} = {analysis.grundy} ({who})")
    rows = [(str(k), m.text(), str(m.rule), str(m.grundy), "wins" if m.winning else "")
            for k, m in enumerate(analysis.moves, 1)]
    head = ("#", "move", "rule", "grundy after", "")
    sys.stdout.write(text_table([head, *rows], right=(True, False, False, True)))
    winning = [str(k) for k, m in enumerate(analysis.moves, 1) if m.winning]
    print(f"winning moves: {', '.join(winning) if winning else 'none'}")
    return ExitCode.OK


def _add_play(p: Parser) -> None:
    from ..derivation.play import Player

    p.description = ("Play the SDG from a position against the engine (normal play: who "
                     "cannot move loses). The engine plays a winning move when there is one; "
                     "otherwise the move removing the fewest letters. At your turn type a move "
                     "number, 'h' for a hint or 'q' to quit. When standard input is not a "
                     "terminal, moves are read from it one per line.")
    _add_position_args(p)
    p.add_argument("--first", choices=get_args(Player), default="human",
                   help="who moves first (default: human)")
    for action in p._actions:  # a game lasts as long as the human thinks
        if action.dest == "max_seconds":
            action.help = "stop with exit 3 when one analysis of a position takes S seconds"
    p.set_defaults(func=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..derivation.play import Analyzer, Game, parse_position, play_terminal

    # a game lasts as long as the human thinks: --max-seconds bounds each analysis
    analyzer = Analyzer(load(args), method=args.method, budget=budget(args, each=True))
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


def _add_period(p: Parser) -> None:
    p.description = ("For a right- or left-linear grammar over one letter (e.g. a subtraction "
                     "game A -> a^k A | a^k), read the preperiod and period of "
                     "s(n) = 𝒢(A, aⁿ), n ≥ 1, off the automaton's lasso: a proof, not a guess "
                     "(SPEC §7). Prints them and the values s(p0+1), ..., s(p0+p).")
    add_grammar(p, nonterminal=True)
    add_budget(p)
    add_engine(p)
    p.add_argument("--json", action="store_true",
                   help="print {nonterminal, preperiod, period, values} (⊥ as null)")
    p.set_defaults(func=_cmd_period)


def _cmd_period(args: argparse.Namespace) -> int:
    from ..derivation.periodicity import proven_period

    g = load(args)
    period = proven_period(g, g.check_nonterminal(args.nonterminal), budget=budget(args),
                           engine=args.engine)
    if args.json:
        emit(period.to_json())
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


def _add_graph(p: Parser) -> None:
    p.description = ("Solve a finite acyclic game graph given as JSON "
                     '{"positions": {"x": ["y", "z"], ...}} (a follower that is not a key is a '
                     "sink, a position with no moves): print every position's Grundy number "
                     "and outcome (P: the player to move loses; N: the player to move wins).  "
                     "With --sum, print the XOR of a sum of positions and a winning move.  "
                     "--misere: misère play (outcomes; with --sum the sum's outcome from the "
                     "misère quotient, --quotient the quotient, --forms misère nim values, "
                     "genus and canonical forms).")
    p.add_argument("graph", metavar="GRAPH", help="game graph file (JSON)")
    p.add_argument("--misere", action="store_true",
                   help="misère play (the last mover loses): each position's outcome; with "
                        "--sum, the sum's outcome from the misère quotient of the graph's "
                        "positions (the XOR does not decide misère sums)")
    add_misere_options(p, octal=False)
    p.add_argument("--sum", metavar="POSITION", nargs="+",
                   help="the sum of these positions (one per component, repeats allowed; "
                        "components are numbered from 0): print its XOR and a winning move")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_budget(p, states=False)
    p.set_defaults(func=_cmd_graph)


def _graph_table(header: Sequence[str], columns: Sequence[Sequence[str]],
                 right: Sequence[bool]) -> str:
    """An aligned table given column by column (rows for :func:`render.text_table`)."""
    from ..render.tables import text_table

    return text_table([header, *zip(*columns, strict=True)], right=right).rstrip("\n")


def _names(ids: Iterable[NodeId]) -> dict[NodeId, str]:
    """How each position is shown: an integer node id (node-link JSON) as its digits, a
    string as itself, or as a JSON string when an integer node has the same digits."""
    ids = list(ids)
    digits = {str(p) for p in ids if isinstance(p, int)}
    return {p: json.dumps(p, ensure_ascii=False) if isinstance(p, str) and p in digits else str(p)
            for p in ids}


def _position(text: str, known: Mapping[NodeId, object], source: str) -> NodeId:
    """The position a --sum argument names: the string itself, or the integer node with those
    digits (node-link JSON), or, quoted as a JSON string, the string."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            quoted = json.loads(text)
        except ValueError:
            quoted = None
        if isinstance(quoted, str):
            return quoted
    as_int = int(text) if re.fullmatch(r"-?(0|[1-9][0-9]*)", text) else None
    if as_int is not None and as_int in known:
        if text in known:
            raise InputError(f"--sum {text}: the graph has both the integer node {text} and "
                             f"the string node \"{text}\"; write '{text}' for the integer, "
                             f"'\"{text}\"' (quoted) for the string", source=source)
        return as_int
    return text


def _cmd_graph(args: argparse.Namespace) -> int:
    from ..games.graphfile import solve_game_graph_file

    if (args.quotient or args.forms) and not args.misere:
        raise InputError(f"{'--quotient' if args.quotient else '--forms'} needs --misere")
    if args.quotient and args.sum:
        raise InputError("--quotient and --sum do not go together (--sum shows the sum's class)")
    sol = solve_game_graph_file(args.graph)
    name = _names(sol.grundy)
    if args.misere and (args.sum or args.quotient or args.forms):
        from .misere import run_graph

        parts = None
        if args.sum:
            parts = [_position(text, sol.grundy, args.graph) for text in args.sum]
            unknown = next((p for p in parts if p not in sol.grundy), None)
            if unknown is not None:
                raise InputError(f"unknown position {unknown!r}", source=args.graph)
        return run_graph(args, sol, name.__getitem__, parts)

    def record(p: NodeId, fields: dict[str, Any]) -> dict[str, Any]:
        return {**fields, "id": p} if isinstance(p, int) else fields  # ints stay ints

    if args.sum:
        parts = [_position(text, sol.grundy, args.graph) for text in args.sum]
        try:
            total = sol.sum_grundy(parts)
        except InputError as e:
            raise e.located(args.graph) from None
        moves = sol.winning_moves(parts)
        if args.json:
            emit({"components": [{"position": c, "grundy": sol.grundy[c]} for c in parts],
                   "grundy": total, "outcome": sol.sum_outcome(parts),
                   "winning_moves": [{"component": m.component, "from": m.source, "to": m.target}
                                     for m in moves]})
            return ExitCode.OK
        print(_graph_table(["component", "position", "grundy"],
                           [[str(i) for i in range(len(parts))], [name[c] for c in parts],
                            [str(sol.grundy[c]) for c in parts]],
                           [True, False, True]))
        print(f"xor: {total}")
        if moves:
            m = moves[0]
            others = len(moves) - 1
            more = f" ({others} other winning move{'s' * (others > 1)})" if others else ""
            print(f"winning move: component {m.component}: {name[m.source]} -> "
                  f"{name[m.target]}{more}")
        else:
            print("P-position: no winning move (the player to move loses)")
        return ExitCode.OK
    outcome = sol.outcomes(misere=args.misere)
    if args.json:  # keyed by how positions are shown; an integer node also carries its "id"
        if args.misere:
            emit({"positions": {name[p]: record(p, {"outcome": o}) for p, o in outcome.items()}})
        else:
            emit({"positions": {name[p]: record(p, {"grundy": g, "outcome": outcome[p]})
                                for p, g in sol.grundy.items()}})
    elif args.misere:
        print(_graph_table(["position", "outcome (misère)"],
                           [list(name.values()), list(outcome.values())], [False, False]))
    else:
        print(_graph_table(["position", "grundy", "outcome"],
                           [list(name.values()), list(map(str, sol.grundy.values())),
                            list(outcome.values())],
                           [False, True, False]))
    return ExitCode.OK


def _add_game_graph(p: Parser) -> None:
    p.description = ("Every position (X, w) with 1 ≤ |w| ≤ N for the chosen nonterminals "
                     "(default: all), every position reachable from them, and the moves; ∅ is "
                     "the final position. Each node shows its Grundy number and the P-positions "
                     "(𝒢 = 0) are highlighted, as in Figures 1 and 7 of the paper. SVG and PNG "
                     "need the visual extra: pip install \"sdg_automata[visual]\".")
    add_grammar(p, start="nonterminal")
    p.add_argument("nonterminals", metavar="NONTERMINAL", nargs="*",
                   help="the nonterminals X (default: all)")
    p.add_argument("--max-length", type=natural, default=3, metavar="N",
                   help="the largest |w| (default 3)")
    p.add_argument("--max-nodes", type=positive, default=2000, metavar="K",
                   help="refuse graphs with more than K positions (default 2000)")
    p.add_argument("--format", choices=["text", "json", "dot", "svg", "png"], default="text",
                   help="text: one line per position; json: nodes and moves; dot: DOT; "
                        "svg, png: drawn by Graphviz")
    add_output(p)
    add_drawing(p)
    add_budget(p, states=False)
    p.set_defaults(func=_cmd_game_graph)


def _cmd_game_graph(args: argparse.Namespace) -> int:
    from ..derivation.gamegraph import game_graph
    from ..render.dot import game_graph_to_dot

    check_visual(args)
    g = load(args)
    heads = args.nonterminals or None
    if args.start is not None:  # the start symbol is the one X, when none is named
        if heads not in (None, [args.start]):
            raise InputError(f"--start {args.start} and NONTERMINALs {' '.join(heads)} name "
                             "different nonterminals: give one of them")
        heads = [args.start]
    with progress("building the game graph", enabled=args.format != "json",
                  unit="positions") as bar:
        gg = game_graph(g, heads, args.max_length,
                        max_nodes=args.max_nodes, budget=budget(args, bar))
    if args.format == "json":
        text = json.dumps(stamped(gg.to_json()), ensure_ascii=False) + "\n"
    elif args.format == "text":
        names = [gg.name(p) for p in gg.nodes]
        text = "".join(f"{name}\t{v}\t{', '.join(names[t] for t in ts) or '(no move)'}\n"
                       for name, v, ts in zip(names, gg.values, gg.moves(), strict=True))
    else:
        text = game_graph_to_dot(gg)
    deliver(args, text, size=len(gg.nodes))
    return ExitCode.OK


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("moves", _add_moves,
                help="the positions one move leads to, their values, and the winning moves")
    sub.command("play", _add_play, help="play a position against the engine in the terminal")
    sub.command("period", _add_period,
                help="proven preperiod and period of n ↦ 𝒢(A, aⁿ) over one letter")
    sub.command("graph", _add_graph, help="Grundy numbers and outcomes of a finite game graph")
    sub.command("game-graph", _add_game_graph,
                help="the game graph of the positions (X, w), |w| ≤ N, with Grundy numbers")
