"""sdg_automata: impartial games as automata.

Successful derivation games on grammars (Grundy numbers exactly, by dynamic
programming or through the Step 1–5 DFA construction), Max-Grundy decisions,
i-Mark by the convergence technique, and impartial games in general.  Every
module cites the section of ``docs/SPEC.md`` it implements.

The names below are importable from the package itself; the heavier ones are
loaded on first use (PEP 562), so ``python -m sdg_automata`` starts fast.

In a running IPython kernel, importing the package registers its notebook
displays (:func:`sdg_automata.render.load_ipython_extension`); elsewhere
``%load_ext sdg_automata`` does it.
"""

from __future__ import annotations

from .runtime import stopping as _stopping

# a process that runs the command line answers Ctrl-C and SIGTERM from here on, before the
# imports below (tens to hundreds of milliseconds) and until the command line takes over
if _stopping.launched("sdg_automata", "sdg-automata"):
    _stopping.answer_at_once()

import sys
from typing import TYPE_CHECKING, Any

from .errors import (
    BudgetExceeded,
    ConvergenceError,
    GameGraphError,
    GrammarError,
    GrammarSyntaxError,
    GraphCycleError,
    InputError,
    Interrupted,
    MisereSumError,
    SdgBug,
    SdgError,
    UnitCycleError,
    UnknownPositionError,
    VisualUnavailable,
)
from .grammar import Grammar, Rule
from .grammar.parse import grammar_to_json, grammar_to_text, load_grammar, parse_grammar
from .runtime.lazy import lazy_names

if TYPE_CHECKING:
    from .automaton.bounds import upper_bound, upper_bounds
    from .automaton.construction import GrundyAutomaton, dfa
    from .automaton.counting import count, density, generating_function
    from .derivation.periodicity import proven_period
    from .derivation.play import analyze
    from .derivation.semantics import grundy, grundy_position, naive_grundy, successors
    from .games.imark.convergence import imark_grundy
    from .games.imark.naive import imark_sequence
    from .games.impartial import grundy_values, winning_moves
    from .games.mex import mex, nim_sum
    from .games.misere.quotient import misere_quotient
    from .games.nim import nim_inverse, nim_product
    from .games.octal.rules import OctalGame
    from .games.solution import solve_game_graph
    from .search.decide import Verdict, max_grundy
    from .search.spectrum import spectrum

__version__ = "0.3.0"

#: name -> the module that defines it, imported on first access
_LAZY = {
    "grundy": "derivation.semantics", "grundy_position": "derivation.semantics",
    "naive_grundy": "derivation.semantics", "successors": "derivation.semantics",
    "mex": "games.mex", "nim_sum": "games.mex",
    "upper_bound": "automaton.bounds", "upper_bounds": "automaton.bounds",
    "GrundyAutomaton": "automaton.construction", "dfa": "automaton.construction",
    "count": "automaton.counting", "density": "automaton.counting",
    "generating_function": "automaton.counting",
    "Verdict": "search.decide", "max_grundy": "search.decide",
    "spectrum": "search.spectrum",
    "imark_grundy": "games.imark.convergence", "imark_sequence": "games.imark.naive",
    "OctalGame": "games.octal.rules",
    "misere_quotient": "games.misere.quotient",
    "nim_inverse": "games.nim", "nim_product": "games.nim",
    "grundy_values": "games.impartial", "solve_game_graph": "games.solution",
    "winning_moves": "games.impartial",
    "proven_period": "derivation.periodicity",
    "analyze": "derivation.play",
}


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext sdg_automata``: see :func:`sdg_automata.render.load_ipython_extension`."""
    from .render.notebook import load_ipython_extension as register

    register(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext sdg_automata``."""
    from .render.notebook import unload_ipython_extension as unregister

    unregister(ipython)


def _register_in_kernel() -> None:
    """Register the notebook displays when imported inside IPython (never imports IPython)."""
    ipython_module = sys.modules.get("IPython")
    shell = None if ipython_module is None else ipython_module.get_ipython()
    if shell is not None and hasattr(shell, "display_formatter"):
        load_ipython_extension(shell)


_register_in_kernel()


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


__all__ = [
    "BudgetExceeded",
    "ConvergenceError",
    "GameGraphError",
    "Grammar",
    "GrammarError",
    "GrammarSyntaxError",
    "GraphCycleError",
    "GrundyAutomaton",
    "InputError",
    "Interrupted",
    "MisereSumError",
    "OctalGame",
    "Rule",
    "SdgBug",
    "SdgError",
    "UnitCycleError",
    "UnknownPositionError",
    "VisualUnavailable",
    "Verdict",
    "__version__",
    "analyze",
    "count",
    "density",
    "dfa",
    "generating_function",
    "grammar_to_json",
    "grammar_to_text",
    "grundy",
    "grundy_position",
    "grundy_values",
    "imark_grundy",
    "imark_sequence",
    "load_grammar",
    "max_grundy",
    "mex",
    "misere_quotient",
    "naive_grundy",
    "nim_inverse",
    "nim_product",
    "nim_sum",
    "parse_grammar",
    "proven_period",
    "solve_game_graph",
    "spectrum",
    "successors",
    "upper_bound",
    "upper_bounds",
    "winning_moves",
]
