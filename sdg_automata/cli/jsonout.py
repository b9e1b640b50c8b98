"""JSON output of the commands: the schemas named in every object, ``--json`` and
``--format json`` as one flag, and the object of a command that stops with exit 3.

Each command's JSON objects carry ``"schema": "NAME/VERSION"`` first, where
``sdg_automata/schemas/NAME.json`` is the JSON Schema they follow.
"""

from __future__ import annotations

import argparse
import contextvars
import json
from typing import Any, Literal

__all__ = [
    "SCHEMA", "SCHEMA_VERSION", "SCHEMA_VERSIONS", "STOPPED", "Reason", "contradicted",
    "emit", "emit_stopped", "json_options", "schema_name", "stamped", "wants_json",
]

#: the schema of the running command's JSON objects (the package's ``schemas/NAME.json``), or None
SCHEMA: contextvars.ContextVar[str | None] = contextvars.ContextVar("SCHEMA", default=None)
#: the version of every schema in ``sdg_automata/schemas/``; raised when a field changes
#: meaning
SCHEMA_VERSION = 1
#: schemas raised since: ``max/3`` (the strategy's evidence and the engine nested; ``max/2``:
#: long witnesses as runs, the ``engine`` field)
SCHEMA_VERSIONS = {"max": 3}


def schema_name(command: str) -> str:
    """The ``"schema"`` value of a command's JSON objects: ``NAME/VERSION``, where
    ``sdg_automata/schemas/NAME.json`` is the JSON Schema (``imark survey`` →
    ``imark-survey/1``)."""
    name = command.replace(" ", "-")
    return f"{name}/{SCHEMA_VERSIONS.get(name, SCHEMA_VERSION)}"


def stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with the running command's ``"schema"`` first (see :func:`schema_name`)."""
    name = SCHEMA.get()
    return obj if name is None else {"schema": name, **obj}


def emit(obj: Any) -> None:
    """One JSON object on one line of stdout, its ``"schema"`` first."""
    print(json.dumps(stamped(obj) if isinstance(obj, dict) else obj, ensure_ascii=False))


#: the schema of what a command prints under --json when it stops with exit 3
#: (``sdg_automata/schemas/stopped.json``; docs/cli.md, "Exit codes")
STOPPED = "stopped/1"
#: why a command stopped with exit 3: a budget or limit, or no value provable within them
Reason = Literal["budget", "unproven"]


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the command's output was asked for as JSON (``--json``, ``--format json``)."""
    return getattr(args, "json", None) is True or getattr(args, "format", None) in (
        "json", "jsonl")


def emit_stopped(args: argparse.Namespace, message: str, *, reason: Reason = "budget",
                 explored: int | None = None, at: dict[str, Any] | None = None) -> None:
    """Under JSON output, the :data:`STOPPED` object of a command that stops with exit 3
    (on stdout, never into ``-o``); the caller prints the ``error:`` line."""
    if wants_json(args):
        print(json.dumps(stamped({"schema": STOPPED, "command": getattr(args, "command_path", ""),
                                  "reason": reason, "error": message, "explored": explored,
                                  "at": at or {}}), ensure_ascii=False))


class _FormatAsJson(argparse.Action):
    """``--format text|json`` on a command that has ``--json``: the same flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values == "text" and getattr(namespace, self.dest, False) is True:
            parser.error("--json and --format text contradict each other")
        setattr(namespace, self.dest, values == "json")
        namespace.format_said = (self.dest, values)  # --json after it: see contradicted()


def contradicted(args: argparse.Namespace) -> str | None:
    """The contradiction of ``--format text`` followed by ``--json`` (the other order is
    refused while parsing), or ``None``."""
    said = getattr(args, "format_said", None)
    if said is not None and said[1] == "text" and getattr(args, said[0], False) is True:
        return "--format text and --json contradict each other"
    return None


def json_options(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Accept both ``--json`` and ``--format json`` wherever a JSON form exists, and
    name the command's JSON schema (for :func:`emit`).

    A command with ``--json`` gains ``--format {text,json}``; a command whose
    ``--format`` offers ``json`` gains ``--json`` (short for ``--format json``).
    """
    options = {o: a for a in parser._actions for o in a.option_strings}
    has_json, fmt = "--json" in options, options.get("--format")
    if has_json and fmt is None:
        parser.add_argument("--format", choices=("text", "json"), action=_FormatAsJson,
                            dest=options["--json"].dest,
                            help="--format json is --json; text (the default) is for people")
    elif fmt is not None and not has_json and "json" in (fmt.choices or ()):
        parser.add_argument("--json", action="store_const", dest=fmt.dest, const="json",
                            help="the same as --format json")
    if has_json or (fmt is not None and "json" in (fmt.choices or ())):
        parser.set_defaults(schema=schema_name(command))
