"""Playing SDG positions: every move with its value, winning moves, a game against the engine.

A position is a multiset of components (A, w) with w ∈ L(G, A) (SPEC §2).  A
move replaces one component by the parts of one split of its word along one
rule; the value of the result is the XOR of its components' values (a sum of
games), and a move *wins* exactly when it reaches XOR 0, a P-position (SPEC §7).

:class:`Analyzer` lists the moves of a position with their values, computing
the values of all successors of a component at once:

* right-linear grammars: every successor of (A, w) is (C, y) with y a suffix
  of w (SPEC §2 table), so the Step 1–5 automaton (SPEC §4) is run **once**
  over wᴿ and the state after each suffix is kept; the state after the
  suffix y gives 𝒢_C(y) for every C.  Left-linear grammars go through their
  mirror (every successor's word is then a prefix).
* any other CFG: one :class:`~sdg_automata.derivation.semantics.SubstringTable` per word
  gives 𝒢_B of every substring, hence of every part of every split.

:class:`Game` is a game between a human and the engine; :func:`play_terminal`
runs it in a terminal with rich (or from a script on standard input).

Engine policy (:func:`engine_choice`): from an N-position the engine plays a
winning move (the first one listed).  From a P-position no move wins against
perfect play; the engine then plays the move that removes the **fewest**
letters (ties: the first listed) — a greedy way to keep the game long, so that
the opponent has more chances to err.  (Removing the most letters instead
would only hasten a loss that perfect play makes certain anyway.)

>>> from sdg_automata.grammar.parse import parse_grammar
>>> g = parse_grammar("A -> a A | a a A | B | a | a a\\nB -> b A | b")
>>> a = analyze(g, [("A", "aab"), ("B", "ba")])
>>> a.grundy, [m.text() for m in a.winning_moves]
(2, ['A:aab → A:b'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..automaton.construction import GrundyAutomaton, automaton_for
from ..automaton.reading import servable
from ..errors import InputError, SdgBug
from ..games.mex import nim_sum
from ..grammar import Grammar, Rule
from ..runtime.budget import UNLIMITED, Budget
from .semantics import Pair, Position, SubstringTable, make_position, split_spans

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "Analysis",
    "Analyzer",
    "ComponentMove",
    "Game",
    "Move",
    "MoveMethod",
    "Player",
    "analyze",
    "engine_choice",
    "format_pair",
    "format_parts",
    "parse_pair",
    "parse_position",
    "play_terminal",
]

MoveMethod = Literal["auto", "dfa", "cyk"]
"""``auto``: the automaton for right/left-linear grammars, the substring DP
otherwise; ``dfa``: the automaton (right/left-linear only); ``cyk``: the
substring DP always."""

Player = Literal["engine", "human"]


# ---------------------------------------------------------------------------
# notation


def format_pair(pair: Pair) -> str:
    """``A:aab`` — the command-line notation of one component."""
    return f"{pair[0]}:{pair[1]}"


def format_parts(parts: Sequence[Pair]) -> str:
    """The components separated by spaces, ``∅`` for none (a terminal rule)."""
    return " ".join(map(format_pair, parts)) if parts else "∅"


def parse_pair(grammar: Grammar, text: str) -> Pair:
    """Read ``A:w`` (the word is not checked here; see :func:`parse_position`).

    Raises
    ------
    InputError
        Without a colon, or when A is not a nonterminal.
    """
    head, sep, w = text.partition(":")
    if not sep:
        raise InputError(f"position part {text!r} must be written NONTERMINAL:WORD, e.g. A:aab")
    grammar.check_nonterminal(head)
    return head, w


# ---------------------------------------------------------------------------
# moves and their values


@dataclass(frozen=True)
class ComponentMove:
    """One move of a single component (A, w): the rule, the parts, their XOR.

    Attributes
    ----------
    rule:
        The rule of the grammar used (the first one, when several rules give
        the same parts).
    parts:
        The components that replace (A, w), in the order of the rule body
        (empty for a terminal rule A → w).
    value:
        𝒢 of the multiset ``parts`` (XOR of their values, SPEC §2).
    """

    rule: Rule
    parts: Position
    value: int


@dataclass(frozen=True)
class Move:
    """A move of a multiset position (SPEC §2) and the value of where it leads.

    Attributes
    ----------
    index:
        Which component of the analysed position is played (0-based, in the
        order of :attr:`Analysis.position`).
    component:
        That component (A, w).
    rule, parts:
        The rule and the replacing parts (see :class:`ComponentMove`).
    result:
        The position after the move: the component replaced *in place* by
        ``parts`` (so a board keeps its order); compare positions with
        :func:`~sdg_automata.derivation.semantics.make_position`.
    grundy:
        𝒢 of ``result``, the XOR of every component's value.
    """

    index: int
    component: Pair
    rule: Rule
    parts: Position
    result: Position
    grundy: int

    @property
    def winning(self) -> bool:
        """Whether the move reaches a P-position (XOR 0, SPEC §7)."""
        return self.grundy == 0

    @property
    def letters_removed(self) -> int:
        """How many letters the move takes off the board (the rule's terminals)."""
        return len(self.component[1]) - sum(len(w) for _, w in self.parts)

    def text(self) -> str:
        """``A:aab → A:ab`` (``→ ∅`` when the component disappears)."""
        return f"{format_pair(self.component)} → {format_parts(self.parts)}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "component": self.index,
            "nonterminal": self.component[0],
            "word": self.component[1],
            "rule": str(self.rule),
            "parts": [{"nonterminal": h, "word": w} for h, w in self.parts],
            "grundy": self.grundy,
            "winning": self.winning,
        }


