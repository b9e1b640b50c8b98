"""Octal games: values against OEIS and the definition, periods against published tables.

Truth, each independent of the code under test:

* OEIS sequences typed in by hand (A002186 Kayles, A002187 Dawson's chess),
  cross-checked by :func:`naive_values`, the definition in plain Python.
* Published periods: Winning Ways ch. 4 (Kayles, Dawson's chess), Gangolli &
  Plambeck 1989 and the table of solved games kept by tczajka/octal-games
  (src/SolvedGames.md), which lists each game's prefix, period, rare mask and
  number of rare values.
* The SDG of the unary grammar, evaluated by the CFG substring DP of
  :mod:`sdg_automata.derivation.semantics` (SPEC §2).
"""

from __future__ import annotations

import functools
import json
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from sdg_automata.derivation.semantics import SubstringTable
from sdg_automata.errors import BudgetExceeded, InputError, SdgBug
from sdg_automata.games.octal import OctalGame, OctalPeriod, naive_values
from sdg_automata.games.octal.space import detect_space
from sdg_automata.runtime.budget import Budget
from sdg_automata.sweeps.octal import SURVEY_COLUMNS, SurveyRow, codes, survey, survey_sweep

#: OEIS A002186, Kayles (0.77), n = 0, 1, 2, …
A002186 = [
    0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4,
    7, 2, 1, 8, 6, 7, 4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 4, 2, 7,
    4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4,
    7, 2, 1, 8, 2, 7,
]

#: OEIS A002187, Dawson's chess (0.137), n = 0, 1, 2, …; Dawson's Kayles (0.07) is
#: the same sequence shifted by one heap: 𝒢₀.₀₇(n + 1) = A002187(n)
A002187 = [
    0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4,
    5, 2, 7, 4, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 2, 3, 3, 0, 1, 1, 3, 0, 2,
    1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 9, 3, 3, 0, 1,
    1, 3, 0, 2, 1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2,
]

#: (least preperiod n₀, period p) with 𝒢(n + p) = 𝒢(n) for n ≥ n₀.  Kayles: last
#: exception 𝒢(70) = 6 (Winning Ways ch. 4).  Dawson's chess 0.137: exceptions at
#: n = 0, 14, 16, 17, 31, 34, 51 (Winning Ways), so n₀ = 52; 0.07 is shifted by
#: one, n₀ = 53.  The rest: tczajka/octal-games src/SolvedGames.md ("prefix",
#: "period"), the same figures as Gangolli–Plambeck 1989 for 0.127.
PUBLISHED = {
    "0.77": (71, 12),
    "0.137": (52, 34),
    "0.07": (53, 34),
    "0.45": (498, 20),
    "0.156": (3479, 349),
    "0.356": (7315, 142),
    "0.644": (3256, 442),
    "0.165": (5181, 1550),
    "0.127": (46578, 4),
}

#: the rare mask and number of rare heaps of the same table (0.127: "1+pos")
PUBLISHED_SPARSE = {
    "0.45": (0xF, False, 11),
    "0.156": (0x1B, False, 15),
    "0.356": (0x1B, False, 7),
    "0.644": (0x7E, False, 31),
    "0.127": (0x1, True, 693),
}

TWO_DIGIT = [c for c in codes(2) if len(c) == 4]
THREE_DIGIT_SAMPLE = random.Random(14).sample([c for c in codes(3) if len(c) == 5], 12)


@functools.cache
def certified(code: str) -> OctalPeriod:
    """The period of ``code``, computed once for the module's tests."""
    return OctalGame.parse(code).period()


# -- the code ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, code", [
    ("0.77", "0.77"), (".07", "0.07"), ("0.1370", "0.137"), (" 0.4 ", "0.4"), (".007", "0.007"),
])
def test_parse_canonical(text: str, code: str) -> None:
    """Should read both spellings and drop trailing zeros."""
    game = OctalGame.parse(text)
    assert game.code == code == str(game)
    assert game.t == len(code) - 2


