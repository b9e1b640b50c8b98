"""i-Mark(S, D) (SPEC §6): the naive sequence and the convergence technique.

The oracle is :func:`reference`, the definition written again here with sets
and no shared code; the fast naive table is checked against it, and the
convergence technique against the naive table.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.errors import ConvergenceError, InputError, SdgBug
from sdg_automata.games.imark import (
    ENGINES,
    NAIVE_BASE,
    IMark,
    IMarkConvergenceError,
    IMarkValue,
    coalescence_steps,
    imark_cache_clear,
    imark_grundy,
    imark_naive,
    imark_sequence,
    imark_sequence_chunks,
    imark_value,
    imark_values,
    survey_instance,
)
from sdg_automata.games.imark import naive as imark_naive_module
from sdg_automata.games.imark import reference as reference_engine
from sdg_automata.games.imark.game import rules as _rules
from sdg_automata.games.imark.reference import _Store
from sdg_automata.sweeps.imark import survey, survey_instances

#: the instances of the issue; each converges (Nivasch–Rubinstein prove ({1}, {d1, d2}))
CONVERGING = [((1,), (2, 3)), ((1,), (2, 5)), ((1, 2), (2, 3)), ((2,), (2, 3)), ((1,), (3, 4))]
N = 10**5


def reference(S: tuple[int, ...], D: tuple[int, ...], upto: int) -> list[int]:
    """𝒢(0..upto) straight from the definition."""
    g: list[int] = []
    for n in range(upto + 1):
        seen = {g[n - s] for s in S if n - s >= 0}
        seen |= {g[n // d] for d in D if n >= 1 and n % d == 0}
        v = 0
        while v in seen:
            v += 1
        g.append(v)
    return g


_TABLES: dict[tuple[tuple[int, ...], tuple[int, ...]], bytes] = {}


def table(S: tuple[int, ...], D: tuple[int, ...]) -> bytes:
    """The naive table on [0, N + 2·512] (enough for every window the tests use), once."""
    key = (S, D)
    if key not in _TABLES:
        _TABLES[key] = imark_sequence(S, D, upto=N + 1100)
    return _TABLES[key]


# ---------------------------------------------------------------------------
# the game and the naive sequence


def test_followers_are_the_moves():
    g = IMark.of([1, 2], [2, 3])
    assert g.followers(0) == []
    assert g.followers(1) == [0]  # 1/d is never a move: d does not divide 1
    assert g.followers(6) == [5, 4, 3, 2]
    assert g.followers(7) == [6, 5]
    assert str(g) == "i-Mark(S={1,2}, D={2,3})"
    assert g.max_value == 4


@pytest.mark.parametrize(("S", "D"), CONVERGING + [((), (2, 3)), ((1, 3), ()), ((3,), (2,)),
                                                   ((1, 2, 3), (2, 5, 7)), ((2, 5), (3,))])
def test_naive_sequence_matches_the_definition(S, D):
    assert list(imark_sequence(S, D, upto=5000)) == reference(S, D, 5000)


def test_naive_sequence_large_v_uses_the_generic_loop():
    # |S|+|D| = 8 > 7: masks do not fit a byte, the slow path must agree
    S, D = (1, 2, 3, 4, 5), (2, 3, 5)
    assert list(imark_sequence(S, D, upto=3000)) == reference(S, D, 3000)


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(1, 6), max_size=3), st.sets(st.integers(2, 9), max_size=3),
       st.integers(0, 400))
def test_naive_sequence_random_instances(S, D, upto):
    if not S and not D:
        return
    S, D = tuple(sorted(S)), tuple(sorted(D))
    assert list(imark_sequence(S, D, upto=upto)) == reference(S, D, upto)


def test_sequence_chunks_and_small_values():
    whole = imark_sequence([1], [2, 3], upto=1000)
    assert b"".join(imark_sequence_chunks([1], [2, 3], upto=1000, chunk=7)) == whole
    assert list(whole[:11]) == [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    assert imark_naive([1], [2, 3], n=1000) == whole[1000]
    assert max(whole) <= 3  # every value ≤ |S| + |D|


def test_pure_division_game():
    # S = ∅: 𝒢(n) = mex of 𝒢(n/d); a position with no divisor in D is terminal
    g = imark_sequence([], [2], upto=64)
    for k in range(7):  # 2^k has the chain 2^k → 2^(k-1) → … → 1: values alternate
        assert g[2**k] == k % 2
    assert g[3] == g[5] == 0


# ---------------------------------------------------------------------------
# input errors


@pytest.mark.parametrize(("S", "D", "match"), [
    ([0], [2], "S must contain integers ≥ 1"),
    ([1], [1], "D must contain integers ≥ 2"),
    ([1], [0], "D must contain"),
    ([], [], "both empty"),
    ([1.5], [2], "integers"),
    ([True], [2], "integers"),
    ("1", [2], "collection"),
    ([1], None, "D is missing"),
])
def test_bad_instances(S, D, match):
    with pytest.raises(InputError, match=match):
        imark_sequence(S, D, upto=3)
    with pytest.raises(ValueError):  # InputError is a ValueError
        imark_grundy(S, D, 3)


@pytest.mark.parametrize("n", [-1, 2.0, True, "7"])
def test_bad_positions(n):
    with pytest.raises(InputError, match="natural number"):
        imark_grundy([1], [2, 3], n)


def test_bad_c_and_huge_guess_space():
    with pytest.raises(InputError, match="c must be"):
        imark_grundy([1], [2, 3], 10**6, c=0)
    with pytest.raises(InputError, match="guess vectors"):
        imark_grundy([20], [2, 3], 10**6)  # 4^20 guesses
    assert len(imark_sequence([20], [2, 3], upto=100)) == 101  # the naive table still works


def test_duplicates_merge():
    assert IMark.of([1, 1], [3, 2, 3]) == IMark(S=(1,), D=(2, 3))


# ---------------------------------------------------------------------------
# the convergence technique agrees with the naive table


@pytest.mark.parametrize(("S", "D"), CONVERGING)
def test_every_n_up_to_1e5_dense(S, D):
    # one call proves every n ≤ 10^5 (the union of the sets M(n) is all of [0, 10^5]); the
    # reference engine processes the union at once
    imark_cache_clear()
    g = table(S, D)
    values = imark_values(S, D, ns=range(N + 1), engine="reference")
    assert bytes(v.grundy for v in values) == g[:N + 1]
    assert all(v.c >= 1 for v in values)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("S", "D"), CONVERGING)
def test_spec_literal_on_strided_and_small_n(S, D, engine):
    # reuse=False: SPEC §6 literally, every interval from all guesses
    g = table(S, D)
    step = 1 if engine == "reference" else 7
    ns = list(range(0, 3001, step)) + list(range(3001, N + 1, 613)) + [N]
    values = imark_values(S, D, ns=ns, reuse=False, engine=engine)
    assert [v.grundy for v in values] == [g[n] for n in ns]
    # the reported c really proves the value on its own
    for v in values[::97]:
        assert imark_value(S, D, n=v.n, c=v.c, reuse=False, engine=engine).grundy == v.grundy


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONVERGING), st.integers(0, N), st.booleans(),
       st.sampled_from(list(ENGINES)))
def test_single_queries_cold(instance, n, reuse, engine):
    S, D = instance
    if reuse:
        imark_cache_clear()
    v = imark_value(S, D, n=n, reuse=reuse, engine=engine)
    assert v.grundy == table(S, D)[n]
    assert isinstance(v, IMarkValue) and (v.S, v.D, v.n) == (S, D, n)


@pytest.mark.parametrize(("S", "D"), [((1,), (2, 3)), ((1,), (2, 5)), ((2,), (2, 3))])
def test_survey_c_is_the_smallest_window(S, D):
    # the survey's c proves every n ≤ upto + 2c, and c − 1 fails at its worst start
    upto = 3000
    row = survey_instance(S, D, upto=upto)
    assert row.converges and row.c is not None and row.worst_start is not None
    c = row.c
    g = table(S, D)
    ns = range(upto + 2 * c + 1)
    assert [v.grundy for v in imark_values(S, D, ns=ns, c=c, reuse=False, engine="reference")
            ] == list(g[:len(ns)])
    layered = imark_values(S, D, ns=ns[::11], c=c, reuse=False, engine="layers")
    assert [v.grundy for v in layered] == list(g[:len(ns):11])
    m = row.worst_start + 2 * (c - 1)  # I_m starts at the worst start
    for engine in ENGINES:
        with pytest.raises(IMarkConvergenceError) as info:
            imark_value(S, D, n=m, c=c - 1, reuse=False, engine=engine)
        assert info.value.m == m and info.value.c == c - 1


def test_coalescence_steps_match_the_survey():
    steps = coalescence_steps([1], [2, 3], upto=2000)
    assert steps[0] is None and steps[1] is None
    worst = max(s for s in steps if s is not None)
    row = survey_instance([1], [2, 3], upto=2000)
    assert (row.c, row.worst_start) == (worst, steps.index(worst)) == (9, 61)
    assert row.starts == 1999


# ---------------------------------------------------------------------------
# no convergence: an error, never a value


def test_odd_positions_of_s2_d2_never_converge():
    # S = {2}, D = {2}: odd n only moves to n − 2, so a wrong guess is never corrected
    imark_cache_clear()
    with pytest.raises(ConvergenceError) as info:
        imark_grundy([2], [2], 10**6)
    e = info.value
    assert isinstance(e, IMarkConvergenceError)
    assert e.c == 512 and e.tried == (8, 16, 32, 64, 128, 256, 512) and e.n == 10**6
    assert f"m = {e.m}" in str(e) and "c = 512" in str(e)
    assert e.m in {10**6 // 2**k for k in range(20)}  # an element of M(10^6)
    with pytest.raises(IMarkConvergenceError, match="c = 8"):
        imark_grundy([2], [2], 10**6, c=8, reuse=False)
    row = survey_instance([2], [2], upto=500)
    assert not row.converges and row.failed_start == 3 and row.c is None


@pytest.mark.parametrize(("S", "D"), [((2,), (2,)), ((1, 3), (2, 3)), ((2, 3), (2, 3)),
                                      ((1, 2), (2,))])
@pytest.mark.parametrize("c", [3, 8, 32])
@pytest.mark.parametrize("engine", ENGINES)
def test_failing_instances_never_return_a_wrong_value(S, D, c, engine):
    g = imark_sequence(S, D, upto=25000)
    outcomes = [_attempt(S, D, n, c, engine) for n in range(0, 25001, 41)]
    proven = [(n, v) for n, v in outcomes if v is not None]
    assert all(v == g[n] for n, v in proven)
    assert len(proven) < len(outcomes)  # the instance really fails somewhere
    assert proven  # small n come from the naive table


def _attempt(S: tuple[int, ...], D: tuple[int, ...], n: int, c: int,
             engine: str = "layers") -> tuple[int, int | None]:
    try:
        return n, imark_value(S, D, n=n, c=c, reuse=False, engine=engine).grundy
    except ConvergenceError:
        return n, None


def test_reuse_proves_more_but_the_same_values():
    # with known neighbouring intervals the history is exact: even a failing instance
    # gets (true) values for every n of a dense sweep
    S, D = (1, 3), (2, 3)
    imark_cache_clear()
    g = imark_sequence(S, D, upto=20000)
    values = imark_values(S, D, ns=range(20001), engine="reference")
    assert bytes(v.grundy for v in values) == g


@pytest.mark.parametrize("engine", ENGINES)
def test_batch_reports_the_first_unprovable_n(engine):
    with pytest.raises(IMarkConvergenceError) as info:
        imark_values([2], [2], ns=[5, 10**6, 10**7], c=8, reuse=False, engine=engine)
    assert info.value.n == 10**6


# ---------------------------------------------------------------------------
# edge cases


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("reuse", [False, True])
def test_small_n_and_zero(reuse, engine):
    g = table((1,), (2, 3))
    assert imark_grundy([1], [2, 3], 0, reuse=reuse, engine=engine) == 0
    for n in range(0, 40):  # n < 2c: the naive part of SPEC §6
        assert imark_grundy([1], [2, 3], n, c=16, reuse=reuse, engine=engine) == g[n]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("S", "D"), CONVERGING)
def test_powers_of_the_divisors(S, D, engine):
    g = table(S, D)
    for d in (*D, D[0] * D[-1]):
        k = 0
        while d**k <= N:
            assert imark_grundy(S, D, d**k, reuse=False, engine=engine) == g[d**k]
            assert imark_grundy(S, D, d**k - 1, reuse=False, engine=engine) == g[d**k - 1]
            k += 1
        for k in (60, 150):  # huge powers: only consistency can be checked
            assert 0 <= imark_grundy(S, D, d**k, engine=engine) <= len(S) + len(D)


def _mex(values: set[int]) -> int:
    v = 0
    while v in values:
        v += 1
    return v


@pytest.mark.parametrize(("S", "D"), [((1,), (2, 3)), ((1, 2), (2, 3))])
@pytest.mark.parametrize("n", [10**18, 10**50 + 7, 2**200, 6**60])
def test_huge_n_satisfy_the_recurrence(S, D, n):
    # no table reaches 10^50; check 𝒢(n) = mex of the followers' values instead, every value
    # proven by the technique on its own, by both engines
    game = IMark.of(S, D)
    value = imark_grundy(S, D, n)
    followers = {imark_grundy(S, D, f) for f in game.followers(n)}
    assert value == _mex(followers)
    assert imark_grundy(S, D, n, reuse=False) == value
    assert imark_grundy(S, D, n, c=64, reuse=False) == value
    assert imark_grundy(S, D, n, c=64, reuse=False, engine="reference") == value


@pytest.mark.parametrize("engine", ENGINES)
def test_very_large_n_is_polylog(engine):
    v = imark_value([1], [2, 3], n=10**100, engine=engine)
    assert 0 <= v.grundy <= 3 and v.c in (8, 16, 32)


def test_reported_c_and_to_json():
    imark_cache_clear()
    v = imark_value([1], [2, 3], n=10**6)
    assert v.to_json() == {"S": [1], "D": [2, 3], "n": 10**6, "grundy": 0, "c": v.c}
    assert v.grundy == imark_naive([1], [2, 3], n=10**6)


def test_pure_division_game_converges_and_pure_subtraction_does_not():
    g = imark_sequence([], [2, 3], upto=20000)
    for engine in ENGINES:
        assert [imark_grundy([], [2, 3], n, reuse=False, engine=engine)
                for n in range(0, 20001, 37)] == list(g[::37])
        assert imark_grundy([], [2, 3], 2**300, engine=engine) == 300 % 2
        with pytest.raises(ConvergenceError):
            imark_grundy([1], [], 10**6, reuse=False, engine=engine)


def test_the_lookup_never_reads_an_unknown_value():
    # a missing J_{⌊m/d⌋} is an internal error, never a guess
    r = _rules(IMark.of([1], [2, 3]))
    store = _Store(r)
    n = 10**9
    values, failures = store.run([n], 16, reuse=False, abort=False)
    assert n in values and not failures
    del store.segs[n // 2]
    del store.segs[n]
    with pytest.raises(SdgBug, match="outside the known interval"):
        store._interval(n, 16, False)


def test_naive_base_and_cache_do_not_change_values():
    imark_cache_clear()
    g = table((1,), (2, 3))
    a = imark_values([1], [2, 3], ns=[NAIVE_BASE - 1, NAIVE_BASE, NAIVE_BASE + 1, 77777])
    b = imark_values([1], [2, 3], ns=[77777, NAIVE_BASE + 1])
    assert [v.grundy for v in a] == [g[v.n] for v in a]
    assert [v.grundy for v in b] == [g[77777], g[NAIVE_BASE + 1]]


# ---------------------------------------------------------------------------
# the survey


def test_survey_instances():
    inst = survey_instances(3, 6)
    assert len(inst) == 7 * (5 + 10)  # S ⊆ {1,2,3}, D ⊆ {2..6} with |D| ≤ 2
    assert inst[0] == IMark(S=(1,), D=(2,))
    assert IMark(S=(1, 3), D=(2, 3)) in inst
    assert len(survey_instances(2, 4, max_d_size=3)) == 3 * 7
    with pytest.raises(InputError):
        survey_instances(0, 6)


def test_survey_parallel_equals_serial():
    inst = survey_instances(2, 4)
    seen = []
    serial = survey(inst, upto=400, jobs=1, on_result=seen.append)
    parallel = survey(inst, upto=400, jobs=2)
    strip = [(r.S, r.D, r.c, r.worst_start, r.failed_start, r.starts) for r in serial]
    assert strip == [(r.S, r.D, r.c, r.worst_start, r.failed_start, r.starts) for r in parallel]
    assert len(seen) == len(inst)
    by = {(r.S, r.D): r for r in serial}
    assert by[(1,), (2, 3)].c == 9
    assert not by[(2,), (2,)].converges
    assert by[(1, 2), (2,)].failed_start == 3
    assert by[(1,), (2,)].to_json()["converges"] is True


# ---------------------------------------------------------------------------
# adversarial: small windows, failing instances, every call order (the memo is shared)

#: instances whose intervals fail often (literature §B) next to converging ones; the last
#: has |S| + |D| = 8 (masks beyond a byte: the generic path)
ADVERSARIAL = [((2,), (2,)), ((1, 3), (2, 3)), ((2, 3), (2, 3)), ((1, 4), (2, 3)),
               ((1, 2), (4, 5)), ((1,), (2, 3)), ((2,), (2, 3)), ((), (2, 3)), ((1,), ()),
               ((2, 5), (3,)), ((1, 2, 3), (2, 3, 5, 7, 11))]
ADV_N = 30000


def _closure_m(n: int, D: tuple[int, ...]) -> set[int]:
    """M(n) = {⌊n / ∏ dᵢ^aᵢ⌋}."""
    out, stack = {n}, [n]
    while stack:
        m = stack.pop()
        for d in D:
            if m // d not in out:
                out.add(m // d)
                stack.append(m // d)
    return out


def _assert_memo_is_true() -> None:
    """Every interval the reuse memo holds is the true 𝒢 (what later runs trust as history)."""
    for game, store in reference_engine._STORES.items():
        g = table(game.S, game.D)
        assert bytes(store.base) == g[:len(store.base)]
        for m, (start, values) in store.segs.items():
            assert start + len(values) == m + 1
            if m < len(g):
                assert bytes(values) == g[start:m + 1], (game, m, start)


_ns = st.one_of(
    st.lists(st.integers(0, ADV_N), min_size=1, max_size=6),
    st.builds(lambda a, k: list(range(a, a + k)), st.integers(0, ADV_N - 300), st.integers(1, 300)),
    st.builds(lambda hi, step: list(range(hi, -1, -step)), st.integers(0, ADV_N),
              st.integers(500, 5000)),
)
_op = st.one_of(
    st.just("clear"),
    st.tuples(st.sampled_from(ADVERSARIAL), _ns, st.sampled_from([1, 2, 3, 4, 8, None]),
              st.booleans(), st.sampled_from(list(ENGINES))),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_op, min_size=1, max_size=8), st.sampled_from([0, 3, 100, NAIVE_BASE]))
def test_adversarial_orders_return_only_true_values(ops, naive_base):
    # NAIVE_BASE lowered so that the small windows really run intervals (and fail often)
    with mock.patch.object(imark_naive_module, "NAIVE_BASE", naive_base):
        imark_cache_clear()
        for op in ops:
            if op == "clear":
                imark_cache_clear()
                continue
            (S, D), ns, c, reuse, engine = op
            g = table(S, D)
            try:
                values = imark_values(S, D, ns=ns, c=c, max_c=16, reuse=reuse, engine=engine)
            except IMarkConvergenceError as e:
                assert e.n in ns and e.m in _closure_m(e.n, D) and e.m > 2 * e.c
            else:
                assert [(v.n, v.grundy) for v in values] == [(n, g[n]) for n in ns]
            _assert_memo_is_true()


@pytest.mark.parametrize(("S", "D"), ADVERSARIAL[:6])
@pytest.mark.parametrize("c", [2, 3, 4, 8])
def test_adversarial_single_queries_warm_then_cold(S, D, c):
    # warm the memo from a large n, then ask small and interleaved n one at a time; each
    # answer is the naive value or an error
    g = table(S, D)
    imark_cache_clear()
    ns = [ADV_N, *range(ADV_N - 1, 0, -997), *range(5000, 5400, 13)]
    other = table((1,), (2, 3))
    proven = 0
    for reuse in (True, False):
        for n in ns:
            for (S1, D1), g1 in (((S, D), g), (((1,), (2, 3)), other)):  # interleaved
                try:
                    v = imark_value(S1, D1, n=n, c=c, reuse=reuse, engine="reference")
                except ConvergenceError:
                    continue
                assert v.grundy == g1[n], (S1, D1, n, reuse)
                proven += 1
    assert proven
    _assert_memo_is_true()


@settings(max_examples=25, deadline=None)
@given(st.integers(10**12, 10**40), st.lists(st.integers(-40, 40), min_size=1, max_size=5),
       st.sampled_from([3, 4, 8]))
def test_huge_n_from_a_warm_memo_satisfy_the_recurrence(n, offsets, c):
    # far beyond any table: values read from neighbouring memoized intervals must still
    # satisfy 𝒢(x) = mex 𝒢(followers), the followers proven cold and literally
    S, D = (1,), (2, 3)
    game = IMark.of(S, D)
    imark_cache_clear()
    for x in (n, *(n + k for k in offsets)):
        try:
            value = imark_grundy(S, D, x, c=c, engine="reference")
        except ConvergenceError:
            continue
        assert value == _mex({imark_grundy(S, D, f, c=32, reuse=False)
                              for f in game.followers(x)})


def test_directly_built_games_are_validated():
    # IMark(...) validates once, in __post_init__; a negative divisor used to give a silent
    # sequence
    with pytest.raises(InputError, match="D must contain"):
        IMark(S=(1,), D=(-2,))
    with pytest.raises(InputError, match="S must contain"):
        IMark(S=(0,), D=(2,))
    with pytest.raises(TypeError):  # keyword-only
        IMark((1,), (2,))  # type: ignore[misc]
    assert imark_sequence(IMark(S=(2, 1), D=(3, 2)), upto=50) == imark_sequence([1, 2], [2, 3],
                                                                            upto=50)


# ---------------------------------------------------------------------------
# the layered engine against the naive table and the reference engine

#: instances that exercise every branch of the layered engine: masks beyond a byte
#: (V > 8), a divisor past the tabulated patterns (> 1024), a smallest divisor that is
#: not a power of two, a history of two, no subtraction, one divisor (a single column)
LAYERED = [((1,), (2, 3)), ((1,), (2, 3, 5, 7, 11, 13, 17)), ((1,), (2, 1500)), ((1,), (3, 4)),
           ((1, 2), (2, 3)), ((), (2, 3)), ((1,), (5,)), ((2,), (2, 3)), ((1,), (3, 5, 7))]


@pytest.mark.parametrize(("S", "D"), LAYERED)
def test_layers_match_the_naive_table(S, D):
    # SPEC §6 literally (reuse=False: a table only up to 2c + max S), so nearly every n runs
    # many intervals, and each value must be the naive one or an error
    upto = 60000
    g = imark_sequence(S, D, upto=upto)
    ns = sorted(n for n in {*range(0, 200), *range(200, upto + 1, 331), upto, *(d**3 for d in D)}
                if n <= upto)
    proven = 0
    for n in ns:
        for c in (4, 16):
            try:
                v = imark_value(S, D, n=n, c=c, reuse=False)
            except IMarkConvergenceError as e:
                assert e.m in _closure_m(n, D)
                continue
            assert v.grundy == g[n], (S, D, n, c)
            proven += 1
    assert proven >= len(ns) // 2  # not vacuous: many are proven


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([i for i in LAYERED if len(i[1]) <= 3]), st.integers(10**15, 10**30),
       st.sampled_from([4, 8, 16]))
def test_layers_and_reference_prove_the_same_values(instance, n, c):
    # SPEC §6 literally, the two engines accept exactly the same intervals (all guesses from
    # m − 2c, agreement on all of J_m), so they prove the same n with the same value
    S, D = instance
    layers, reference_ = (_attempt(S, D, n, c, engine)[1] for engine in ENGINES)
    assert layers == reference_


def test_layers_at_10_to_the_1000_satisfy_the_recurrence():
    game = IMark(S=(1,), D=(2, 3))
    n = 10**1000 + 1  # odd, not a multiple of 3: its only follower is n − 1
    assert game.followers(n) == [n - 1]
    assert imark_grundy(game, None, n) == _mex({imark_grundy(game, None, n - 1)})


def test_wide_divisors_fall_back_to_the_reference_engine():
    # a divisor ≥ 2^20 below n is outside the layered engine's int64 arithmetic
    from sdg_automata.games.imark.layers import supports

    S, D = (1,), (2, 2**21 + 1)
    game = IMark(S=S, D=D)
    assert not supports(game, 2**22) and supports(game, 2**20)
    g = imark_sequence(S, D, upto=2**22 + 10)
    for n in (2**21 + 1, 2 * (2**21 + 1), 2**22 + 7):
        assert imark_grundy(S, D, n, c=16, reuse=False) == g[n]


def test_the_grid_guard_refuses_before_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should refuse before proving any interval (no time bound: a count, issue 34 §7)."""
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.games.imark import layers

    def no_work(*_: object) -> None:
        raise AssertionError("an interval was proven before the guard refused")

    monkeypatch.setattr(layers, "_prove", no_work)
    with pytest.raises(BudgetExceeded, match="columns of intervals") as info:
        imark_grundy([1], [2, 3, 5, 7], 10**1000)
    assert info.value.explored == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_budgets_stop_the_technique(engine):
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.runtime.budget import Budget

    with pytest.raises(BudgetExceeded, match="intervals"):
        imark_value([1], [2, 3], n=10**300, engine=engine, budget=Budget(max_states=100))
    with pytest.raises(BudgetExceeded, match="0.05 s"):
        imark_value([1], [2, 3], n=10**600, engine=engine, budget=Budget(max_seconds=0.05))


