"""Misère play on the command line: ``octal CODE --misere`` and ``graph FILE --misere``.

``--misere`` alone prints the misère quotient (Plambeck–Siegel) of the heaps 1 … N
of a code (``octal``), or of the positions of a game graph (``graph ... --quotient``);
``--outcome 3,5,7`` (``octal``) or ``--sum`` (``graph``) the misère outcome of one sum,
read off the quotient; ``--forms`` each heap's or position's normal and misère nim
value, genus and misère canonical form (CGSuite's notation).  JSON objects carry
``"schema": "misere/1"`` (``sdg_automata/schemas/misere.json``).  A quotient that
could not be proven up to the bound asked — no trial fitted, ``--max-order``, or the
``--max-seconds`` budget ran out — is printed for the bound it was proven to, then exit
3 with one ``error:`` line saying that bound and the order there (under ``--json``, a
``stopped/1`` object whose ``at`` has ``proven_to`` and ``order``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceeded, InputError
from .arguments import positive
from .budgets import budget, progress
from .exits import ExitCode, fail
from .jsonout import Reason, emit_stopped
from .writing import output

if TYPE_CHECKING:
    from ..games.misere.components import Components
    from ..games.misere.quotient import MisereQuotient
    from ..games.octal.rules import OctalGame

__all__ = ["MISERE_SCHEMA", "QUOTIENT_HEAPS", "FORMS_HEAPS", "add_misere_options",
           "heap_sum", "run_graph", "run_octal"]

#: the ``"schema"`` of every misère JSON object
MISERE_SCHEMA = "misere/1"
#: the heaps a quotient covers when ``--upto`` is not given
QUOTIENT_HEAPS = 30
#: the heaps ``--forms`` lists when ``--upto`` is not given (canonical forms grow fast)
FORMS_HEAPS = 12
#: one quotient's default time budget (seconds)
MISERE_SECONDS = 600.0


def add_misere_options(p: argparse.ArgumentParser, *, octal: bool) -> None:
    """``--misere``, ``--forms`` and (``octal``) ``--outcome``, or (``graph``) ``--quotient``."""
    what = f"heaps 1..N (--upto N, default {QUOTIENT_HEAPS})" if octal else "the positions"
    each, which = (("heap", f" for heaps 0..--upto (default {FORMS_HEAPS})") if octal
                   else ("position", ""))
    from ..games.misere.limits import DEFAULT_MAX_ORDER

    p.add_argument("--max-order", type=positive, metavar="K", default=DEFAULT_MAX_ORDER,
                   help="with --misere: the largest quotient built (default "
                        f"{DEFAULT_MAX_ORDER}); a larger one stops the quotient where it was "
                        "proven, with exit 3")
    p.add_argument("--forms", action="store_true",
                   help=f"with --misere: each {each}'s normal and misère nim value, genus and "
                        f"misère canonical form in CGSuite's notation (*[2#]){which}")
    if octal:
        p.add_argument("--misere", action="store_true",
                       help=f"misère play: the misère quotient (Plambeck-Siegel) of {what}, "
                            "each relation and the P-portion proven against the moves")
        p.add_argument("--outcome", metavar="H,H,...",
                       help="with --misere: the misère outcome of the sum of these heaps, from "
                            "the quotient of the heaps up to the largest one")
    else:
        p.add_argument("--quotient", action="store_true",
                       help="with --misere: the misère quotient of the sums of the graph's "
                            "positions (Plambeck-Siegel), proven against the moves")


def heap_sum(text: str) -> list[int]:
    """``"3,5,7"`` → [3, 5, 7] (heaps of 0 allowed and ignored)."""
    parts = [t.strip() for t in text.split(",")]
    if not parts or not all(t.isdigit() for t in parts):
        raise InputError(f"--outcome takes heap sizes separated by commas (3,5,7), not {text!r}")
    return [int(t) for t in parts]


def _emit(args: argparse.Namespace, obj: dict[str, Any]) -> None:
    output(args, json.dumps({"schema": MISERE_SCHEMA, **obj}, ensure_ascii=False) + "\n")


def _quotient(args: argparse.Namespace, family: Components) -> tuple[MisereQuotient, Reason]:
    """The quotient, proven as far as it could be, and why it stopped short if it did:
    ``"budget"`` (``--max-seconds``: the quotient proven before it ran out) or
    ``"unproven"`` (no trial fitted, or ``--max-order``)."""
    from ..games.misere.quotient import MisereQuotient, quotient_of

    if args.max_seconds is None:
        args.max_seconds = MISERE_SECONDS
    with progress(f"misère quotient of {family.name}", unit="components") as bar:
        try:
            return quotient_of(family, budget=budget(args, bar),
                               max_order=max(2, args.max_order)), "unproven"
        except BudgetExceeded as e:
            if not isinstance(e.partial, MisereQuotient):  # pragma: no cover - always set
                raise
            return e.partial, "budget"


def _finish(args: argparse.Namespace, q: MisereQuotient, reason: Reason,
            at: dict[str, Any]) -> int:
    """Exit 0, or exit 3 when the quotient is not proven as far as asked: one ``error:``
    line, under ``--json`` a ``stopped/1`` object whose ``at`` has the quotient's
    ``proven_to`` and ``order`` (the names of the misère/1 result)."""
    if q.stopped is None:
        return ExitCode.OK
    message = (f"the misère quotient of {q.name} is proven for {q.family.span(q.proven_to)} "
               f"only (order {q.size}): {q.stopped}")
    emit_stopped(args, message, reason=reason, explored=q.proven_to,
                 at={**at, "proven_to": q.proven_to, "order": q.size})
    fail(message, ExitCode.BUDGET)


def _show_quotient(args: argparse.Namespace, q: MisereQuotient, extra: dict[str, Any]) -> None:
    from ..render.misere import quotient_text

    if args.json:
        _emit(args, {**extra, **q.to_json()})
    else:
        output(args, quotient_text(q))


def run_octal(args: argparse.Namespace, game: OctalGame) -> int:
    """``octal CODE --misere [--upto N] [--outcome H,...] [--forms]``."""
    from ..games.misere.components import HeapFamily

    if args.forms:
        if args.outcome is not None:
            raise InputError("--forms and --outcome do not go together")
        return _octal_forms(args, game)
    heaps = None if args.outcome is None else heap_sum(args.outcome)
    upto = args.upto or (max([*heaps, 1]) if heaps is not None else QUOTIENT_HEAPS)
    if heaps is not None and max(heaps, default=0) > upto:
        raise InputError(f"--outcome names a heap of {max(heaps)}, beyond --upto {upto}")
    q, reason = _quotient(args, HeapFamily(game=game, upto=upto))
    at = {"code": game.code}
    if heaps is not None:
        if max(heaps, default=0) > q.proven_to:
            return _finish(args, q, reason, at)
        _show_outcome(args, q, [str(h) for h in heaps], heaps, {"code": game.code})
        return ExitCode.OK
    _show_quotient(args, q, {"code": game.code})
    return _finish(args, q, reason, at)


def _show_outcome(args: argparse.Namespace, q: MisereQuotient, names: list[str],
                  components: list[Any], extra: dict[str, Any]) -> None:
    outcome, element = q.outcome(components), q.element(components)
    if args.json:
        _emit(args, {**extra, "components": names,
                     "element": q.element(components, ascii=True), "outcome": outcome,
                     "order": q.size, "family": q.name})
    else:
        who = ("P-position: the player to move loses" if outcome == "P"
               else "N-position: the player to move wins")
        output(args, f"{' + '.join(names) or '0'}: {who} in misère play (its class is {element} "
                     f"in the misère quotient of {q.name}, of order {q.size})\n")


def _octal_forms(args: argparse.Namespace, game: OctalGame) -> int:
    from ..games.misere.canonical import heap_forms
    from ..render.misere import forms_json, forms_text

    upto = args.upto or FORMS_HEAPS
    if args.max_seconds is None:
        args.max_seconds = MISERE_SECONDS
    with progress(f"misère forms of {game.code}", unit="heaps") as bar:
        forms = heap_forms(game, upto, budget=budget(args, bar))
    named = [(str(n), f) for n, f in enumerate(forms)]
    if args.json:
        _emit(args, {"code": game.code, "games": forms_json(named)})
    else:
        output(args, f"{game.code}, heaps 0–{upto} in misère play\n" + forms_text(named))
    return ExitCode.OK


def run_graph(args: argparse.Namespace, graph: Any, names: Callable[[Any], str],
              parts: list[Any] | None) -> int:
    """``graph FILE --misere`` with ``--quotient``, ``--sum`` or ``--forms``."""
    from ..games.misere.components import GraphFamily

    family = GraphFamily(graph=graph, title=f"game graph {args.graph}")
    if args.forms:
        from ..games.misere.canonical import graph_forms
        from ..render.misere import forms_json, forms_text

        forms = graph_forms(graph, budget=budget(args))
        named = [(names(p), g) for p, g in forms.items()]
        if args.json:
            _emit(args, {"graph": args.graph, "games": forms_json(named)})
        else:
            output(args, forms_text(named))
        return ExitCode.OK
    q, reason = _quotient(args, family)
    if parts is not None:
        if q.stopped is not None:
            return _finish(args, q, reason, {"graph": args.graph})
        _show_outcome(args, q, [names(p) for p in parts], parts, {"graph": args.graph})
        return ExitCode.OK
    _show_quotient(args, q, {"graph": args.graph})
    return _finish(args, q, reason, {"graph": args.graph})