@pytest.mark.parametrize("text", ["", "0.", "0.00", "0.G", "1.07", "4.07", "0,77", "kayles",
                                  "0.7g"])
def test_parse_refuses(text: str) -> None:
    """Should refuse anything but 0.d₁d₂… (hexadecimal digits) with a digit 1–F somewhere."""
    with pytest.raises(InputError):
        OctalGame.parse(text)


@pytest.mark.parametrize("digits", [(), (0,), (1, 0), (16,), (-1,), (True,)])
def test_constructor_validates(digits: tuple[int, ...]) -> None:
    """Should validate the digits once, in the constructor."""
    with pytest.raises(InputError):
        OctalGame(digits=digits)


# -- values -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["naive", "full", "sparse", "auto"])
def test_kayles_is_a002186(method: str) -> None:
    """Should give OEIS A002186 for Kayles (0.77) by every method."""
    assert OctalGame.parse("0.77").values(len(A002186), method=method).tolist() == A002186  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["naive", "full", "sparse", "auto"])
def test_dawson_is_a002187(method: str) -> None:
    """Should give OEIS A002187 for 0.137 and the same shifted by one for 0.07."""
    chess = OctalGame.parse("0.137").values(len(A002187), method=method)  # type: ignore[arg-type]
    kayles = OctalGame.parse("0.07").values(len(A002187) + 1, method=method)  # type: ignore[arg-type]
    assert chess.tolist() == A002187
    assert kayles.tolist() == [0] + A002187


def test_naive_small_cases_by_hand() -> None:
    """Should follow the definition on cases worked by hand."""
    # 0.3: take one, leaving 0 or 1 heap: nim on heaps of size 1 → n mod 2
    assert naive_values(OctalGame.parse("0.3"), 6) == [0, 1, 0, 1, 0, 1]
    # 0.4: take one, leaving exactly two non-empty heaps: 𝒢(3) = 𝒢(1) ⊕ 𝒢(1) option → mex{0} = 1
    assert naive_values(OctalGame.parse("0.4"), 4) == [0, 0, 0, 1]
    # 0.03: take two, leaving 0 or 1 heap: ⌊n/2⌋ mod 2
    assert naive_values(OctalGame.parse("0.03"), 8) == [0, 0, 1, 1, 0, 0, 1, 1]


@pytest.mark.parametrize("code", TWO_DIGIT + THREE_DIGIT_SAMPLE)
def test_sparse_and_full_agree_with_naive(code: str) -> None:
    """Should agree with the definition up to n = 2000 (every 2-digit code, 3-digit sample)."""
    game = OctalGame.parse(code)
    truth = naive_values(game, 2000)
    assert game.values(2000).tolist() == truth
    assert game.values(2000, method="sparse").tolist() == truth
    if game.splits:
        assert game.values(700, method="full").tolist() == truth[:700]


@pytest.mark.parametrize("code", ["0.6", "0.127", "0.16"])
def test_auto_switching_agrees_with_full(code: str) -> None:
    """Should give the full mex's values where "auto" moves between sparse and full (n > 2048)."""
    game = OctalGame.parse(code)
    assert game.values(6000).tolist() == game.values(6000, method="full").tolist()


ENGINE_CODES = list(codes(2)) + ["0.16", "0.56", "0.77"]


@pytest.mark.parametrize("code", ENGINE_CODES)
def test_compiled_equals_python_and_naive(code: str) -> None:
    """Should give the definition's values on both engines, by every method (every 1- and
    2-digit code, 0.16, 0.56, 0.77)."""
    game = OctalGame.parse(code)
    truth = naive_values(game, 600)
    for method in ("auto", "sparse", "full"):
        for engine in ("compiled", "python"):
            got = game.values(600, method=method, engine=engine)  # type: ignore[arg-type]
            assert got.tolist() == truth, (method, engine)


