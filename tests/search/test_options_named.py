"""Options classes named rather than held (issue 33 §4): an entry of the strategy or
engine registry may give its options class as ``"module:Class"``; the class is imported
when its options are first needed, and behaves as one held by the entry.

The built-in strategies and engines with options (sat, pdr, dask) name theirs, so that a
run that uses none of them never defines them; their names stay importable from the
strategy's or engine's module.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
import toy_engine

from sdg_automata.errors import InputError
from sdg_automata.grammar.parse import parse_grammar
from sdg_automata.search import engines, strategies
from sdg_automata.search.decide import max_grundy

GRAMMAR = "A -> a A | a a A | B | a | a a\nB -> b A | b"


def test_the_built_in_entries_name_classes_that_import_where_documented() -> None:
    """Should resolve each named class to the one importable from its entry's module."""
    from sdg_automata.search.engines.dask import DaskOptions
    from sdg_automata.search.strategies.pdr import PdrOptions
    from sdg_automata.search.strategies.sat import SatOptions

    sat, pdr, dask = strategies.get("sat"), strategies.get("pdr"), engines.get("dask")
    assert all(isinstance(e.options, str) for e in (sat, pdr, dask))
    assert (sat.options_class, pdr.options_class, dask.options_class) == (
        SatOptions, PdrOptions, DaskOptions)
    assert sat.defaults == {"max_length": None, "sat_solver": None}
    assert pdr.defaults == {"sat_solver": None}
    assert dask.defaults["connect_timeout"] == 20.0
    assert sat.make_options({"max_length": 4, "scheduler": "x"}) == SatOptions(max_length=4)
    assert dataclasses.is_dataclass(SatOptions) and SatOptions.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_importing_the_registries_defines_no_options_class() -> None:
    """Should import the registries (and list every entry's arguments) without defining
    an options class (a dataclass's generated methods cost start-up)."""
    code = ("import dataclasses\n"
            "made = []\n"
            "process = dataclasses._process_class\n"
            "def counted(cls, *args, **kwargs):\n"
            "    made.append(cls.__qualname__)\n"
            "    return process(cls, *args, **kwargs)\n"
            "dataclasses._process_class = counted\n"
            "from sdg_automata.search import engines, strategies\n"
            "flags = [a.flag for e in (*strategies.STRATEGIES.values(),"
            " *engines.ENGINES.values()) for a in e.arguments]\n"
            "assert '--max-length' in flags and '--scheduler' in flags, flags\n"
            "assert 'SearchEngine' in made, made\n"
            "print(sorted(m for m in made if m.endswith('Options')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_named_class_serves_an_entry_as_a_held_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should give the toy engine, its options named, the same options, defaults and
    refusals as with its class held."""
    named = dataclasses.replace(toy_engine.ENGINE, options="toy_engine:ToyOptions")
    monkeypatch.setitem(engines.ENGINES, "toy", named)
    assert named.options_class is toy_engine.ToyOptions
    assert named.defaults == {"toy_label": "dict"}
    g = parse_grammar(GRAMMAR)
    v = max_grundy(g, "A", engine="toy", options={"toy_label": "hash map"})
    assert v.engine is not None and v.engine.store == "hash map"
    assert max_grundy(g, "A", engine="toy").engine.store == "dict"  # type: ignore[union-attr]
    with pytest.raises(InputError, match="toy_label is an option of the toy engine"):
        max_grundy(g, "A", engine="python", options={"toy_label": "x"})
    with pytest.raises(InputError, match="unknown option 'toy_lable'"):
        max_grundy(g, "A", engine="toy", options={"toy_lable": "x"})


def test_no_option_given_refuses_nothing_and_runs_the_defaults() -> None:
    """Should answer with every option at its default when none is given, on each route."""
    g = parse_grammar(GRAMMAR)
    assert max_grundy(g, "A", 2, options={}).answer is True
    assert max_grundy(g, "A", 2, method="explicit").answer is True
    with pytest.raises(InputError, match="maximum length bounds the sat strategy only; the "
                                         "explicit route"):
        max_grundy(g, "A", method="explicit", options={"max_length": 3})