def test_prove_keeps_going_after_a_failure():
    from sdg_automata.games.imark import imark_prove

    g = imark_sequence([2], [2], upto=100)
    out = list(imark_prove([2], [2], ns=[10**6, 10, 10**6, 77], max_c=16))
    assert isinstance(out[0], IMarkConvergenceError) and out[0].n == 10**6
    assert isinstance(out[2], IMarkConvergenceError)
    assert [(v.n, v.grundy) for v in (out[1], out[3])] == [(10, g[10]), (77, g[77])]
    assert out[0].to_json() == {"S": [2], "D": [2], "n": 10**6, "m": out[0].m,
                                "tried": [8, 16]}  # where it failed; never a value


# ---------------------------------------------------------------------------
# the naive table streams in bounded memory


@pytest.mark.parametrize(("S", "D"), [((1,), (2, 3)), ((1, 2, 3, 4, 5), (2, 3, 5)), ((3,), ()),
                                      ((20,), (2, 3)), ((10**20, 1), (2, 10**30))])
@pytest.mark.parametrize("chunk", [1, 7, 1000, 1 << 16])
def test_streamed_chunks_equal_the_definition(S, D, chunk):
    upto = 5000
    pieces = list(imark_sequence_chunks(S, D, upto=upto, chunk=chunk))
    assert all(1 <= len(p) <= chunk for p in pieces)
    assert list(b"".join(pieces)) == reference(tuple(s for s in S if s <= upto),
                                               tuple(d for d in D if d <= upto), upto)