@dataclass(frozen=True)
class Analysis:
    """A multiset position, its components' values, and every move (SPEC §2).

    ``moves`` holds each distinct resulting position once (two components
    that are equal, or two rules that split a word the same way, give one
    move), in the order: component, rule, split.
    """

    position: Position
    values: tuple[int, ...]
    moves: tuple[Move, ...]

    @property
    def grundy(self) -> int:
        """𝒢 of the position: the XOR of its components' values."""
        return nim_sum(self.values)

    @property
    def outcome(self) -> Literal["N", "P"]:
        """``"N"``: the player to move wins; ``"P"``: the player who just moved wins."""
        return "N" if self.grundy else "P"

    @property
    def winning_moves(self) -> tuple[Move, ...]:
        """The moves to XOR 0 (none exactly in a P-position)."""
        return tuple(m for m in self.moves if m.winning)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; ``winning`` holds the indices (0-based) of the winning moves
        in ``moves``, and each move's ``component`` its component's index in ``position``."""
        return {
            "position": [{"nonterminal": h, "word": w, "grundy": v}
                         for (h, w), v in zip(self.position, self.values, strict=True)],
            "grundy": self.grundy,
            "outcome": self.outcome,
            "moves": [m.to_json() for m in self.moves],
            "winning": [k for k, m in enumerate(self.moves) if m.winning],
        }


class Analyzer:
    """Values and moves of SDG positions for one grammar, with caches (SPEC §2, §4).

    Parameters
    ----------
    grammar:
        Any grammar (SPEC §1).
    method:
        See :data:`MoveMethod`.
    budget:
        Limits each substring table (the CFG route: O(|w|³) per component,
        refused up front when it cannot fit in memory); the automaton's route
        is one linear pass per word.

    Raises
    ------
    InputError
        For ``method="dfa"`` on a grammar that is neither right- nor left-linear.
    """

    def __init__(self, grammar: Grammar, *, method: MoveMethod = "auto",
                 budget: Budget = UNLIMITED):
        if method not in get_args(MoveMethod):
            raise InputError(f"unknown method {method!r} (expected auto, dfa or cyk)")
        linear = servable(grammar)
        if method == "dfa" and not linear:
            raise InputError(f"method 'dfa' needs a right- or left-linear grammar, this one is "
                             f"{grammar.kind}")
        self.grammar = grammar
        self.budget = budget
        self.method: Literal["dfa", "cyk"] = "dfa" if linear and method != "cyk" else "cyk"
        # a left-linear grammar is played on its mirror: the automaton's reading says so
        self._automaton = automaton_for(grammar) if self.method == "dfa" else None
        self._cache: dict[Pair, tuple[int | None, tuple[ComponentMove, ...]]] = {}

    # -- one component ---------------------------------------------------------

    def component(self, head: str, w: str) -> tuple[int | None, tuple[ComponentMove, ...]]:
        """𝒢_{G,A}(w) (``None`` for ⊥) and the moves of {(A, w)}, each distinct parts once."""
        self.grammar.check_nonterminal(head)
        key = (head, w)
        found = self._cache.get(key)
        if found is None:
            if not w:
                found = (None, ())
            elif self.method == "dfa":
                found = self._linear_moves(head, w)
            else:
                found = self._cfg_moves(head, w)
            self._cache[key] = found
        return found

    def value(self, head: str, w: str) -> int | None:
        """𝒢_{G,A}(w), or ``None`` when w ∉ L(G, A)."""
        return self.component(head, w)[0]

    def _suffix_states(self, automaton: GrundyAutomaton, u: str) -> list[int]:
        """states[i]: the automaton's state after reading the reverse of u[i:] (SPEC §4)."""
        n = len(u)
        states = [0] * (n + 1)
        q = states[n] = automaton.initial
        for i in range(n - 1, -1, -1):  # one right-to-left pass: every suffix once
            q = states[i] = automaton.run(u[i], start=q)
        return states

    def _linear_moves(self, head: str, w: str) -> tuple[int | None, tuple[ComponentMove, ...]]:
        automaton = self._automaton
        if automaton is None:
            raise SdgBug("the automaton's moves were asked of a substring-DP analyzer")
        reading = automaton.reading
        rlg = reading.right_linear
        u = reading.word(w)  # the right-linear grammar's word: every successor is a suffix
        n = len(u)
        states = self._suffix_states(automaton, u)
        value = automaton.grundy_at(states[0], head)
        if value is None:
            return None, ()
        # SPEC §2 table: A → x (w = x), A → xB (w = x·y, y ∈ L(B)), A → B (w ∈ L(B))
        options: dict[Position, ComponentMove] = {}
        for r in rlg.rules_of(head):
            last = r.body[-1]
            if not rlg.is_nonterminal(last):
                if n != len(r.body) or u != "".join(r.body):
                    continue
                parts: Position = ()
                v = 0
            else:
                k = len(r.body) - 1
                if k >= n or (k and not u.startswith("".join(r.body[:-1]))):
                    continue
                found = automaton.grundy_at(states[k], last)  # 𝒢_last(u[k:]) from one state
                if found is None:
                    continue
                parts, v = ((last, reading.word(u[k:])),), found
            # the caller's rule and words, not the mirror's
            options.setdefault(parts, ComponentMove(reading.rule(r), parts, v))
        return value, tuple(options.values())

    def _cfg_moves(self, head: str, w: str) -> tuple[int | None, tuple[ComponentMove, ...]]:
        g = self.grammar
        table = SubstringTable(g, w, budget=self.budget)  # the long phase: O(|w|³)
        value = table.grundy(head)
        if value is None:
            return None, ()
        options: dict[Position, ComponentMove] = {}
        for r in g.rules_of(head):
            for spans in split_spans(g, r, w, table.is_position):
                parts = tuple((b, w[i:j]) for b, i, j in spans)
                acc = nim_sum(table.grundy(b, i, j) or 0 for b, i, j in spans)
                options.setdefault(parts, ComponentMove(r, parts, acc))
        return value, tuple(options.values())

    # -- positions -------------------------------------------------------------

    def check_position(self, position: Iterable[Pair]) -> Position:
        """The position as a tuple, after checking that every component is one.

        Raises
        ------
        InputError
            Naming the first component (A, w) with w ∉ L(G, A).
        """
        parts = tuple(position)
        for head, w in parts:
            if self.value(head, w) is None:
                why = "the empty word" if not w else repr(w)
                raise InputError(f"{format_pair((head, w))} is not a position: {why} is not in "
                                 f"L(G, {head})")
        return parts

    def analyze(self, position: Iterable[Pair]) -> Analysis:
        """Every move of ``position`` with the value it reaches (SPEC §2, §7)."""
        parts = self.check_position(position)
        comps = [self.component(h, w) for h, w in parts]
        values = tuple(v for v, _ in comps if v is not None)
        total = nim_sum(values)
        moves: list[Move] = []
        seen: set[Position] = set()
        for k, ((_, options), pair, v) in enumerate(zip(comps, parts, values, strict=True)):
            rest = total ^ v  # the other components' XOR
            for opt in options:
                result = (*parts[:k], *opt.parts, *parts[k + 1:])
                canonical = make_position(result)
                if canonical in seen:
                    continue
                seen.add(canonical)
                moves.append(Move(k, pair, opt.rule, opt.parts, result, rest ^ opt.value))
        return Analysis(parts, values, tuple(moves))


