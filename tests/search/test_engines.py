"""The compiled kernels (sdg_automata.kernels.automaton, driven by
sdg_automata.search.compiled.tables) against the Python reference paths, and both against
independent truth.

Truths used here, none of them the code under test:

* the Python reference (``engine="python"``: ``decide._bfs_python``,
  ``_dfs_python``, ``_lasso_python``, ``crawl``): the compiled engine must give
  the same values, witnesses, state counts and early stops on every instance;
* the from-scratch oracle of ``strategies.py`` (SPEC §2's definition) on every
  witness;
* the Chinese remainder theorem (``families.modular_truth``) for the hardness
  family, and the lasso's μ + λ from ``periodicity.proven_period``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirun import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Definition, left_linear_grammars, right_linear_grammars

from sdg_automata.automaton.construction import GrundyAutomaton, automaton_for
from sdg_automata.errors import BudgetExceeded, EngineNotice, InputError
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import grammar_to_json, parse_grammar
from sdg_automata.grammar.words import LONG_WORD, Word
from sdg_automata.search.compiled.tables import StepTables
from sdg_automata.search.decide import max_grundy
from sdg_automata.search.engines.compiled import ENGINE as COMPILED

pytest.importorskip("numba")

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
REGEXES = [None, "a*", "(ab)*", "b(a|b)*", "(a|b)*aa", "aa*", "(aa|b)*", "a(a|c)*"]


def verdict(g: Grammar, head: str, k: int | None, **kw: object) -> tuple[object, ...]:
    v = max_grundy(g, head, k, **kw)  # type: ignore[arg-type]
    return (v.maximum, v.answer, v.exact, v.stopped_early, v.states, v.witnesses)


def engines_agree(g: Grammar, head: str, k: int | None, **kw: object) -> tuple[object, ...]:
    """The verdict of both engines, which must be equal; the witnesses checked by the
    definition."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)  # one-group grammars: Python anyway
        python = verdict(g, head, k, engine="python", **kw)
        compiled = verdict(g, head, k, engine="compiled", **kw)
    assert compiled == python, (kw, python, compiled)
    oracle = Definition(g.rules)
    for value, w in python[-1].items():  # type: ignore[union-attr]
        assert oracle(head, str(w)) == value
    return python


# ---------------------------------------------------------------------------
# the step


def test_the_compiled_step_is_step_reference() -> None:
    import numpy as np

    from sdg_automata.kernels import step as kernel

    for g in (modular_family([ModularSpec.parse(s) for s in "2:0 3:1 5:2 7:3".split()]),
              intersection_grammar(random_family(3, 8, seed=3))):
        m = GrundyAutomaton(g)
        tables = StepTables(m)
        seen = {m.initial: tables.initial.tolist()}
        queue = [m.initial]
        rows = np.zeros((2, tables.groups), dtype=np.int32)
        misses = 0
        for q in queue:
            rows[0] = seen[q]
            for k, a in enumerate(m.alphabet):
                while kernel.step(tables.heap, tables.plan, tables.starts[k], rows, 0, rows, 1):
                    misses += 1
                    tables.learn(rows[0].tolist(), k)
                nq = m.step_reference(q, a)
                assert tables.state(rows[1]) == nq
                if nq not in seen:
                    seen[nq] = rows[1].tolist()
                    queue.append(nq)
        # the tables learn once per key, not once per step
        assert 0 < misses < len(queue) * len(m.alphabet) // 4


def test_one_group_and_its_notice(example3: Grammar, capsys: pytest.CaptureFixture[str]
                                  ) -> None:
    assert "one group" in (COMPILED.unfit(GrundyAutomaton(example3)) or "")
    with pytest.warns(EngineNotice, match="runs on the python engine, not compiled: its "
                                          "nonterminals form one group"):
        v = max_grundy(example3, "A", engine="compiled")
    assert (v.maximum, v.witness, v.engine.name) == (2, "aa", "python")
    code, out, err = run(["max", "examples/example3.txt", "A", "--engine", "compiled"], capsys)
    assert code == 0 and out.startswith("max 2, witness 'aa'")
    assert err.splitlines() == ["note: the search runs on the python engine, not compiled: its "
                                "nonterminals form one group, so the compiled step would "
                                "learn every state from Python"]


# ---------------------------------------------------------------------------
# every strategy, both engines, random grammars


