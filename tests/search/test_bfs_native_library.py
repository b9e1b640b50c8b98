"""The searches' native libraries (:mod:`sdg_automata.kernels.bfs_native`, the table
store's, :mod:`sdg_automata.kernels.compact_native`, the compact store's,
:mod:`sdg_automata.kernels.lasso_native`, the lasso's, and
:mod:`sdg_automata.kernels.records_native`, the walks on records: the exploration that
builds the DFAs, dfs, the lasso on vectors), issue 36 §4 (``max``) and §3.

Its entry points must be numba's kernels: the same walk (states, numbers, tree, first
states of the values) as numba's dispatchers and the same verdict as the Python
reference, checked against the closed forms of the hardness family
(``families.modular_truth``) and automata-lib's products (``families.product_truth``);
a ``max`` process whose library is cached must not import numba, and with the library
switched off (``SDG_AUTOMATA_NATIVE=0``) the same run must still work, on numba's
dispatchers or on the reference, with the same answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import right_linear_grammars

from sdg_automata.errors import EngineNotice, InputError
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar import Grammar
from sdg_automata.kernels import bfs_native, compact_native, lasso_native, native, records_native
from sdg_automata.search.decide import Verdict, max_grundy

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not native.enabled(),
                                reason="native libraries off here (NUMBA_DISABLE_JIT, "
                                       "SDG_AUTOMATA_NATIVE=0 or no numba cache)")

ROOT = Path(__file__).resolve().parents[2]
#: the hardness family's instance of 30,031 states (bench_floor's quick one): past the
#: Python stage's cap when the library is cached (2¹⁸ / 16), below it when it is not
SPECS = "3:0 5:2 7:3 11:5 13:1 3:1"
FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _native(library: native.Library = bfs_native.LIBRARY) -> dict[str, Any]:
    """The library's native entry points (built in the default cache when missing)."""
    functions = library.functions()
    jitted = library.jitted()
    if any(f is jitted[e.function]
           for e, f in zip(library.entries, functions.values(), strict=True)):
        pytest.skip("no native library on this machine (numba's dispatchers run)")
    return functions


def _jitted(library: native.Library = bfs_native.LIBRARY) -> dict[str, Any]:
    jitted = library.jitted()
    return {e.name: jitted[e.function] for e in library.entries}


def _outcome(v: Verdict) -> tuple[Any, ...]:
    return v.maximum, v.states, v.exact, v.witnesses


def _on(functions: dict[str, Any], run: Callable[[], Any], module: Any = bfs_native) -> Any:
    """``run()`` with the walk's entry points ``functions`` (native, or numba's) taken from
    ``module``."""
    with pytest.MonkeyPatch.context() as m, warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)  # one group: the reference runs
        m.setattr(module, "functions", lambda: functions)
        return run()


def _must(condition: bool) -> None:
    assert condition


def _three_ways(g: Grammar, head: str, *, compiled_ran: Callable[[bool], object] = assume
                ) -> tuple[Any, Any, Any]:
    """The verdicts of bfs on the native entry points, on numba's, and of the reference
    (``compiled_ran``: what to do with whether the kernels ran — hypothesis' ``assume``,
    or :func:`_must` outside a property-based test)."""
    def compiled() -> Verdict:
        return max_grundy(g, head, engine="compiled", strategy="bfs")

    natives, jits = _native(), _jitted()
    on_natives = _on(natives, compiled)
    compiled_ran(on_natives.engine.name == "compiled")  # not the reference after a notice
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)
        reference = max_grundy(g, head, engine="python", strategy="bfs")
    return _outcome(on_natives), _outcome(_on(jits, compiled)), _outcome(reference)


@FAST
@given(right_linear_grammars())
def test_random_grammars_three_ways(g: Grammar) -> None:
    """Should give the same maximum, states and witnesses natively, on numba's dispatchers
    and on the Python reference."""
    from sdg_automata.automaton.construction import GrundyAutomaton

    if GrundyAutomaton(g).layout is None:  # one group: no kernel walk (the reference runs)
        return
    native_run, numba_run, reference = _three_ways(g, g.start)
    assert native_run == numba_run == reference