@pytest.mark.parametrize("code", ["0.16", "0.56", "0.127", "0.6", "0.354", "0.376"])
def test_compiled_equals_python_far_out(code: str) -> None:
    """Should give bit-identical values on both engines well past the mask detections
    (0.6 has no sparse space and widens past 255; auto moves between sparse and full;
    0.376 finds most rare-class options through the value index)."""
    game = OctalGame.parse(code)
    n = 20000
    assert np.array_equal(game.values(n, engine="compiled"), game.values(n, engine="python"))


@pytest.mark.parametrize("code", ["0.16", "0.56", "0.127", "0.45"])
def test_compiled_period_equals_python(code: str) -> None:
    """Should certify the same least preperiod and period, values and space on both engines."""
    game = OctalGame.parse(code)
    a = game.period(engine="compiled")
    b = certified(code) if code in PUBLISHED else game.period(engine="python")
    assert a == b and a.certified
    assert np.array_equal(a.values, b.values) and a.sparse == b.sparse


def test_auto_engine_keeps_small_runs_in_python() -> None:
    """Should not import numba for Kayles' 168 values under "auto"."""
    code = ("import sys; from sdg_automata.games.octal import OctalGame\n"
            "OctalGame.parse('0.77').period(); OctalGame.parse('0.45').period()\n"
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_values_arguments() -> None:
    """Should refuse a negative count and an unknown method."""
    game = OctalGame.parse("0.77")
    assert game.values(0).tolist() == []
    with pytest.raises(InputError):
        game.values(-1)
    with pytest.raises(InputError):
        game.values(5, method="fast")  # type: ignore[arg-type]


# -- the sparse space -------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(PUBLISHED_SPARSE))
def test_sparse_space_matches_published(code: str) -> None:
    """Should find the published rare mask and count the published rare heaps."""
    mask, positional, rare = PUBLISHED_SPARSE[code]
    result = certified(code)
    assert result.sparse is not None
    assert (result.sparse.mask, result.sparse.positional) == (mask, positional)
    # the rare heaps are counted over every value computed; the published count is the total
    assert result.sparse.rare == rare


def test_detect_space_no_split() -> None:
    """Should report no sparse space for a game without splits or with no values."""
    assert detect_space(np.array([0, 1, 0, 1], dtype=np.int32), ()) is None
    assert detect_space(np.zeros(0, dtype=np.int32), (1,)) is None


# -- periods ----------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(PUBLISHED))
def test_published_periods(code: str) -> None:
    """Should certify the published least preperiod and period."""
    result = certified(code)
    assert result.certified
    assert (result.preperiod, result.period) == PUBLISHED[code]


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.137", "0.45", "0.26", "0.51", "0.3"])
def test_period_is_proven_and_least(code: str) -> None:
    """Should only claim what the theorem proves, and be least on the values computed."""
    game = OctalGame.parse(code)
    result = game.period()
    if not result.certified:
        pytest.skip(f"{code} open up to {result.checked_to}")
    n0, p, n = result.preperiod, result.period, result.checked_to
    assert n0 is not None and p is not None
    g = naive_values(game, n)
    # the theorem's hypothesis holds on the values computed
    assert n >= 2 * max(n0, 1) + 2 * p + game.t
    assert all(g[i + p] == g[i] for i in range(n0, n - p))
    # least: n₀ − 1 is an exception, and no smaller shift holds from n₀ on
    if n0 > 0:
        assert g[n0 - 1 + p] != g[n0 - 1]
    for d in range(1, p):
        assert any(g[i + d] != g[i] for i in range(n0, n - d))
    # the period reproduces every value computed
    assert [result.value(i) for i in range(n)] == g


def test_no_proof_before_the_theorem_allows_it() -> None:
    """Should not certify 0.45 (n₀ = 498, p = 20, t = 2) with fewer than 2·498 + 40 + 2 values."""
    game = OctalGame.parse("0.45")
    assert not game.period(max_n=1037).certified
    proven = game.period(max_n=1038)
    assert proven.certified and proven.checked_to == 1038


def test_open_result_is_not_a_guess() -> None:
    """Should say "not proven up to N" for Officers (0.6, open) and carry no period."""
    result = OctalGame.parse("0.6").period(max_n=3000)
    assert not result.certified
    assert (result.preperiod, result.period, len(result.values)) == (None, None, 0)
    assert result.checked_to == 3000
    with pytest.raises(InputError):
        result.value(5)
    assert result.to_json()["certified"] is False


def test_period_json_and_validation() -> None:
    """Should serialize as the issue's JSON and refuse inconsistent results."""
    data = OctalGame.parse("0.07").period().to_json()
    assert list(data) == ["code", "preperiod", "period", "certified", "checked_to", "values",
                          "values_total"]
    assert data["values_total"] == 53 + 34
    assert data["code"] == "0.07" and data["period"] == 34 and data["certified"] is True
    assert data["values"] == [0] + A002187[:86]
    with pytest.raises(SdgBug):
        OctalPeriod(code="0.7", preperiod=0, period=None, certified=True, checked_to=4)
    with pytest.raises(SdgBug):
        OctalPeriod(code="0.7", preperiod=0, period=2, certified=True, checked_to=4, values=(0,))


def test_period_arguments_and_budget() -> None:
    """Should refuse bad arguments and stop at the time budget saying how far it got."""
    game = OctalGame.parse("0.16")
    with pytest.raises(InputError):
        game.period(max_n=0)
    with pytest.raises(InputError):
        game.period(method="naive")
    with pytest.raises(BudgetExceeded, match="values reached"):
        game.period(budget=Budget(max_seconds=0.05))


# -- the SDG encoding -------------------------------------------------------------------


@pytest.mark.parametrize("code", TWO_DIGIT + THREE_DIGIT_SAMPLE + ["0.77", "0.137"])
def test_sdg_criterion(code: str) -> None:
    """Should call a game an SDG exactly when every heap ≤ 40 is a word of the grammar."""
    game = OctalGame.parse(code)
    table = SubstringTable(game.grammar(check=False), "a" * 40)
    positions = all(table.is_position("A", 0, n) for n in range(1, 41))
    assert game.is_sdg() == positions


@pytest.mark.parametrize("code", [c for c in TWO_DIGIT + THREE_DIGIT_SAMPLE + ["0.77", "0.137"]
                                  if OctalGame.parse(c).is_sdg()])
def test_sdg_values_by_the_cfg_table(code: str) -> None:
    """Should give the octal values as SDG values of the grammar, n ≤ 60 (SPEC §2 CFG DP)."""
    game = OctalGame.parse(code)
    table = SubstringTable(game.grammar(), "a" * 60)
    assert [table.grundy("A", 0, n) for n in range(1, 61)] == naive_values(game, 61)[1:]


def test_kayles_grammar_and_refusal() -> None:
    """Should write Kayles as A → a | aA | AaA | aa | aaA | AaaA, and refuse 0.07."""
    rules = {" ".join(r.body) for r in OctalGame.parse("0.77").grammar().rules}
    assert rules == {"a", "a A", "A a A", "a a", "a a A", "A a a A"}
    with pytest.raises(InputError, match="heap of 1 has no move"):
        OctalGame.parse("0.07").grammar()


# -- survey -----------------------------------------------------------------------------


def test_codes() -> None:
    """Should list 7 one-digit, 56 two-digit and 448 three-digit codes."""
    assert list(codes(1)) == [f"0.{d}" for d in range(1, 8)]
    assert len(list(codes(2))) == 7 + 56
    assert len(list(codes(3))) == 7 + 56 + 448
    with pytest.raises(InputError):
        list(codes(0))


def test_survey_local_and_pooled() -> None:
    """Should give the same rows here, on threads and on processes (the sweep engine)."""
    def plain(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    here = survey(1, max_n=2000)
    assert [r["code"] for r in here] == list(codes(1))
    with ThreadPoolExecutor(2) as pool:
        assert plain(survey(1, max_n=2000, executor=pool)) == plain(here)
    with ProcessPoolExecutor(2) as pool:
        assert plain(survey(1, max_n=2000, executor=pool)) == plain(here)
    # every one-digit game is solved but Officers (0.6)
    assert [r["code"] for r in here if not r["certified"]] == ["0.6"]
    assert here[3]["preperiod"] == 54 and here[3]["period"] == 34  # 0.4
    assert set(here[0]) == set(SURVEY_COLUMNS) and here[0]["status"] == "ok"


def test_survey_budget_rows() -> None:
    """Should turn a code over its per-code budget into a "budget" row, not a failure."""
    rows = survey(1, max_n=50_000, budget=Budget(max_seconds=0.05))
    officers = rows[5]
    assert officers["code"] == "0.6" and officers["status"] == "budget"
    assert "budget" in officers["error"] and officers["period"] is None
    assert SurveyRow(code="0.6", status="budget").to_json()["certified"] is None
    with pytest.raises(InputError):
        survey_sweep(2, max_n=0)


def test_a_row_stopped_by_the_sweeps_deadline_while_being_built_says_how_far(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should count the values reached in a budget row even when the sweep's own deadline
    fires while the job builds the row its engine's earlier stop asked for (CI under load:
    the 5 % margin between the two deadlines was slept through, and the row came back with
    ``checked_to`` null)."""
    import time

    import sdg_automata.sweeps.octal as octal
    from sdg_automata.sweeps.runner import _run_batch

    built, slept = octal._open_row, []

    def slow(*args: object) -> object:
        if not slept:  # the first row, as the engine stopped: past the sweep's deadline
            slept.append(True)
            time.sleep(0.4)
        return built(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(octal, "_open_row", slow)
    batch = _run_batch(octal.survey_row, octal.survey_failed, [("0.6", 1 << 20, "python")],
                       Budget(max_seconds=0.3), "values")
    [row] = batch.rows
    assert slept and row["status"] == "budget"
    assert "(inside job)" in row["error"]  # the sweep's alarm, not the engine, made this row
    # how many depends on the load (897 in 0.3 s on a loaded CI machine): counted, not null
    assert isinstance(row["checked_to"], int) and row["checked_to"] > 0, row
    assert f"{row['checked_to']} values reached" in row["error"]


def test_survey_budget_rows_say_how_far() -> None:
    """Should say in every budget row how many values were reached, however early the
    per-code budget stops it (the engine's own budget fires before the sweep's deadline,
    and a row stopped by that deadline still counts what progress reported), and should
    keep numba whole when the deadline falls in its import or a kernel's first load (a
    fresh process: "duplicate registration" errors on every later code, before)."""
    script = ("import json; from sdg_automata.sweeps.octal import survey; "
              "from sdg_automata.runtime.budget import Budget; "
              "print(json.dumps(survey(2, max_n=1 << 20, budget=Budget(max_seconds=0.05), "
              "engine='compiled')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=300)
    rows = json.loads(done.stdout)
    assert [r for r in rows if r["status"] == "error"] == []
    stopped = [r for r in rows if r["status"] == "budget"]
    assert len(stopped) >= 10  # 0.6, 0.04, 0.06, 0.14, ...: not solved in 0.05 s
    assert all(isinstance(r["checked_to"], int) for r in stopped), stopped
    assert sum(r["checked_to"] > 1000 for r in stopped) >= 10  # not just the first loads
    here = survey(1, max_n=1 << 20, budget=Budget(max_seconds=0.05), engine="python")
    assert [(r["code"], r["status"]) for r in here if not r["certified"]] == [("0.6", "budget")]
    assert here[5]["checked_to"] > 0