@FAST
@given(st.one_of(right_linear_grammars(), left_linear_grammars()), st.data())
def test_engines_agree_on_random_grammars(g: Grammar, data: st.DataObject) -> None:
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    k = data.draw(st.one_of(st.none(), st.integers(0, 3)), label="k")
    within = data.draw(st.sampled_from(REGEXES), label="within")
    for strategy in ("bfs", "dfs", None):
        engines_agree(g, head, k, strategy=strategy, within=within)


@FAST
@given(right_linear_grammars(), st.data())
def test_explorations_agree(g: Grammar, data: st.DataObject) -> None:
    m = automaton_for(g)
    a = m.explore(engine="python")
    b = automaton_for(g).explore(engine="compiled") if COMPILED.unfit(m) is None else a
    assert list(a.states) == list(b.states)
    assert [list(r) for r in a.rows] == [list(r) for r in b.rows]
    assert (list(a.parent), list(a.via)) == (list(b.parent), list(b.via))
    for head in g.nonterminals:
        assert a.values(head) == b.values(head)
        assert a.shortest_witnesses(head) == b.shortest_witnesses(head)


UNARY = [  # (specs, truth): the lasso's tail is 0, its cycle lcm(2p, …); with and without
    "3:0 5:1 7:3",  # settles at the CRT solution (66)
    "3:0 5:2 7:3 3:1",  # max 3 < m_A = 4: the whole lasso (210 states)
    "4:2 3:1 9:4",
]


@pytest.mark.parametrize("specs", UNARY)
@pytest.mark.parametrize("k", [None, 0, 1, 2, 5])
def test_the_lasso_is_the_breadth_first_search(specs: str, k: int | None) -> None:
    g = modular_family([ModularSpec.parse(s) for s in specs.split()])
    lasso = engines_agree(g, "A", k, strategy="lasso")
    assert lasso == verdict(g, "A", k, strategy="bfs", engine="python")
    truth, length = modular_truth([ModularSpec.parse(s) for s in specs.split()])
    if k is None:
        assert lasso[0] == truth
        if length is not None and truth == max(lasso[-1]):  # type: ignore[arg-type]
            assert len(lasso[-1][truth]) == length  # type: ignore[index]


def test_the_lasso_finds_tail_and_cycle() -> None:
    """A unary grammar whose lasso has a tail (μ > 0): A's values settle after n = 3.
    μ + λ is checked against ``periodicity.proven_period``, which stores the lasso."""
    from sdg_automata.derivation.periodicity import proven_period
    from sdg_automata.grammar.parse import parse_grammar

    g = parse_grammar("A -> a a a B | a B | a\nB -> a a C | a\nC -> a a a a a B | a a")
    period = proven_period(g, "A", engine="python")
    assert period.lasso_tail > 0
    for k in (None, 0, 1, 3):
        v = engines_agree(g, "A", k, strategy="lasso")
        if k is None:
            assert v[4] == period.lasso_tail + period.lasso_cycle


def test_one_letter_within_is_a_lasso() -> None:
    g = intersection_grammar(random_family(3, 6, seed=11))
    auto = max_grundy(g, "A", within="(aa)*")
    assert auto.strategy == "lasso"
    assert verdict(g, "A", None, within="(aa)*", strategy="lasso") == verdict(
        g, "A", None, within="(aa)*", strategy="lasso", engine="python")
    bfs = max_grundy(g, "A", within="(aa)*", strategy="bfs")
    assert (auto.maximum, auto.witnesses) == (bfs.maximum, bfs.witnesses)
    with pytest.raises(InputError, match="lasso walks one letter"):
        max_grundy(g, "A", strategy="lasso")


def test_a_constraint_empty_over_the_letters_is_a_lasso_with_no_position() -> None:
    """Should walk (no position, exit "no") a constraint whose language over Σ = {a} is
    empty, as bfs answers; it was refused as "more than one letter": the emptiness check
    read state -1, the last state's row."""
    g = parse_grammar("A -> a A | a")
    for strategy in ("lasso", "bfs", None):
        v = max_grundy(g, "A", within="bb*a*", strategy=strategy)
        assert v.maximum is None and v.exact and v.witnesses == {}, (strategy, v)