@settings(max_examples=8, deadline=None)
@given(count=st.integers(2, 3), states=st.integers(3, 12), seed=st.integers(0, 10**6))
def test_random_dfas_against_the_products(count: int, states: int, seed: int) -> None:
    """Should find the maximum automata-lib's product gives, and a shortest witness."""
    dfas = random_family(count, states, seed=seed)
    maximum, length = product_truth(dfas)
    try:
        g = intersection_grammar(dfas)
    except InputError:  # no DFA accepts a non-empty word: nothing to search
        return
    from sdg_automata.automaton.construction import GrundyAutomaton

    if GrundyAutomaton(g).layout is None:
        return
    native_run, numba_run, reference = _three_ways(g, "A")
    assert native_run == numba_run == reference
    assert native_run[0] == maximum
    witness = native_run[3].get(maximum) if maximum is not None else None
    if length is not None and witness is not None:
        assert len(str(witness)) == length


def _hardness(specs: str, store: str = "table") -> tuple[Grammar, tuple[int | None, int | None],
                                                 Callable[[], Any]]:
    """The hardness family's grammar for ``specs``, its closed form (maximum, witness
    length) and its breadth-first walk (``drive.breadth_first`` on ``store``)."""
    from sdg_automata.automaton.construction import GrundyAutomaton
    from sdg_automata.runtime.budget import Budget
    from sdg_automata.search.compiled import drive
    from sdg_automata.search.compiled.tables import StepTables

    parsed = [ModularSpec.parse(s) for s in specs.split()]
    g = modular_family(parsed)

    def walk() -> Any:
        m = GrundyAutomaton(g)
        bound = m.bounds["A"]
        return drive.breadth_first(StepTables(m), Budget(), head="A", bound=bound,
                                   settle=bound + 1, store=store)

    return g, modular_truth(parsed), walk


@pytest.mark.parametrize(("specs", "grows"), [(SPECS, True), ("4:1 9:2 5:0 7:6 2:0", False)])
def test_the_hardness_family_and_the_same_tree(specs: str, grows: bool) -> None:
    """Should walk the same states in the same numbers with the same tree as numba's
    dispatchers (the table grows in place several times on the way: ``spread``), and
    find the closed form's maximum and witness length."""
    from sdg_automata.search.compiled.packed import PackedStore

    g, (truth, length), breadth_first = _hardness(specs)

    def walk() -> tuple[Any, ...]:
        w = breadth_first()
        assert isinstance(w.store, PackedStore)
        assert w.store.parent is not None and w.store.via is not None
        try:
            n = w.states
            return (n, w.found, w.store.grown, w.store.parent.array[:n].tolist(),
                    w.store.via.array[:n].tolist())
        finally:
            w.store.close()

    native_walk, numba_walk = _on(_native(), walk), _on(_jitted(), walk)
    assert native_walk == numba_walk
    assert (native_walk[2] >= 2) == grows  # the table grew in place, natively too
    native_run, numba_run, reference = _three_ways(g, "A", compiled_ran=_must)
    assert native_run == numba_run == reference
    assert native_run[0] == truth and native_run[2]
    assert length is None or len(str(native_run[3][truth])) == length


