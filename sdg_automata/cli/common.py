"""What every command shares, by concept, gathered under the name of 0.2.

The shared helpers of the command line live in one module per concept:

* :mod:`~sdg_automata.cli.exits` — exit codes and the ``error:`` line;
* :mod:`~sdg_automata.cli.parser` — parsers and lazily built subcommands;
* :mod:`~sdg_automata.cli.jsonout` — JSON output and its schemas;
* :mod:`~sdg_automata.cli.arguments` — argument types and the grammar argument;
* :mod:`~sdg_automata.cli.budgets` — budgets, engines, notes and progress;
* :mod:`~sdg_automata.cli.writing` — output files, plots and drawings.

Every name they define stays importable from here (``sdg_automata.cli.common.ExitCode``).
"""

from __future__ import annotations

from .arguments import (
    MAX_DIGITS,
    StartRole,
    add_grammar,
    duration,
    load,
    natural,
    positive,
)
from .budgets import STARTED, add_budget, add_engine, budget, explore, notes, progress
from .exits import EPILOG, NO_ROOM, ExitCode, fail
from .jsonout import (
    SCHEMA,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    STOPPED,
    Reason,
    contradicted,
    emit,
    emit_stopped,
    json_options,
    schema_name,
    stamped,
    wants_json,
)
from .parser import Build, Commands, Formatter, Parser, build_all, epilog, finish
from .writing import (
    DRAW_LIMIT,
    INPUT_ARGUMENTS,
    add_drawing,
    add_output,
    check_plot,
    check_visual,
    deliver,
    output,
    unlimited_digits,
    write_plot,
)

__all__ = [
    "DRAW_LIMIT", "EPILOG", "INPUT_ARGUMENTS", "MAX_DIGITS", "NO_ROOM", "SCHEMA",
    "SCHEMA_VERSION", "SCHEMA_VERSIONS", "STARTED", "STOPPED", "Build", "Commands", "ExitCode",
    "Formatter", "Parser", "Reason", "StartRole", "add_budget", "add_drawing", "add_engine",
    "add_grammar", "add_output", "budget", "build_all", "check_plot", "check_visual",
    "contradicted", "deliver", "duration", "emit", "emit_stopped", "epilog", "explore", "fail",
    "finish", "json_options", "load", "natural", "notes", "output", "positive", "progress",
    "schema_name", "stamped", "unlimited_digits", "wants_json", "write_plot",
]