def analyze(grammar: Grammar, position: Iterable[Pair], *, method: MoveMethod = "auto"
            ) -> Analysis:
    """Every move of ``position`` with its value (SPEC §2); see :class:`Analyzer`.

    Parameters
    ----------
    grammar:
        The grammar G.
    position:
        The multiset position: pairs (A, w), each w a position of A.
    method:
        How the values of the resulting positions are computed (as
        :func:`~sdg_automata.derivation.semantics.grundy`'s ``method``).

    Returns
    -------
    Analysis
        The components' values, the position's Grundy number and outcome
        (``"N"``/``"P"``) and every distinct move, the winning ones marked.

    Raises
    ------
    InputError
        When a component is not a position, or its nonterminal is unknown.

    Examples
    --------
    In Example 3, {(A, aa), (B, ba)} has value 2 ^ 0 = 2; the one winning move
    plays ``A -> a a`` on ``aa``, leaving {(B, ba)} of value 0:

    >>> from sdg_automata import load_grammar
    >>> a = analyze(load_grammar("examples/example3.txt"), [("A", "aa"), ("B", "ba")])
    >>> a.values, a.grundy, a.outcome
    ((2, 0), 2, 'N')
    >>> [(m.rule, m.result) for m in a.winning_moves]
    [(Rule(head='A', body=('a', 'a')), (('B', 'ba'),))]
    """
    parts = list(position)
    for head, _ in parts:
        grammar.check_nonterminal(head)
    return Analyzer(grammar, method=method).analyze(parts)