def test_a_library_that_cannot_be_built_leaves_numbas_kernels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should say once that the library cannot be built, run numba's dispatchers of the
    same kernels, and give the same verdict."""
    from sdg_automata import kernels
    from sdg_automata.errors import KernelCacheWarning

    def fail(self: native.Library, path: Path, lock: int | None) -> None:
        raise RuntimeError("no linker here")

    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5".split()])
    expected = _outcome(max_grundy(g, "A", engine="python", strategy="bfs"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # an empty cache of its own
    monkeypatch.setattr(native, "_NATIVE", {})
    monkeypatch.setattr(kernels, "_said", set())  # the warning is once per process
    monkeypatch.setattr(native.Library, "_build", fail)
    with pytest.warns(KernelCacheWarning, match="cannot be built here"):
        functions = bfs_native.LIBRARY.functions()
    assert functions == _jitted()
    assert not native.cached("bfs_native")
    verdict = _on(functions, lambda: max_grundy(g, "A", engine="compiled", strategy="bfs"))
    assert verdict.engine.name == "compiled" and _outcome(verdict) == expected


# -- the compact store's library -----------------------------------------------------------

def test_the_compact_walk_is_the_same_natively(tmp_path: Path) -> None:
    """Should walk the same states with the same tree and lay the same table, word for
    word, as numba's dispatchers of the compact kernels, through the table's doublings
    in place and its re-encodings, and find the closed form's maximum."""
    import numpy as np

    from sdg_automata.search.compiled.stores import CompactStore

    g, (truth, length), breadth_first = _hardness(SPECS, store="compact")

    def walk() -> tuple[Any, ...]:
        w = breadth_first()
        store = w.store
        assert isinstance(store, CompactStore)
        try:
            codes = np.empty(w.states, np.int64)
            assert store.tree.read(0, codes) == w.states
            t = store.table
            last = max(w.found.values())
            return (w.states, w.found, t.size, t.widths, t.slots[:t.words].tobytes(),
                    codes.tobytes(), [a.tolist() for a in store.runs(last)])
        finally:
            store.close()

    on_native = _on(_native(compact_native.LIBRARY), walk, compact_native)
    assert on_native == _on(_jitted(compact_native.LIBRARY), walk, compact_native)
    assert on_native[2] > 1 << 12  # grown in place from 2¹² slots
    verdict = _on(_native(compact_native.LIBRARY),
                  lambda: max_grundy(g, "A", engine="compact", strategy="bfs"), compact_native)
    assert verdict.engine.store == "compact"
    assert verdict.maximum == truth and verdict.exact
    assert length is None or len(str(verdict.witnesses[truth])) == length


# -- whole processes -----------------------------------------------------------------------

#: ``python -m sdg_automata ARGV`` printing, at exit, whether numba was imported
MAIN = ("import atexit, runpy, sys\n"
        "atexit.register(lambda: print('numba imported:', 'numba' in sys.modules, "
        "file=sys.__stderr__))\n"
        "runpy.run_module('sdg_automata', run_name='__main__', alter_sys=True)\n")


def _max(path: Path, *extra: str, strategy: str = "bfs", **env: str
         ) -> tuple[dict[str, Any], bool]:
    """(the JSON verdict, whether numba was imported) of ``max PATH A --strategy bfs``."""
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", MAIN, "max", str(path), "A", "--strategy",
                           strategy, "--json", *extra], capture_output=True, text=True,
                          cwd=ROOT, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = done.stderr.strip().splitlines()[-1]
    assert imported.startswith("numba imported: "), done.stderr[-2000:]
    verdict = json.loads(done.stdout)
    return verdict, imported.endswith("True")


def _answer(verdict: dict[str, Any]) -> tuple[Any, ...]:
    return verdict["max"], verdict["exact"], verdict["witness"], verdict["witnesses"]


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sdg_automata.grammar.parse import grammar_to_json

    path = tmp_path_factory.mktemp("bfs_native") / "modular.json"
    path.write_text(grammar_to_json(modular_family(
        [ModularSpec.parse(s) for s in SPECS.split()])), encoding="utf-8")
    return path


def test_a_cached_library_runs_max_without_numba(instance: Path) -> None:
    """Should, once the library is cached, run ``max`` on the kernels (auto reaches them
    past 2¹⁸ / 16 states) without importing numba, with the closed form's answer."""
    _native()
    truth, length = modular_truth([ModularSpec.parse(s) for s in SPECS.split()])
    verdict, imported = _max(instance)
    assert verdict["engine"]["name"] == "compiled" and not imported
    assert verdict["max"] == truth and verdict["exact"]
    named, imported = _max(instance, "--engine", "compiled")
    assert not imported and _answer(named) == _answer(verdict)


def test_without_the_library_max_still_works(instance: Path) -> None:
    """Should, with native libraries off, give the same answer: on the reference under
    auto (30,031 states are below numba's cap), on numba's dispatchers by name."""
    _native()
    cached, _ = _max(instance)
    auto, imported = _max(instance, SDG_AUTOMATA_NATIVE="0")
    assert auto["engine"]["name"] == "python" and not imported
    named, imported = _max(instance, "--engine", "compiled", SDG_AUTOMATA_NATIVE="0")
    assert named["engine"]["name"] == "compiled" and imported
    assert _answer(auto) == _answer(named) == _answer(cached)


