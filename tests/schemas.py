"""The published JSON Schemas (``sdg_automata/schemas/``, package data) as validators, for
the tests.

A command's JSON objects name their schema (``"schema": "max/1"`` is
``schemas/max.json``, version 1); the exchange formats (``dfa``,
``grammar``) carry no such field and are validated by name.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

#: where the imported package keeps them, as a user finds them (importlib.resources)
SCHEMAS = Path(str(files("sdg_automata") / "schemas"))


@cache
def validator(name: str) -> Any:
    """A jsonschema validator for ``schemas/NAME.json`` (KeyError if there is none)."""
    from jsonschema import Draft202012Validator

    path = SCHEMAS / f"{name}.json"
    if not path.exists():
        raise KeyError(name)
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_of(obj: dict[str, Any]) -> str:
    """The file name of the schema an object names: ``max/1`` -> ``max``."""
    name, _, version = obj["schema"].rpartition("/")
    assert version.isdigit(), obj["schema"]  # the schema's "const" pins the version
    return name


def validate(obj: Any, name: str | None = None) -> str:
    """Validate ``obj`` against its schema (named by its ``"schema"`` field unless
    ``name`` is given); return the schema's name.  Raises ``jsonschema.ValidationError``."""
    name = name or schema_of(obj)
    validator(name).validate(obj)
    return name