def test_table_bytes_and_refusal():
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.games.imark import table_bytes

    assert table_bytes(IMark(S=(1,), D=(2, 3)), 10**10) == 10**10 // 2 + 1 + 1
    assert table_bytes(IMark(S=(1, 2), D=()), 10**12) == 2  # D = ∅: only the last max S
    assert table_bytes(IMark(S=(10**20,), D=(2,)), 100) == 51  # S beyond upto: dropped
    with pytest.raises(BudgetExceeded, match="more than the limit"):
        imark_sequence_chunks([1], [2], upto=10**10)
    with pytest.raises(BudgetExceeded, match="more than the limit of 1,000"):
        imark_sequence_chunks([1], [2], upto=10**4, max_bytes=1000)


def test_huge_subtractions_cost_nothing():
    # max S = 10^20 used to hang while building a table of V^(max S) states
    assert imark_sequence([10**20], [2], upto=8) == imark_sequence([], [2], upto=8)
    with pytest.raises(InputError, match="guess vectors"):
        imark_grundy([10**20], [2], 10)


def test_survey_takes_any_executor():
    from concurrent.futures import ThreadPoolExecutor

    inst = survey_instances(2, 3)
    serial = survey(inst, upto=300, jobs=1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = survey(inst, upto=300, executor=pool)
    assert [(r.S, r.D, r.c, r.failed_start) for r in serial] == \
        [(r.S, r.D, r.c, r.failed_start) for r in threaded]
    with pytest.raises(InputError, match="instances"):
        survey_instances(40, 6)


def test_the_layered_engines_signal_never_reaches_users():
    """Should keep the engine's internal _NoConvergence inside the convergence driver
    (issue 26 §6): private, no SdgError, and every failure the user sees is
    IMarkConvergenceError, even when the layered engine raised the signal."""
    from sdg_automata.errors import SdgError
    from sdg_automata.games.imark import layers

    assert not hasattr(layers, "NoConvergence") and "_NoConvergence" not in layers.__all__
    assert not issubclass(layers._NoConvergence, SdgError)
    signals = []
    real = layers.layered_value

    def spied(*args, **kwargs):
        try:
            return real(*args, **kwargs)
        except layers._NoConvergence as e:
            signals.append(e.m)
            raise

    imark_cache_clear()
    with mock.patch.object(layers, "layered_value", spied):
        with pytest.raises(IMarkConvergenceError) as info:
            imark_grundy([2], [2], 10**6, engine="layers")
    assert signals and info.value.m == signals[-1]  # the driver caught each one
    assert not isinstance(info.value, layers._NoConvergence)


def test_a_huge_window_checks_the_deadline_inside_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layered engine walks 2c + 1 positions per window: with c = 5·10⁶ that is seconds
    of steps, which once ran past --max-seconds whenever the naive table was already at hand
    (a second value in the same process: 3.1 s for a budget of 0.5 s).  A table of zeros is
    enough here: what is tested is that the deadline holds, not the values.

    As a count, not a time (a CPU bound failed under load, issue 34 §7): with a clock that
    moves only when the meter reads it (tests/workclock.py), the budget runs out after
    about 30 checks, so it is seen inside the first window, after at most 30 strides of
    MAX_STRIDE positions, not at the window's end."""
    from workclock import work_clock

    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.games.imark.game import IMark
    from sdg_automata.games.imark.layers import layered_value
    from sdg_automata.runtime.budget import MAX_STRIDE, Budget, Meter

    steps: list[int] = []
    check = Meter.check

    def counted(self: Meter, count: int, *, step: int | None = None) -> int:
        steps.append(count if step is None else step)
        return check(self, count, step=step)

    monkeypatch.setattr(Meter, "check", counted)
    clock = work_clock(monkeypatch, step=0.01)
    game, c = IMark(S=[1], D=[2, 3]), 5_000_000
    table = bytes(2 * c + game.history + 1)
    meter = Budget(max_seconds=0.3).start("layers", unit="intervals")
    with pytest.raises(BudgetExceeded, match="0.3 s"):
        layered_value(game, 10**18, c, table, meter)
    assert clock.readings <= 40 and len(steps) <= 40
    assert max(steps) <= 40 * MAX_STRIDE < 2 * c + 1  # stopped early in the first window