def test_a_cached_compact_library_runs_without_numba(instance: Path) -> None:
    """Should run ``max --engine compact`` on the native library without importing numba
    once it is cached, and on numba's dispatchers with it off: the same answer as the
    table store's."""
    _native(compact_native.LIBRARY)
    table, _ = _max(instance, "--engine", "compiled")
    compact, imported = _max(instance, "--engine", "compact")
    assert compact["engine"]["name"] == "compact" and not imported
    off, imported = _max(instance, "--engine", "compact", SDG_AUTOMATA_NATIVE="0")
    assert off["engine"]["name"] == "compact" and imported
    assert _answer(compact) == _answer(off) == _answer(table)


# -- the lasso's library -----------------------------------------------------------------

def _lassos(g: Grammar, within: str | None = None) -> tuple[Any, Any, Any]:
    """The lasso's verdicts natively, on numba's dispatcher, and the Python reference's."""
    def compiled() -> Verdict:
        return max_grundy(g, "A", engine="compiled", strategy="lasso", within=within)

    library = lasso_native.LIBRARY
    on_native = _on(_native(library), compiled, lasso_native)
    assume(on_native.engine.name == "compiled")  # not one group (the reference ran)
    on_numba = _on(_jitted(library), compiled, lasso_native)
    reference = max_grundy(g, "A", engine="python", strategy="lasso", within=within)
    return _outcome(on_native), _outcome(on_numba), _outcome(reference)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.tuples(st.integers(1, 12), st.integers(0, 11)), min_size=1, max_size=5),
       st.sampled_from([None, "(aaa)*", "a(aa)*"]))
def test_the_lasso_is_the_same_natively(pairs: list[tuple[int, int]],
                                        within: str | None) -> None:
    """Should walk the same lasso (maximum, states, witnesses, whether exact) natively as on
    numba's dispatcher and the Python reference, under a constraint too, with the closed
    form's maximum where there is none."""
    specs = [ModularSpec(modulus=m, residue=r % m) for m, r in pairs]
    truth, _ = modular_truth(specs)
    assume(truth is not None)  # no D alone accepts a word: no grammar
    native_run, numba_run, reference = _lassos(modular_family(specs), within)
    assert native_run == numba_run == reference
    if within is None:
        assert native_run[0] == truth


def test_a_cached_lasso_library_runs_max_without_numba(instance: Path) -> None:
    """Should run the lasso (the strategy of a grammar of one letter) without importing numba
    once its library is cached, and on numba's dispatcher with it off: the same answer,
    the closed form's."""
    _native(lasso_native.LIBRARY)
    truth, length = modular_truth([ModularSpec.parse(s) for s in SPECS.split()])
    lasso, imported = _max(instance, "--engine", "compiled", strategy="lasso")
    assert lasso["engine"]["name"] == "compiled" and not imported
    assert lasso["max"] == truth and lasso["exact"]
    assert length is None or len(lasso["witness"]) == length
    off, imported = _max(instance, "--engine", "compiled", strategy="lasso",
                         SDG_AUTOMATA_NATIVE="0")
    assert off["engine"]["name"] == "compiled" and imported
    assert _answer(off) == _answer(lasso)


# -- the records' library: the exploration, dfs, the lasso on vectors ----------------------

def _explored(g: Grammar, functions: dict[str, Any] | None) -> tuple[Any, ...]:
    """The compiled exploration of a fresh automaton of ``g`` (rows, tree, state count) on
    the entry points ``functions``, or the Python crawl's when ``None``."""
    from sdg_automata.automaton.construction import automaton_for

    def explore() -> Any:
        return automaton_for(g).explore(engine="python" if functions is None else "compiled")

    reached = explore() if functions is None else _on(functions, explore, records_native)
    found = reached.found
    return found.rows, found.parent, found.via, len(found.states)


@FAST
@given(right_linear_grammars())
def test_the_records_walks_are_the_same_natively(g: Grammar) -> None:
    """Should explore the same automaton (rows, breadth-first tree) natively, on numba's
    dispatchers and in Python, and find the same dfs verdict three ways."""
    from sdg_automata.automaton.construction import GrundyAutomaton

    if GrundyAutomaton(g).layout is None:  # one group: no kernel walk (the reference runs)
        return
    library = records_native.LIBRARY
    natives, jits = _native(library), _jitted(library)
    assert _explored(g, natives) == _explored(g, jits) == _explored(g, None)

    def dfs() -> Verdict:
        return max_grundy(g, g.start, engine="compiled", strategy="dfs")

    on_native = _on(natives, dfs, records_native)
    assume(on_native.engine.name == "compiled")  # not the reference after a notice
    reference = max_grundy(g, g.start, engine="python", strategy="dfs")
    assert (_outcome(on_native) == _outcome(_on(jits, dfs, records_native))
            == _outcome(reference))


