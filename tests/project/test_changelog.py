"""CHANGELOG.md says what the package does: its newest release is ``__version__``, every
module it says moved is at its new path and gone from its old one, and every name it says
left a module is gone from it and defined where it says (issue 33)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sdg_automata

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
#: the sections of a release, in Keep a Changelog's order (Moved is ours: 0.x moves modules)
SECTIONS = ("Added", "Changed", "Removed", "Moved", "Fixed")


def _text() -> str:
    return CHANGELOG.read_text(encoding="utf-8")


def _newest() -> str:
    """The newest release's part of the page."""
    releases = re.split(r"^## ", _text(), flags=re.M)[1:]
    assert releases, "CHANGELOG.md has no release"
    return releases[0]


def _rows(section: str) -> list[list[list[str]]]:
    """The table rows of one section of the newest release: per cell, its `code` spans."""
    match = re.search(rf"^### {section}\n(.*?)(?=^### |\Z)", _newest(), re.M | re.S)
    if match is None:  # a section with nothing to say is left out
        return []
    rows = [line for line in match.group(1).splitlines()
            if line.strip().startswith("|") and "---" not in line]
    cells = [[re.findall(r"`([^`]+)`", cell) for cell in row.strip().strip("|").split("|")]
             for row in rows]
    return [row for row in cells if all(row)]  # the header rows have no code spans


def _module(name: str) -> str:
    return name if name.startswith("sdg_automata") else f"sdg_automata.{name}"


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_the_newest_release_is_the_version() -> None:
    version = re.match(r"\[([^\]]+)\]", _newest())
    assert version and version.group(1) == sdg_automata.__version__


def test_releases_use_only_the_known_sections() -> None:
    used = re.findall(r"^### (.+)$", _text(), re.M)
    assert used and set(used) <= set(SECTIONS), used
    for release in re.split(r"^## ", _text(), flags=re.M)[1:]:
        order = [s for s in re.findall(r"^### (.+)$", release, re.M)]
        assert order == sorted(order, key=SECTIONS.index), order


def _moves() -> list[tuple[str, str]]:
    """Every (old, new) module pair the newest release lists, moved or removed as a path."""
    return [(_module(row[0][0]), _module(row[1][0]))
            for section in ("Moved", "Removed") for row in _rows(section)
            if len(row) == 2 and len(row[0]) == len(row[1]) == 1]


def test_the_changelog_lists_moves() -> None:
    assert len(_moves()) > 30


@pytest.mark.parametrize(("old", "new"), _moves(), ids=lambda m: m.removeprefix("sdg_automata."))
def test_a_moved_module_is_at_its_new_path_only(old: str, new: str) -> None:
    assert _exists(new), f"{new} (where CHANGELOG.md says {old} went) does not exist"
    assert not _exists(old), f"{old} still imports"


def _names_gone() -> list[tuple[str, str, tuple[str, ...]]]:
    """(module, name, the modules it is defined in now) of the Removed names table."""
    gone = []
    for row in _rows("Removed"):
        if len(row) == 3:
            module, names, homes = row
            gone += [(_module(module[0]), name, tuple(map(_module, homes))) for name in names
                     if name.isidentifier()]
    return gone


@pytest.mark.parametrize(("module", "name", "homes"), _names_gone(),
                         ids=lambda x: x.removeprefix("sdg_automata.") if isinstance(x, str)
                         else "")
def test_a_removed_name_is_gone_and_defined_where_the_changelog_says(
        module: str, name: str, homes: tuple[str, ...]) -> None:
    if _exists(module):  # a module may still use the name; it no longer offers it
        assert name not in getattr(importlib.import_module(module), "__all__", ())
    assert [home for home in homes if name in _defined(home)], (
        f"{name} is defined in none of {homes}")


def _defined(module: str) -> set[str]:
    """The names ``module``'s source binds at its top level (not the ones it imports)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, module
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_importing_the_package_installs_no_import_hook() -> None:
    """0.2's aliases put a finder at ``sys.meta_path[0]`` on every import; 0.3 has none."""
    script = ("import sys; before = list(sys.meta_path); import sdg_automata; "
              "print(sys.meta_path == before)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "True"
