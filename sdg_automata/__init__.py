"""sdg_automata: impartial games as automata.

Successful derivation games on grammars (Grundy numbers exactly, by dynamic
programming or through the Step 1–5 DFA construction), Max-Grundy decisions,
i-Mark by the convergence technique, and impartial games in general.
See ``SPEC.md`` sections cited in each module.
"""

from __future__ import annotations

from .errors import (
    BudgetExceeded,
    ConvergenceError,
    GameGraphError,
    GrammarError,
    GrammarSyntaxError,
    InputError,
    SdgError,
    UnitCycleError,
)
from .grammar import Grammar, Rule
from .impartial import mex, nim_sum
from .parse import grammar_to_json, grammar_to_text, load_grammar, parse_grammar
from .semantics import grundy, grundy_position, naive_grundy, successors

__version__ = "0.1.0"

__all__ = [
    "BudgetExceeded",
    "ConvergenceError",
    "GameGraphError",
    "Grammar",
    "GrammarError",
    "GrammarSyntaxError",
    "InputError",
    "Rule",
    "SdgError",
    "UnitCycleError",
    "__version__",
    "grammar_to_json",
    "grammar_to_text",
    "grundy",
    "grundy_position",
    "load_grammar",
    "mex",
    "naive_grundy",
    "nim_sum",
    "parse_grammar",
    "successors",
]