def test_records_widen_when_ids_outgrow_16_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records are uint16 until a part id needs more; the widening happens mid-walk."""
    import sdg_automata.search.compiled.stores as stores

    g = intersection_grammar(random_family(3, 12, seed=28))  # a group of 2876 parts
    narrow = verdict(g, "A", None, strategy="bfs", engine="compiled")
    monkeypatch.setattr(stores, "NARROW", 100)
    for strategy in ("bfs", "dfs"):
        wide = verdict(g, "A", None, strategy=strategy, engine="compiled")
        assert wide == verdict(g, "A", None, strategy=strategy, engine="python")
    assert wide[:5] == narrow[:5]


# ---------------------------------------------------------------------------
# the hardness family: independent truth at a size where the kernels matter


@pytest.mark.parametrize("strategy", ["bfs", "dfs", "lasso"])
def test_compiled_search_on_the_hardness_family(strategy: str) -> None:
    specs = [ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 13:1 3:1".split()]
    truth, length = modular_truth(specs)
    v = max_grundy(modular_family(specs), "A", strategy=strategy, engine="compiled")
    assert (v.maximum, v.exact, v.engine.name) == (truth, True, "compiled")
    assert v.states == 30031  # 1 + lcm(6, 10, 14, 22, 26): everything, since max < m_A
    if strategy != "dfs":
        assert len(v.witness) == length  # type: ignore[arg-type]


def test_compiled_search_on_random_binary_dfas() -> None:
    dfas = random_family(3, 12, seed=28)  # max 0 < m_A = 2: every state explored
    v = max_grundy(intersection_grammar(dfas), "A", engine="compiled", strategy="bfs")
    assert (v.maximum, v.states, v.engine.name) == (product_truth(dfas)[0], 54258, "compiled")
    dfas = random_family(3, 10, seed=2)  # max 3 = m_A, first reached at length 8
    v = max_grundy(intersection_grammar(dfas), "A", engine="compiled", strategy="bfs")
    assert (v.maximum, len(v.witness or "")) == product_truth(dfas) == (3, 8)


# ---------------------------------------------------------------------------
# budgets, inside the kernels


@pytest.mark.parametrize("strategy", ["bfs", "dfs", "lasso"])
def test_state_budgets_are_exact_in_both_engines(strategy: str) -> None:
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()])  # 211 states
    for engine in ("python", "compiled"):
        assert max_grundy(g, "A", strategy=strategy, engine=engine, max_states=211).states == 211
        with pytest.raises(BudgetExceeded, match="budget of 210 states"):
            max_grundy(g, "A", strategy=strategy, engine=engine, max_states=210)


def test_auto_restarts_compiled_past_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    from sdg_automata.runtime.engines import THRESHOLDS

    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 3:1".split()])
    monkeypatch.setitem(THRESHOLDS, "walk states", 1024)
    seen: list[int] = []
    v = max_grundy(g, "A", strategy="bfs", progress=seen.append)
    assert v.engine.name == "compiled" and v.states == 2311
    assert seen == sorted(seen)  # the restart's progress never goes back
    # a run that fits the threshold, or a budget below it, stays in Python
    assert max_grundy(g, "A", 1, strategy="bfs").engine.name == "python"
    assert max_grundy(g, "A", strategy="bfs", max_states=5000).engine.name == "compiled"
    with pytest.raises(BudgetExceeded, match="budget of 1000 states"):
        max_grundy(g, "A", strategy="bfs", max_states=1000)


def test_seconds_and_progress_inside_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels return to Python every ~0.05 s: a 0.3 s budget stops a compiled
    search of tens of seconds within a fraction of a second, with progress reported.

    As a count, not a time (CPU time failed on a loaded machine, issue 34 §7): the budgets'
    clock moves 0.01 s a reading (tests/workclock.py), so 0.3 s is about 30 returns of the
    kernels to the meter, each after one quantum of work."""
    from workclock import work_clock

    specs = [ModularSpec.parse(s) for s in "16:0 27:6 25:0 7:3 11:5 13:1 3:1".split()]
    g = modular_family(specs)
    small = modular_family([ModularSpec.parse(s) for s in "3:0 5:1".split()])
    max_grundy(small, "A", strategy="bfs", engine="compiled")  # load the kernels first
    seen: list[int] = []
    clock = work_clock(monkeypatch, step=0.01)
    with pytest.raises(BudgetExceeded, match="budget of 0.3 s"):
        max_grundy(g, "A", strategy="bfs", engine="compiled", max_seconds=0.3,
                   progress=seen.append)
    assert clock.readings <= 60
    assert seen and seen == sorted(seen)


