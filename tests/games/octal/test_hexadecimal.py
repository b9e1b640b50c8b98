"""Hexadecimal (take-and-break) codes: a digit 8–F may leave three heaps (issue 37 §3).

The oracle is the definition written again here: every option of a heap enumerated,
the three-heap splits as a ≤ b ≤ c, a mex over them — sharing nothing with the
library's table of two-heap XORs.  Golden values: CGSuite's test suite
(``lib/core/src/test/scala/org/cgsuite/lang/GameHeapTest.scala``, the game
``TakeAndBreak("0.3F")``).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import EngineNotice, InputError, InvalidCertificate
from sdg_automata.games.octal import OctalGame, write_certificate
from sdg_automata.games.octal import valuefile as octal_file
from sdg_automata.games.octal.period import theorem_values
from sdg_automata.games.octal.verify import verify

#: CGSuite, GameHeapTest: [TakeAndBreak("0.3F")(n).NimValue for n from 1 to 20]
CGSUITE_03F_NIM_VALUES = [1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10, 11]


def definition_values(digits: list[int], n: int) -> list[int]:
    """𝒢(0..n−1) from the rules: every option enumerated, then the mex."""
    g: list[int] = []
    for h in range(n):
        options = set()
        for k, d in enumerate(digits, 1):
            rest = h - k
            if rest < 0:
                continue
            if d & 1 and rest == 0:
                options.add(0)
            if d & 2 and rest >= 1:
                options.add(g[rest])
            if d & 4:
                options |= {g[a] ^ g[rest - a] for a in range(1, rest)}
            if d & 8:
                options |= {g[a] ^ g[b] ^ g[rest - a - b]
                            for a in range(1, rest) for b in range(1, rest - a)}
        v = 0
        while v in options:
            v += 1
        g.append(v)
    return g


def test_the_cgsuite_values_of_0_3f() -> None:
    game = OctalGame.parse("0.3f")
    assert game.code == "0.3F" and game.heaps == 3 and game.hexadecimal
    assert game.values(21).tolist()[1:] == CGSUITE_03F_NIM_VALUES
    assert definition_values([3, 15], 21)[1:] == CGSUITE_03F_NIM_VALUES


hex_codes = st.lists(st.integers(0, 15), min_size=1, max_size=3).filter(lambda d: d[-1] != 0)


@settings(max_examples=60)
@given(hex_codes)
def test_values_are_the_definition(digits: list[int]) -> None:
    game = OctalGame(digits=tuple(digits))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)
        assert game.values(90).tolist() == definition_values(digits, 90)
    assert game.values(60, method="naive").tolist() == definition_values(digits, 60)


def test_the_sparse_method_is_refused_for_three_heaps() -> None:
    with pytest.raises(InputError, match="does not apply to 0.3F"):
        OctalGame.parse("0.3F").values(10, method="sparse")


def test_the_compiled_engine_falls_back_with_a_notice() -> None:
    game = OctalGame.parse("0.48")
    with pytest.warns(EngineNotice, match="run in Python: the compiled kernels do not split"):
        values = game.values(50, engine="compiled")
    assert values.tolist() == definition_values([4, 8], 50)


def test_the_grammar_is_the_games_sdg() -> None:
    game = OctalGame.parse("0.BF")  # every heap has a move: an SDG
    g = game.grammar()
    assert ("A", "a", "a", "A", "A") in {r.body for r in g.rules}  # d₂ = F: three heaps
    values = game.values(12).tolist()
    assert [grundy(g, "A", "a" * n) for n in range(1, 12)] == values[1:]


@pytest.mark.parametrize(("code", "pre", "per"), [("0.B", 0, 2), ("0.F3", 0, 4), ("0.B7", 1, 4),
                                                  ("0.F1", 3, 2)])
def test_periods_proven_and_certified(tmp_path: Path, code: str, pre: int, per: int) -> None:
    game = OctalGame.parse(code)
    p = game.period(max_n=400)
    assert (p.preperiod, p.period, p.certified) == (pre, per, True)
    # the proof's bound for three heaps (docs/octal.md §2), and the values far beyond it
    assert p.checked_to >= theorem_values(pre, per, game.t, 3) == 3 * pre + 3 * per + game.t + 3
    far = definition_values(list(game.digits), 200)
    assert p.first(200) == far
    cert = tmp_path / "c.cert"
    header = write_certificate(p, str(cert))
    assert header["theorem"] == "3*preperiod + 3*period + t + 3 values"
    proof = verify(str(cert))
    assert (proof.code, proof.preperiod, proof.period, proof.mode) == (code, pre, per, "direct")


def _rewrite(path: Path, header_changes: dict[str, object], values: np.ndarray) -> None:
    file = octal_file.read(str(path), schema=octal_file.CERTIFICATE)
    octal_file.write(str(path), {**file.header, **header_changes}, values)


def test_a_wrong_hexadecimal_certificate_is_refused(tmp_path: Path) -> None:
    p = OctalGame.parse("0.B7").period(max_n=400)
    cert = tmp_path / "c.cert"
    write_certificate(p, str(cert))
    good = octal_file.read(str(cert), schema=octal_file.CERTIFICATE).values
    bad = good.copy()
    bad[5] ^= 1
    _rewrite(cert, {}, bad)
    with pytest.raises(InvalidCertificate, match=r"𝒢\(5\)"):
        verify(str(cert))
    _rewrite(cert, {}, good[:-1])  # one value short of the three-heap bound
    with pytest.raises(InvalidCertificate, match=r"3n₀ \+ 3p \+ t \+ 3"):
        verify(str(cert))
    _rewrite(cert, {"sparse": {"mask": 1, "positional": False, "rare_parity": 0, "rare": 0,
                               "rare_heaps": []}}, good)
    with pytest.raises(InvalidCertificate, match="sparse-space lemma does not hold"):
        verify(str(cert))
    assert verify(str(cert), ignore_mask=True).period == 4


def test_the_command_line_takes_hexadecimal_codes(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    from clirun import run

    cert = tmp_path / "b.cert"
    code, out, _ = run(["octal", "0.b", "--json", "--certificate", cert], capsys)
    data = json.loads(out)
    assert code == 0 and (data["code"], data["preperiod"], data["period"]) == ("0.B", 0, 2)
    code, out, _ = run(["octal", "verify", cert], capsys)
    assert code == 0 and "0.B has least preperiod 0 and least period 2" in out
    code, out, err = run(["octal", "0.3F", "--upto", "60"], capsys)
    assert code == 3 and out == "" and "no period proven" in err  # arithmetic-periodic
    code, out, _ = run(["octal", "0.BF", "--grammar"], capsys)
    assert code == 0 and "| A a a A A" in out  # d₂ = F: A -> A aa A A
