"""A checkpoint is data to verify, not to trust (issue 34 §1).

Truth: an honest checkpoint resumes to the straight run's answer (the certified
preperiod and period of [T] and the OEIS); every damaged or edited one is refused with
one ``error:`` line and exit 2 before any claim — a flipped bit anywhere in its header
(the seal), a header re-sealed with an out-of-range or lemma-breaking field, a value
above its heap's number of options, and values edited and re-sealed, which only the
independent checker can refute (re-deriving them from the rules).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from clirun import run

from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.games.octal import OctalGame
from sdg_automata.games.octal.valuefile import CHECKPOINT, MAGIC, read, write
from sdg_automata.runtime.budget import Budget

#: 0.156: least preperiod 3,479 and period 349 ([T], Kenyon 1967) from 7,659 values, with a
#: sparse space (mask 0x1b); its checkpoint at 3,000 values has one
CODE, PRE, PER = "0.156", 3479, 349


def _stopped_checkpoint(tmp_path: Path, code: str = CODE, states: int = 3000) -> Path:
    path = tmp_path / "run.ckpt"
    with pytest.raises(BudgetExceeded):
        OctalGame.parse(code).period(budget=Budget(max_states=states), checkpoint=str(path))
    return path


def _reseal(path: Path, *, values: np.ndarray | None = None, **fields: object) -> None:
    """Rewrite the checkpoint with some header fields or values changed, sealed anew (as
    anyone can: the seal detects damage, not intent)."""
    file = read(str(path), schema=CHECKPOINT)
    write(str(path), {**file.header, **fields},
          file.values if values is None else values)


def test_an_honest_checkpoint_resumes_to_the_straight_answer(tmp_path: Path) -> None:
    path = _stopped_checkpoint(tmp_path)
    resumed = OctalGame.parse(CODE).period(checkpoint=str(path))
    assert (resumed.preperiod, resumed.period, resumed.certified) == (PRE, PER, True)
    assert 0 < resumed.resumed < resumed.checked_to


def test_every_flipped_header_bit_is_refused(tmp_path: Path) -> None:
    """Should refuse a checkpoint with any one bit of its header line flipped (old: a
    flipped rare_parity or next_detect was taken, and wrong values computed from it)."""
    path = _stopped_checkpoint(tmp_path)
    raw = path.read_bytes()
    start, end = len(MAGIC), raw.index(b"\n", len(MAGIC))
    game = OctalGame.parse(CODE)
    accepted = []
    for i in range(start, end):
        for bit in (0, 1):
            damaged = bytearray(raw)
            damaged[i] ^= 1 << bit
            path.write_bytes(bytes(damaged))
            try:
                game.period(checkpoint=str(path), max_n=3100)
            except InputError:
                continue
            accepted.append((i - start, bit))
    assert accepted == []


def test_a_flipped_bit_is_one_error_line_and_the_file_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _stopped_checkpoint(tmp_path)
    damaged = path.read_bytes().replace(b'"rare_parity": 0', b'"rare_parity": 2')
    path.write_bytes(damaged)
    code, out, err = run(["octal", CODE, "--checkpoint", path, "--json"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("error: the checkpoint ") and "seal is broken" in err
    assert path.read_bytes() == damaged


#: fields re-sealed with values no run writes: each one an error line, never a traceback
#: (old: mask 2**70 was an OverflowError) or a run on wrong values (old: rare_parity 2
#: made every value wrong)
RESEALED = {
    "huge mask": {"space": {"mask": 2**70, "positional": False, "rare_parity": 0, "rare": 3}},
    "rare parity 2": {"space": {"mask": 27, "positional": False, "rare_parity": 2, "rare": 3}},
    "no lemma": {"space": {"mask": 27, "positional": False, "rare_parity": 1, "rare": 3}},
    # 0.156 splits with k = 2 and 3: the heap's parity may not join the class
    "positional": {"space": {"mask": 27, "positional": True, "rare_parity": 0, "rare": 3}},
    "negative rare": {"space": {"mask": 27, "positional": False, "rare_parity": 0, "rare": -1}},
    "extra key": {"space": {"mask": 27, "positional": False, "rare_parity": 0, "rare": 3,
                            "x": 1}},
    "bool mask": {"space": {"mask": True, "positional": False, "rare_parity": 0, "rare": 3}},
    "huge next_detect": {"next_detect": 2**70},
    "next_detect -2": {"next_detect": -2},
    "method": {"method": "naive"},
}


@pytest.mark.parametrize("case", sorted(RESEALED))
def test_a_resealed_header_out_of_range_is_one_error_line(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _stopped_checkpoint(tmp_path)
    _reseal(path, **RESEALED[case])
    code, out, err = run(["octal", CODE, "--checkpoint", path], capsys)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"error: the checkpoint {str(path)!r} cannot be resumed: ")
    assert err.count("\n") == 1


def test_a_huge_value_is_named_not_out_of_memory(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Should name the heap whose value exceeds its number of options (old: 'out of
    memory … --max-states', exit 3, after trying to allocate 2³² entries)."""
    path = _stopped_checkpoint(tmp_path)
    values = read(str(path), schema=CHECKPOINT).values.astype(np.uint32)
    values[2000] = 2**32 - 1
    _reseal(path, values=values)
    code, out, err = run(["octal", CODE, "--checkpoint", path], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "𝒢(2000) = 4294967295 is more than heap 2000's number of options" in err


def test_an_unsealed_checkpoint_is_refused(tmp_path: Path) -> None:
    path = _stopped_checkpoint(tmp_path)
    raw = path.read_bytes()
    first = raw.index(b"\n", len(MAGIC))
    head = json.loads(raw[len(MAGIC):first])
    del head["seal"]
    path.write_bytes(MAGIC + json.dumps(head).encode() + raw[first:])
    with pytest.raises(InputError, match="has no seal"):
        OctalGame.parse(CODE).period(checkpoint=str(path))


@pytest.mark.parametrize("finished", [False, True])
def test_edited_and_resealed_values_are_never_certified(
        finished: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Should refute edited values that were sealed anew, exit 2, and print no result
    (old: exit 0 with a wrong preperiod 'certified', e.g. 274,278 for 0.16): in a
    checkpoint of a stopped run (heap 2,500 of 3,071) and of a finished one (heap 7,000,
    in the periodic part, of 7,659 values: the run then proves a later preperiod)."""
    if finished:
        path = tmp_path / "run.ckpt"
        OctalGame.parse(CODE).period(checkpoint=str(path))
        heap = 7000
    else:
        path, heap = _stopped_checkpoint(tmp_path), 2500
    values = read(str(path), schema=CHECKPOINT).values.copy()
    assert heap < len(values)
    values[heap] ^= 1
    _reseal(path, values=values)
    code, out, err = run(["octal", CODE, "--checkpoint", path, "--json"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"refutes a value it holds: 𝒢({heap}) = {values[heap]}, but the rules give" in err


def test_the_issue_case_0_16(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0.16 (least preperiod 105,351, [T], [GP]): a checkpoint of 200,000 values with one
    value edited and re-sealed is refused; the honest one certifies 105,351."""
    path = _stopped_checkpoint(tmp_path, "0.16", 200_000)
    honest = path.read_bytes()
    values = read(str(path), schema=CHECKPOINT).values.copy()
    values[150_000] ^= 1
    _reseal(path, values=values)
    code, out, err = run(["octal", "0.16", "--checkpoint", path, "--json"], capsys)
    assert (code, out) == (2, "") and "𝒢(150000)" in err
    path.write_bytes(honest)
    code, out, _ = run(["octal", "0.16", "--checkpoint", path, "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and (data["preperiod"], data["period"]) == (105351, 149459)


def test_a_hexadecimal_checkpoint_is_checked_with_three_heap_splits(tmp_path: Path) -> None:
    """Should re-derive resumed values of a hexadecimal code (three-heap splits; no sparse
    space) before any claim: an honest checkpoint resumes to the naive mex's values, a
    value edited and re-sealed is refuted (the checker once knew two-heap splits only)."""
    from sdg_automata.games.octal.values import naive_values

    code, n = "0.3F", 90  # 0.3F: no period proven early, so every value is a claim
    game = OctalGame.parse(code)
    path = _stopped_checkpoint(tmp_path, code, states=60)
    with pytest.raises(BudgetExceeded):
        game.period(budget=Budget(max_states=n), checkpoint=str(path))
    honest = read(str(path), schema=CHECKPOINT).values
    assert honest.tolist() == naive_values(game, len(honest))
    values = honest.copy()
    values[40] ^= 1
    _reseal(path, values=values)
    with pytest.raises(InputError, match=r"refutes a value it holds: 𝒢\(40\)"):
        game.period(max_n=n + 30, checkpoint=str(path))  # "no period within 120" is a claim
