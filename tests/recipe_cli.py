"""The command group of the "add a game" recipe (docs/architecture.md): one module with
``EXAMPLES`` and ``register``; its engine is imported inside the command, so ``--help``
does not load it.  The recipe's one more line is its entry in ``sdg_automata.cli.GROUPS``
(this module's name and the commands it registers)."""

from __future__ import annotations

import argparse
import json

from sdg_automata.cli.arguments import natural
from sdg_automata.cli.parser import Commands, Parser

EXAMPLES = {"subtract": ("sdg-automata subtract 1,2 10",)}


def _add(p: Parser) -> None:
    p.description = "Grundy values 𝒢(0) … 𝒢(N) of the subtraction game S."
    p.add_argument("subtraction", metavar="S", help="comma-separated positive integers")
    p.add_argument("n", metavar="N", type=natural, help="the largest heap")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from recipe_game import subtraction_values  # the engine, loaded when the command runs

    values = subtraction_values((int(s) for s in args.subtraction.split(",")), args.n)
    print(json.dumps({"values": values}) if args.json else " ".join(map(str, values)))
    return 0


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("subtract", _add, help="values of a subtraction game")