def parse_position(analyzer: Analyzer, items: Sequence[str]) -> Position:
    """Read ``A:aab B:ba ...`` into a position and check every component.

    Raises
    ------
    InputError
        For a part without a colon, an unknown nonterminal, or a word that is
        not a position of its nonterminal.
    """
    if not items:
        raise InputError("a position needs at least one component NONTERMINAL:WORD")
    return analyzer.check_position(parse_pair(analyzer.grammar, t) for t in items)


def engine_choice(analysis: Analysis) -> Move | None:
    """The engine's move; ``None`` when there is none (the game is over).

    A winning move (the first listed) when one exists; otherwise the move that
    removes the fewest letters (first listed among ties), greedily keeping the
    game long for an opponent who may still err.
    """
    if not analysis.moves:
        return None
    for m in analysis.moves:
        if m.winning:
            return m
    return min(analysis.moves, key=lambda m: m.letters_removed)  # min keeps the first of ties


# ---------------------------------------------------------------------------
# a game


def _other(player: Player) -> Player:
    return "human" if player == "engine" else "engine"


@dataclass
class Game:
    """A game of the SDG between the engine and a human (normal play, SPEC §2).

    Attributes
    ----------
    analyzer:
        Computes moves and values (kept across turns: its caches make later
        turns cheap).
    position:
        The current board, in display order.
    to_move:
        Who moves next.
    history:
        Every move so far with who made it.
    """

    analyzer: Analyzer
    position: Position
    to_move: Player = "human"
    history: list[tuple[Player, Move]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.position = self.analyzer.check_position(self.position)
        self._analysis: Analysis | None = None

    def analysis(self) -> Analysis:
        """The moves of the current position with their values."""
        if self._analysis is None:
            self._analysis = self.analyzer.analyze(self.position)
        return self._analysis

    @property
    def over(self) -> bool:
        """Whether the player to move has no move (only the empty board has none)."""
        return not self.analysis().moves

    @property
    def winner(self) -> Player | None:
        """Who made the last move, once the game is over (normal play); else ``None``."""
        return _other(self.to_move) if self.over else None

    def play(self, move: Move) -> None:
        """Make ``move`` (one of :meth:`analysis`'s) for the player to move."""
        if move not in self.analysis().moves:
            raise InputError(f"{move.text()} is not a move of the current position")
        self.history.append((self.to_move, move))
        self.position = move.result
        self.to_move = _other(self.to_move)
        self._analysis = None

    def engine_move(self) -> Move:
        """Play the engine's move (:func:`engine_choice`) and return it."""
        move = engine_choice(self.analysis())
        if move is None:
            raise InputError("the game is over: no move to play")
        self.play(move)
        return move


# ---------------------------------------------------------------------------
# the terminal


HELP = "type a move number, 'h' for a hint, 'q' to quit"


def _board(game: Game) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="board", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("nonterminal")
    table.add_column("word")
    for k, (head, w) in enumerate(game.position, 1):
        table.add_row(str(k), Text(head), Text(w))
    return table


def _hint(analysis: Analysis) -> str:
    lines = [f"hint: the position has Grundy number {analysis.grundy} "
             f"({analysis.outcome}-position)"]
    for k, m in enumerate(analysis.moves, 1):
        mark = "  ← wins" if m.winning else ""
        lines.append(f"  {k:>3}. {m.text():<30} leads to {m.grundy}{mark}")
    if not analysis.winning_moves:
        lines.append("  no move wins: every move leads to a nonzero XOR")
    return "\n".join(lines)


def play_terminal(
    game: Game,
    *,
    console: Console,
    read_line: Callable[[str], str | None],
    echo: bool = False,
) -> Player | None:
    """Play ``game`` to the end in a terminal; return the winner (``None`` if abandoned).

    Parameters
    ----------
    game:
        The game, with the player to move set.
    console:
        Where the board, moves and messages go (a rich console).
    read_line:
        Called with a prompt; returns the human's line, or ``None`` at end of
        input (then the game is abandoned).
    echo:
        Print the prompt with each line read (for scripted input, whose
        ``read_line`` shows no prompt, so that the transcript shows the moves).
    """
    def say(text: str, style: str | None = None) -> None:
        console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    say(f"SDG from {format_parts(game.position)}: {game.to_move} moves first")
    say(f"({HELP}; who cannot move loses)")
    while not game.over:
        analysis = game.analysis()
        if game.to_move == "engine":
            move = game.engine_move()
            say(f"engine plays {move.text()}   (rule {move.rule})", style="bold cyan")
            continue
        console.print(_board(game))
        for k, m in enumerate(analysis.moves, 1):
            say(f"  {k:>3}. {m.text():<30} (rule {m.rule})")
        prompt = f"your move [1-{len(analysis.moves)}, h, q]: "
        while True:
            line = read_line(prompt)
            if line is None:
                say("end of input: game abandoned")
                return None
            if echo:
                say(f"{prompt}{line.strip()}")
            line = line.strip().lower()
            if line in ("q", "quit", "exit"):
                say("game abandoned")
                return None
            if line in ("h", "hint", "?"):
                say(_hint(analysis), style="yellow")
                continue
            if line.isdigit() and 1 <= int(line) <= len(analysis.moves):
                move = analysis.moves[int(line) - 1]
                game.play(move)
                say(f"you play {move.text()}")
                break
            if line:
                say(f"not a move: {line!r} ({HELP})", style="red")
    winner = game.winner
    loser = game.to_move
    say(f"the board is empty: {'you have' if loser == 'human' else 'the engine has'} no move.")
    say("You win!" if winner == "human" else "The engine wins.", style="bold")
    return winner
