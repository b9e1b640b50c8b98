"""The 0.2 module paths after the layered layout (issue 26): each still imports, as the very
module of its new place, with one DeprecationWarning that names that place."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sdg_automata import _moved

ROOT = Path(__file__).resolve().parent.parent


def test_every_0_2_module_path_reaches_its_new_module() -> None:
    """In a fresh interpreter, so no earlier import hides the finder's work."""
    script = textwrap.dedent("""
        import importlib, warnings
        from sdg_automata._moved import MOVED
        for old, new in MOVED.items():
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                module = importlib.import_module(f"sdg_automata.{old}")
            assert module is importlib.import_module(f"sdg_automata.{new}"), old
            assert module.__name__ == f"sdg_automata.{new}", old
            said = [str(w.message) for w in seen if w.category is DeprecationWarning]
            assert any(f"sdg_automata.{old} moved to sdg_automata.{new};" in m
                       for m in said), (old, said)
        print(len(MOVED))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) == len(_moved.MOVED) >= 30


def test_a_name_through_the_old_path_is_the_new_object() -> None:
    from sdg_automata.search.decide import max_grundy

    with pytest.warns(DeprecationWarning, match="sdg_automata.decide moved to"):
        old = importlib.import_module("sdg_automata.decide")
    assert old.max_grundy is max_grundy


def test_the_package_attribute_of_an_old_name_warns_too() -> None:
    import sdg_automata
    from sdg_automata.search import walks

    with pytest.warns(DeprecationWarning, match="sdg_automata.walks moved to"):
        assert sdg_automata.walks is walks  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["sdg_automata.nothing", "sdg_automata.decidex"])
def test_unknown_names_are_not_invented(name: str) -> None:
    assert _moved.new_name(name) is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)


def test_new_paths_are_left_to_the_ordinary_finders() -> None:
    assert _moved.new_name("sdg_automata.search.decide") is None
    assert _moved.new_name("sdg_automata") is None