@pytest.mark.parametrize("specs", ["3:0 5:2 7:3 3:1", "4:2 3:1 9:4"])
def test_the_lasso_on_vectors_is_the_same_natively(specs: str) -> None:
    """Should walk the lasso on vectors (states wider than a word: the fields refused)
    natively as on numba's dispatchers, with the closed form's maximum."""
    from sdg_automata.search.compiled import drive

    parsed = [ModularSpec.parse(s) for s in specs.split()]
    truth, length = modular_truth(parsed)
    g = modular_family(parsed)

    def vectors() -> Verdict:
        with pytest.MonkeyPatch.context() as m:
            m.setattr(drive._WordFields, "fit", lambda self: None)
            return max_grundy(g, "A", engine="compiled", strategy="lasso")

    library = records_native.LIBRARY
    on_native = _on(_native(library), vectors, records_native)
    assert _outcome(on_native) == _outcome(_on(_jitted(library), vectors, records_native))
    assert on_native.maximum == truth and on_native.exact
    assert length is None or len(str(on_native.witnesses[truth])) == length


def _dfa(path: Path, **env: str) -> tuple[str, bool]:
    """(the DFA M_{A,1} printed, whether numba was imported) of ``dfa PATH A 1 --engine
    compiled``: the compiled exploration."""
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", MAIN, "dfa", str(path), "A", "1", "--engine",
                           "compiled"], capture_output=True, text=True, cwd=ROOT,
                          env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = done.stderr.strip().splitlines()[-1]
    assert imported.startswith("numba imported: "), done.stderr[-2000:]
    return done.stdout, imported.endswith("True")


def test_a_cached_records_library_explores_and_runs_dfs_without_numba(instance: Path) -> None:
    """Should, once the library is cached, build a DFA M_{A,i} on the compiled exploration and
    run ``max --strategy dfs`` without importing numba, and give the same DFA and verdict
    with the library off (numba's dispatchers) and in Python."""
    _native(records_native.LIBRARY)
    dfa, imported = _dfa(instance)
    assert not imported and dfa
    off, imported = _dfa(instance, SDG_AUTOMATA_NATIVE="0")
    assert imported and off == dfa
    truth, _ = modular_truth([ModularSpec.parse(s) for s in SPECS.split()])
    verdict, imported = _max(instance, "--engine", "compiled", strategy="dfs")
    assert verdict["engine"]["name"] == "compiled" and not imported
    assert verdict["max"] == truth and verdict["exact"]
    python, _ = _max(instance, "--engine", "python", strategy="dfs")
    assert _answer(python) == _answer(verdict)


def test_auto_explores_natively_past_its_own_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should, with the library cached, explore in Python up to
    ``THRESHOLDS["explore states, native"]`` states and on the kernels past it, and with
    the library off in Python up to ``THRESHOLDS["walk states"]``: the same automaton."""
    from sdg_automata.automaton.construction import automaton_for
    from sdg_automata.runtime.engines import THRESHOLDS

    _native(records_native.LIBRARY)
    small, large = 30_031, 151_759  # below and past 2¹⁶, both below 2¹⁸
    assert small < THRESHOLDS["explore states, native"] < large < THRESHOLDS["walk states"]
    product = intersection_grammar(random_family(3, 12, seed=2))
    cases = [(modular_family([ModularSpec.parse(s) for s in SPECS.split()]), small, "python"),
             (product, large, "compiled")]
    for g, states, engine in cases:
        reached = automaton_for(g).explore()
        assert (len(reached.found.states), reached.engine) == (states, engine)
    monkeypatch.setenv(native.ENV, "0")
    off = automaton_for(product).explore()
    assert (len(off.found.states), off.engine) == (large, "python")
    assert off.found.rows == reached.found.rows