def _cli(args: list[str], **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen([sys.executable, "-m", "sdg_automata", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)  # type: ignore


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 10⁷ reachable states with the maximum below m_A: a search of many seconds."""
    specs = [ModularSpec.parse(s) for s in "16:0 27:6 25:0 7:3 11:5 13:1 3:1".split()]
    path = tmp_path_factory.mktemp("huge") / "huge.json"
    path.write_text(grammar_to_json(modular_family(specs)), encoding="utf-8")
    return path


def _cpu(pid: int) -> float:
    """CPU seconds (user + sys) the process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def unary_huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 2·10⁸ states of one letter: the lasso walks :func:`huge`'s in ~3 CPU seconds, and
    the breadth-first search too once its kernels are linked as native code (no numba to
    load), as long as the test waits before its Ctrl-C, so they need 17 times more."""
    specs = [ModularSpec.parse(s) for s in "16:0 27:6 25:0 7:3 11:5 13:1 17:2 3:1".split()]
    path = tmp_path_factory.mktemp("unary") / "huge.json"
    path.write_text(grammar_to_json(modular_family(specs)), encoding="utf-8")
    return path


@pytest.mark.parametrize("strategy", ["bfs", "lasso"])
def test_ctrl_c_inside_the_kernel(unary_huge: Path, strategy: str) -> None:
    # the kernels compiled (or loaded) by a small run first, so the big one reaches them
    small = modular_family([ModularSpec.parse(s) for s in "3:0 5:1".split()])
    max_grundy(small, "A", strategy=strategy, engine="compiled")  # type: ignore[arg-type]
    proc = _cli(["max", str(unary_huge), "A", "--engine", "compiled", "--strategy", strategy])
    deadline = time.monotonic() + 120
    while _cpu(proc.pid) < 3 and time.monotonic() < deadline:  # numba loads in ~1 CPU s
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    lines = err.strip().splitlines()
    assert proc.returncode == 130 and len(lines) == 1, err
    assert lines[0].startswith("error: interrupted after "), err
    assert int(lines[0].split()[3]) > 1000, err  # how far the kernel got


@pytest.mark.parametrize(("command", "phase"), [
    (["max", "A", "--strategy", "bfs"], "search"),  # the packed store
    (["dfa", "A", "1"], "construction"),  # the records' store, with rows: the exploration
    (["max", "A", "--strategy", "dfs"], "search")])  # the records' store
def test_out_of_memory_inside_the_kernel_is_exit_3(huge: Path, command: list[str],
                                                   phase: str) -> None:
    """Under an address-space limit the store cannot grow: one line, exit 3, the walk
    stopped before memory ran out — by the meter's reserve or, when a doubling needs
    more, by the growth itself refused before it is tried (the packed store needs about
    220 MB for these states, the process about 310 MB before them)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (480 << 20, 480 << 20))

    name, *rest = command
    proc = _cli([name, str(huge), *rest, "--engine", "compiled"], preexec_fn=limit)
    out, err = proc.communicate(timeout=300)
    lines = err.strip().splitlines()
    assert proc.returncode == 3 and len(lines) == 1, err
    assert lines[0].startswith(f"error: {phase} stopped before memory ran out ("), err


def test_a_growth_that_does_not_fit_is_refused_before_it_is_tried(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should refuse a store's growth of 16 MB or more that, with the meter's reserve, is
    more than is left to allocate, before mapping anything; smaller ones are not asked."""
    from sdg_automata.runtime import budget
    from sdg_automata.search.compiled import stores

    g = stores.Growing("int32", (), 1 << 10)
    monkeypatch.setattr(budget, "available_bytes", lambda: budget.MEMORY_RESERVE + (20 << 20))
    with pytest.raises(stores.NoRoom, match="needs 32 MB, 148 MB left"):
        g.grow(8 << 20)  # 32 MB of int32
    assert g.capacity == 1 << 10 and g.array.shape == (1 << 10,)
    g.grow(4 << 20)  # 16 MB: fits
    g.grow((4 << 20) + (1 << 20))  # 4 MB more: below LARGE_GROWTH, not asked
    assert g.capacity == (4 << 20) + (1 << 20)
    g.close()


def test_a_growth_while_another_holds_a_view_moves_the_rows() -> None:
    """Should grow, keeping every row, while a view of the array lives on elsewhere (Dask's
    profiler holds a sampled thread's frames, and their views, while it walks them): the
    map cannot be resized then (BufferError), so the rows move to a new map, and the old
    view still reads the old rows."""
    import numpy as np

    from sdg_automata.search.compiled import stores

    g = stores.Growing("int64", (3,), 1 << 10, huge=False)
    g.array[:] = np.arange(3 << 10).reshape(-1, 3)
    held = g.array[5:9]  # another's view
    g.grow(1 << 14)
    assert g.capacity == 1 << 14 and g.array.shape == (1 << 14, 3)
    np.testing.assert_array_equal(g.array[:1 << 10], np.arange(3 << 10).reshape(-1, 3))
    assert not g.array[1 << 10:].any()  # new rows are zero
    np.testing.assert_array_equal(held, np.arange(15, 27).reshape(-1, 3))
    g.array[5] = -1  # the new rows are the array's own
    assert held[0, 0] == 15
    g.grow(1 << 15)  # and it grows in place again once nothing else holds a view
    del held
    g.grow(1 << 16)
    assert g.array[5, 0] == -1 and g.array[6, 0] == 18
    g.close()


def test_a_table_map_is_whole_huge_pages_and_keeps_them_aligned_as_it_grows() -> None:
    """Should map an array read at random (``huge``) of 4 MB or more as whole 2 MB pages,
    grow within its last one, and keep every row (new ones zero).  Where the kernel
    places such a map at a 2 MB boundary, each growth that moves it keeps it there (its
    huge pages survive; a map of any other length moved to any page boundary, and its
    huge pages were split into 4 KB ones)."""
    import mmap

    import numpy as np

    from sdg_automata.search.compiled import stores

    page = stores.HUGE_PAGE
    g = stores.Growing("uint64", (), (5 << 20) // 8 + 3)  # 5 MB and a bit: 6 MB mapped
    assert g._map is not None and len(g._map) == 3 * page
    g.array[:] = np.arange(g.capacity, dtype=np.uint64)
    before = g._map
    g.grow(g.capacity + 1000)  # within the last huge page: the same map
    assert g._map is before and len(g._map) == 3 * page
    assert g.array[-1000:].sum() == 0 and g.array[5] == 5

    def address(m: mmap.mmap) -> int:
        return int(np.frombuffer(m, dtype=np.uint8).ctypes.data)

    # whether this kernel places maps of whole huge pages at 2 MB boundaries (one map in
    # 512 lands there by chance where it does not: three probes and the table's own map)
    probes = [mmap.mmap(-1, 2 * page, flags=mmap.MAP_PRIVATE) for _ in range(3)]
    aligned = all(address(m) % page == 0 for m in [*probes, g._map])
    for m in probes:
        m.close()
    blockers, moves = [], 0
    for _ in range(12):  # maps made meanwhile take the room around it: a growth moves it
        blockers.append(mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE))
        rows, at = g.capacity, address(g._map)
        g.grow(int(rows * 1.3))
        moves += address(g._map) != at
        assert len(g._map) % page == 0
        if aligned:
            assert address(g._map) % page == 0
        assert g.array[5] == 5 and g.array[(5 << 20) // 8] == (5 << 20) // 8
        assert not g.array[rows:].any()  # new rows are zero
        if moves == 2:
            break
    g.close()
    for m in blockers:
        m.close()
    small = stores.Growing("uint64", (), 1000)  # below 4 MB, or read in order: as asked
    assert len(small._map) == max(mmap.PAGESIZE, 8000)
    small.close()
    ordered = stores.Growing("uint64", (), (5 << 20) // 8 + 3, huge=False)
    assert len(ordered._map) == (5 << 20) + 24
    ordered.close()
    if aligned and not moves:
        pytest.skip("no growth moved the map: its alignment after a move was not seen")


def test_without_numba_auto_is_python_and_compiled_says_why(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['numba'] = None\n"
            "from sdg_automata.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    specs = [ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 13:1 17:14 3:1".split()]
    path = tmp_path / "g.json"
    path.write_text(grammar_to_json(modular_family(specs)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    auto = subprocess.run([sys.executable, "-c", code, "max", str(path), "A", "--json",
                           "--strategy", "bfs"], capture_output=True, text=True, env=env)
    assert auto.returncode == 0 and '"engine": {"name": "python"' in auto.stdout, auto.stderr
    assert '"states": 510511' in auto.stdout and auto.stderr == ""
    forced = subprocess.run([sys.executable, "-c", code, "max", str(path), "A", "--engine",
                             "compiled"], capture_output=True, text=True, env=env)
    assert forced.returncode == 2 and forced.stderr.startswith(
        "error: the compiled engine needs numba: numba cannot be imported"), forced.stderr


# ---------------------------------------------------------------------------
# long witnesses: run-length words


def test_words() -> None:
    w = Word.of("aabbbab")
    assert (w.runs, len(w), str(w), w.compact()) == (
        (("a", 2), ("b", 3), ("a", 1), ("b", 1)), 7, "aabbbab", "a^2b^3ab")
    assert w.reversed() == Word.of("babbbaa") and "".join(w) == "aabbbab"
    assert Word.power("a", 160949018).to_json() == {
        "runs": [["a", 160949018]], "length": 160949018, "compact": "a^160949018"}


def test_long_witnesses_are_run_length(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    specs = [ModularSpec.parse(s) for s in "2:0 3:2 5:3 7:6 11:10 13:9 17:5".split()]
    truth, length = modular_truth(specs)
    assert length is not None and length > LONG_WORD
    path = tmp_path / "g.json"
    path.write_text(grammar_to_json(modular_family(specs)), encoding="utf-8")
    for strategy in ("lasso", "bfs"):
        v = max_grundy(modular_family(specs), "A", strategy=strategy)
        assert v.witness == Word.power("a", length) and v.maximum == truth
    code, out, _ = run(["max", path, "A"], capsys)
    assert code == 0 and out == (f"max {truth}, witness a^{length} (length {length:,}) "
                                 f"({length + 1} states explored, stopped early)\n")
    code, out, _ = run(["max", path, "A", "--json"], capsys)
    assert f'"witness": {{"runs": [["a", {length}]], "length": {length}, ' in out
    code, out, _ = run(["max", path, "A", "--json", "--full-witness"], capsys)
    assert f'"witness": "{"a" * length}"' in out


def test_the_kernels_run_as_python_under_numba_disable_jit(tmp_path: Path) -> None:
    """``NUMBA_DISABLE_JIT=1`` runs the kernels' own code uncompiled: same answers."""
    specs = [ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()]
    path = tmp_path / "g.json"
    path.write_text(grammar_to_json(modular_family(specs)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "NUMBA_DISABLE_JIT": "1"}
    for strategy in ("bfs", "dfs", "lasso"):
        done = subprocess.run([sys.executable, "-m", "sdg_automata", "max", str(path), "A",
                               "--engine", "compiled", "--strategy", strategy, "--json"],
                              capture_output=True, text=True, env=env)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert '"max": 3' in done.stdout and '"engine": {"name": "compiled"' in done.stdout
        assert '"states": 211' in done.stdout


def test_a_table_too_large_for_the_kernels_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import sdg_automata.search.compiled.tables as vectors

    g = intersection_grammar(random_family(3, 12, seed=28))
    monkeypatch.setattr(vectors, "MAX_TABLE", 64)
    with pytest.warns(EngineNotice, match="runs on the python engine, not compiled: a step "
                                          "table would need"):
        v = max_grundy(g, "A", strategy="bfs", engine="compiled")
    assert (v.engine.name, v.states) == ("python", 54258)


@pytest.mark.parametrize("argv", [
    ["dfa", "{g}", "A", "1"], ["dfa", "{g}", "A", "1", "--forward"],
    ["dfa", "{g}", "A", "0", "--labels", "items"], ["spectrum", "{g}", "--json"],
    ["count", "{g}", "A", "1", "--length", "30"], ["regex", "{u}", "A", "1"],
    ["period", "{u}", "A", "--json"], ["max", "{u}", "A", "--strategy", "lasso", "--json"],
])
def test_commands_print_the_same_on_both_engines(argv: list[str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    binary = intersection_grammar(random_family(3, 6, seed=3))  # 179 states, values 0–3
    unary = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 3:1".split()])
    paths = {"g": tmp_path / "g.json", "u": tmp_path / "u.json"}
    paths["g"].write_text(grammar_to_json(binary), encoding="utf-8")
    paths["u"].write_text(grammar_to_json(unary), encoding="utf-8")
    args = [a.format(**{k: str(v) for k, v in paths.items()}) for a in argv]
    outputs = []
    for engine in ("python", "compiled"):
        code, out, err = run([*args, "--engine", engine], capsys)
        assert code == 0 and err == "", err
        outputs.append(out.replace('"engine": "compiled"', '"engine": "python"'))
        if args[0] == "max":  # the time differs
            outputs[-1] = outputs[-1].split('"seconds"')[0]
    assert outputs[0] == outputs[1] and outputs[0]
