"""The command line's shared helpers, one module per concept (issue 26 §6).

``sdg_automata.cli.common`` was one module of every helper; it now gathers the
modules of :mod:`sdg_automata.cli` by concept under its old name, so code that
imports a helper from it keeps working.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from sdg_automata.cli import common

CONCEPTS = ("exits", "parser", "jsonout", "arguments", "budgets", "writing")


def test_common_re_exports_every_helper_from_its_concept() -> None:
    """Should give each name of ``common.__all__`` as the object its concept defines."""
    modules = [importlib.import_module(f"sdg_automata.cli.{name}") for name in CONCEPTS]
    homes = {name: m for m in modules for name in m.__all__}
    assert set(common.__all__) == set(homes)
    for name in common.__all__:
        assert getattr(common, name) is getattr(homes[name], name), name


def test_each_concept_is_small_and_the_commands_skip_common() -> None:
    """Should keep each module well under 700 lines, and the commands import the concepts."""
    cli = Path(common.__file__).parent
    for name in CONCEPTS:
        assert len((cli / f"{name}.py").read_text(encoding="utf-8").splitlines()) < 400, name
    for path in cli.glob("*.py"):
        if path.name != "common.py":
            assert "from .common import" not in path.read_text(encoding="utf-8"), path.name
