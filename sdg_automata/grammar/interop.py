"""Grammars to and from pyformlang, and its finite automata in (the optional extra ``interop``).

`pyformlang <https://github.com/Aunsiels/pyformlang>`_ is a Python library of
formal languages whose ``CFG`` offers what this package does not: CNF, CYK
membership, intersection with regular languages, PDAs.  The two functions
below convert through objects, never through text, because the text formats
differ:

* pyformlang's ``CFG.from_text`` tells variables from terminals by case
  (``S`` is a variable, ``a`` a terminal), knows no comments (``#``), no
  ``start:`` or ``terminals:`` lines and no ``|`` continuation lines, and
  takes the start symbol as a parameter (default ``S``);
* ``CFG.to_text`` writes the rules in hash order, so the first rule head,
  which this package's text format takes as the start symbol when no
  ``start:`` line is given, changes from run to run;
* pyformlang allows ε productions and multi-character terminals; an SDG has
  neither (SPEC §1), so :func:`from_pyformlang` refuses them.

>>> from sdg_automata import load_grammar
>>> cfg = to_pyformlang(load_grammar("examples/example3.txt"))
>>> cfg.contains("aab"), cfg.contains("ba")
(True, True)
>>> from_pyformlang(cfg) == load_grammar("examples/example3.txt")
True

pyformlang's finite automata (``DeterministicFiniteAutomaton``,
``NondeterministicFiniteAutomaton``, ``EpsilonNFA``) become automata-lib NFAs
through :func:`nfa_from_pyformlang`; ``max_grundy(within=...)`` takes them so.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from . import Grammar, Rule

if TYPE_CHECKING:
    from automata.fa.nfa import NFA
    from pyformlang.cfg import CFG
    from pyformlang.finite_automaton import EpsilonNFA

__all__ = ["INSTALL_HINT", "from_pyformlang", "is_pyformlang_automaton", "nfa_from_pyformlang",
           "to_pyformlang"]

INSTALL_HINT = 'pip install "sdg_automata[interop]"'


def _pyformlang() -> Any:
    """The ``pyformlang.cfg`` module, or an :class:`InputError` saying what to install."""
    try:
        import pyformlang.cfg
    except ImportError:
        raise InputError(f"pyformlang is not installed: {INSTALL_HINT}") from None
    return pyformlang.cfg


def to_pyformlang(grammar: Grammar) -> CFG:
    """The grammar as a pyformlang ``CFG`` with the same start symbol, variables,
    terminals (including declared letters that occur in no rule) and productions.

    Parameters
    ----------
    grammar:
        Any grammar of this package.

    Returns
    -------
    pyformlang.cfg.CFG
        L(cfg) = L(G, I) for the start symbol I (SPEC §1).
    """
    cfg = _pyformlang()
    variables = {name: cfg.Variable(name) for name in grammar.nonterminals}
    terminals = {letter: cfg.Terminal(letter) for letter in grammar.terminals}
    productions = {cfg.Production(variables[r.head],
                                  [variables.get(s) or terminals[s] for s in r.body])
                   for r in grammar.rules}
    result: CFG = cfg.CFG(variables=set(variables.values()), terminals=set(terminals.values()),
                          start_symbol=variables[grammar.start], productions=productions)
    return result


def from_pyformlang(cfg: CFG, *, start: str | None = None) -> Grammar:
    """A grammar of this package from a pyformlang ``CFG``.

    Parameters
    ----------
    cfg:
        A pyformlang context-free grammar.
    start:
        The start symbol; by default the CFG's own ``start_symbol``.

    Raises
    ------
    InputError
        When the CFG has no start symbol and none is given, an ε production,
        a variable used in a body without productions of its own (remove
        useless symbols first: ``cfg.remove_useless_symbols()``), a name that
        is both a variable and a terminal, or a terminal of more than one
        character (:class:`~sdg_automata.errors.GrammarError`).
    """
    pyformlang_cfg = _pyformlang()
    heads = {str(p.head.value) for p in cfg.productions}
    rules = []
    # productions in a fixed order: pyformlang keeps them in a set
    for p in sorted(cfg.productions, key=lambda p: (str(p.head.value), repr(p.body))):
        body = [s for s in p.body if not isinstance(s, pyformlang_cfg.Epsilon)]
        if not body:
            raise InputError(f"production {p} is an ε production: a successful derivation game "
                             "has none (SPEC §1); remove them first (cfg.remove_epsilon())")
        names = []
        for s in body:
            name = str(s.value)
            if isinstance(s, pyformlang_cfg.Variable) and name not in heads:
                raise InputError(f"variable {name!r} in {p} has no productions: remove useless "
                                 "symbols first (cfg.remove_useless_symbols())")
            if isinstance(s, pyformlang_cfg.Terminal) and name in heads:
                raise InputError(f"{name!r} is both a variable and a terminal")
            names.append(name)
        rules.append(Rule(str(p.head.value), tuple(names)))
    if start is None:
        if cfg.start_symbol is None:
            raise InputError("the CFG has no start symbol: name one (the start argument)")
        start = str(cfg.start_symbol.value)
    letters = [str(t.value) for t in cfg.terminals if str(t.value) not in heads]
    return Grammar(rules=rules, start=start, terminals=sorted(letters))


def is_pyformlang_automaton(obj: object) -> bool:
    """Whether ``obj`` is a pyformlang finite automaton (never imports pyformlang)."""
    module = sys.modules.get("pyformlang.finite_automaton")
    return module is not None and isinstance(obj, module.EpsilonNFA)


def nfa_from_pyformlang(fa: EpsilonNFA) -> NFA:
    """A pyformlang finite automaton as an automata-lib NFA with the same language.

    Parameters
    ----------
    fa:
        A pyformlang ``DeterministicFiniteAutomaton``, ``NondeterministicFiniteAutomaton``
        or ``EpsilonNFA`` (the first two are subclasses of the last).  Its symbols must be
        one-character strings (this package's letters, SPEC §1); its ε-moves stay ε-moves.

    Returns
    -------
    automata.fa.nfa.NFA
        States numbered 1, 2, … in the order of their names; state 0 is a new initial
        state with an ε-move to each of pyformlang's start states (it may have several,
        or none: then the language is empty).

    Raises
    ------
    InputError
        For a symbol that is not one character.

    >>> from pyformlang.finite_automaton import NondeterministicFiniteAutomaton
    >>> fa = NondeterministicFiniteAutomaton()
    >>> _ = fa.add_transitions([(0, "b", 0), (0, "a", 1), (1, "a", 1)])
    >>> _ = fa.add_start_state(0), fa.add_final_state(1)
    >>> nfa = nfa_from_pyformlang(fa)
    >>> nfa.accepts_input("bba"), nfa.accepts_input("ab")
    (True, False)
    """
    from automata.fa.nfa import NFA
    from pyformlang.finite_automaton import Epsilon

    number = {q: k for k, q in enumerate(sorted(fa.states, key=lambda q: str(q.value)), 1)}
    transitions: dict[int, dict[str, set[int]]] = {0: {"": {number[q] for q in fa.start_states}}}
    letters: set[str] = set()
    for q, moves in fa.to_dict().items():
        out = transitions.setdefault(number[q], {})
        for symbol, targets in moves.items():
            letter = "" if isinstance(symbol, Epsilon) else str(symbol.value)
            if not isinstance(symbol, Epsilon):
                if len(letter) != 1:
                    raise InputError(f"pyformlang symbol {letter!r}: a letter is one character "
                                     "(SPEC §1)")
                letters.add(letter)
            # a DFA's to_dict() gives one state, an NFA's a set of them
            found = targets if isinstance(targets, (set, frozenset)) else {targets}
            out.setdefault(letter, set()).update(number[t] for t in found)
    return NFA(states={0, *number.values()}, input_symbols=letters,
               transitions={q: {a: set(ts) for a, ts in out.items()}
                            for q, out in transitions.items()},
               initial_state=0, final_states={number[q] for q in fa.final_states})
