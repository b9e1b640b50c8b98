"""Octal certificates, ``octal verify`` and checkpoints (issue 19).

Truth: the checker re-derives every value from the rules, so it is tested
against :func:`naive_values` (the plain definition) and against tampered
files — one value changed (hash kept right), a wrong period, a wrong
preperiod, a truncated array, a bad hash — each of which it must reject with
one ``error:`` line and exit 1; unreadable input is exit 2.  Certificates
written for every 1- and 2-digit code that certifies, and for 0.77, 0.16 and
0.56, must round-trip and verify.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from sdg_automata.cli import main
from sdg_automata.errors import BudgetExceeded, InputError, InvalidCertificate
from sdg_automata.games.octal import OctalGame, naive_values, write_certificate
from sdg_automata.games.octal.valuefile import CERTIFICATE, CHECKPOINT, MAGIC, read, write
from sdg_automata.games.octal.verify import verify
from sdg_automata.runtime.budget import Budget
from sdg_automata.sweeps.octal import codes


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["octal", *argv])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def certify(code: str, path: Path) -> dict[str, object]:
    result = OctalGame.parse(code).period()
    assert result.certified
    return write_certificate(result, str(path))


def rewrite(path: Path, header: dict[str, object] | None = None,
            values: list[int] | None = None, *, fix_hash: bool = True) -> None:
    """Rewrite a certificate with another header or values (the hash recomputed unless
    ``fix_hash`` is False: then only the values change)."""
    file = read(str(path), schema=CERTIFICATE)
    head = {**file.header, **(header or {})}
    new = np.array(values if values is not None else file.values, dtype=np.int64)
    if fix_hash:
        write(str(path), head, new)
        return
    raw = path.read_bytes()
    first = raw.index(b"\n", len(MAGIC))
    old_head = json.loads(raw[len(MAGIC):first])
    payload = zlib.compress(new.astype(old_head["dtype"]).tobytes())
    old_head["payload_bytes"] = len(payload)
    path.write_bytes(MAGIC + json.dumps(old_head).encode() + b"\n" + payload)


# -- round trip and acceptance -------------------------------------------------------------


CERTIFIABLE = [c for c in codes(2)] + ["0.77", "0.16", "0.56"]


@pytest.mark.parametrize("code", CERTIFIABLE)
def test_every_certificate_round_trips_and_verifies(code: str, tmp_path: Path) -> None:
    """Should write, read back and verify the certificate of every 1- and 2-digit code that
    certifies (and 0.77, 0.16, 0.56), the stored values being the definition's."""
    game = OctalGame.parse(code)
    result = game.period(max_n=1 << 12) if code not in ("0.16", "0.56") else game.period()
    if not result.certified:
        pytest.skip(f"{code} is open up to {result.checked_to}")
    path = tmp_path / "c.cert"
    header = write_certificate(result, str(path))
    file = read(str(path), schema=CERTIFICATE)
    n0, p = result.preperiod, result.period
    assert n0 is not None and p is not None
    assert len(file.values) == 2 * max(n0, 1) + 2 * p + game.t
    assert np.array_equal(file.values, result.computed[:len(file.values)])
    if len(file.values) <= 3000:
        assert file.values.tolist() == naive_values(game, len(file.values))
    assert file.header["sparse"] == header["sparse"]
    proof = verify(str(path), engine="compiled")
    assert (proof.code, proof.preperiod, proof.period) == (game.code, n0, p)


@pytest.mark.parametrize("code", ["0.77", "0.45", "0.156"])
def test_python_and_compiled_checkers_agree(code: str, tmp_path: Path) -> None:
    path = tmp_path / "c.cert"
    certify(code, path)
    assert verify(str(path), engine="python") == verify(str(path), engine="compiled")


# -- rejection --------------------------------------------------------------------------------


def _tampered(kind: str, path: Path) -> None:
    file = read(str(path), schema=CERTIFICATE)
    g = file.values.astype(np.int64).tolist()
    head = file.header
    n0, p = head["preperiod"], head["period"]
    if kind == "value":  # one value changed, the hash made to match
        g[len(g) // 2] ^= 1
        rewrite(path, values=g)
    elif kind == "value-early":
        g[5] += 1
        rewrite(path, values=g)
    elif kind == "period":  # a wrong period: a multiple (not least), and one that fails
        rewrite(path, {"period": p + 1})
    elif kind == "period-smaller":  # fewer values needed, but 𝒢(n + p − 1) ≠ 𝒢(n)
        rewrite(path, {"period": p - 1})
    elif kind == "period-multiple":
        game = OctalGame.parse(head["code"])
        need = 2 * max(n0, 1) + 4 * p + game.t
        rewrite(path, {"period": 2 * p}, naive_values(game, need))
    elif kind == "preperiod-late":
        game = OctalGame.parse(head["code"])
        rewrite(path, {"preperiod": n0 + 1}, naive_values(game, len(g) + 2))
    elif kind == "preperiod-early":
        rewrite(path, {"preperiod": n0 - 1})
    elif kind == "truncated-array":
        rewrite(path, {}, g[:-1])  # a whole value array one short, hash right
    elif kind == "truncated-file":
        raw = path.read_bytes()
        path.write_bytes(raw[:-7])
    elif kind == "huge-count":  # a header claiming more values than the payload can hold
        raw = path.read_bytes()
        first = raw.index(b"\n", len(MAGIC))
        head = json.loads(raw[len(MAGIC):first])
        head["count"] = 10**12
        path.write_bytes(MAGIC + json.dumps(head).encode() + raw[first:])
    elif kind == "hash":
        g[-1] ^= 1
        rewrite(path, values=g, fix_hash=False)
    elif kind == "rare-claim":
        sparse = dict(head["sparse"])
        sparse["rare"] += 1
        sparse["rare_heaps"] = sparse["rare_heaps"][1:]
        rewrite(path, {"sparse": sparse})
    elif kind == "bad-positional":
        sparse = dict(head["sparse"])
        sparse["positional"], sparse["rare_parity"] = True, 1 - (2 & 1)  # k = 2: parity 0
        rewrite(path, {"sparse": sparse})
    else:
        raise AssertionError(kind)


KINDS = ["value", "value-early", "period", "period-smaller", "period-multiple", "preperiod-late",
         "preperiod-early", "truncated-array", "truncated-file", "huge-count", "hash", "rare-claim",
         "bad-positional"]


@pytest.mark.parametrize("code", ["0.45", "0.77"])
@pytest.mark.parametrize("kind", KINDS)
def test_tampered_certificates_are_rejected_exit_1(kind: str, code: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Should reject each tampered variant with one ``error:`` line and exit 1."""
    path = tmp_path / "c.cert"
    header = certify(code, path)
    if kind in ("rare-claim", "bad-positional") and header["sparse"] is None:
        pytest.skip(f"{code} is certified without a sparse space")
    assert run(capsys, "verify", str(path))[0] == 0
    _tampered(kind, path)
    status, out, err = run(capsys, "verify", str(path))
    assert (status, out) == (1, ""), err
    assert err.startswith(f"error: {path}: invalid certificate: ") and err.count("\n") == 1
    with pytest.raises(InvalidCertificate):
        verify(str(path), engine="python")


@pytest.mark.parametrize("content", [b"", b"hello\n", MAGIC + b"{not json\n",
                                     MAGIC + b'{"schema": "octal-checkpoint/1"}\n',
                                     MAGIC + b'{"schema": "octal-certificate/1", "count": -1}\n'])
def test_unreadable_input_is_exit_2(content: bytes, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.cert"
    path.write_bytes(content)
    status, out, err = run(capsys, "verify", str(path))
    assert (status, out) == (2, "") and err.startswith("error: ") and err.count("\n") == 1
    status, _, err = run(capsys, "verify", str(tmp_path / "missing.cert"))
    assert status == 2 and "cannot read" in err


def test_header_is_the_documented_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from schemas import SCHEMAS

    schema = json.loads((SCHEMAS / "octal-certificate.json").read_text(encoding="utf-8"))
    for code in ("0.77", "0.16"):
        path = tmp_path / f"{code}.cert"
        certify(code, path)
        raw = path.read_bytes()
        header = json.loads(raw[len(MAGIC):raw.index(b"\n", len(MAGIC))])
        jsonschema.validate(header, schema)
        values = read(str(path), schema=CERTIFICATE).values
        assert hashlib.sha256(values.tobytes()).hexdigest() == header["sha256"]
        assert header["dtype"] == "uint8" and values.itemsize == 1


def test_open_game_writes_no_certificate(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.cert"
    status, _, err = run(capsys, "0.6", "--upto", "2000", "--certificate", str(path))
    assert status == 3 and "no certificate written" in err and not path.exists()
    with pytest.raises(InputError):
        write_certificate(OctalGame.parse("0.6").period(max_n=500), str(path))


def test_cli_certificate_then_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.cert"
    status, out, _ = run(capsys, "0.16", "--certificate", str(path), "--json")
    assert status == 0 and json.loads(out)["period"] == 149459
    status, out, err = run(capsys, "verify", str(path), "--json")
    data = json.loads(out)
    assert status == 0 and data["valid"] and (data["preperiod"], data["period"]) == (105351,
                                                                                     149459)
    assert data["values_checked"] == 2 * 105351 + 2 * 149459 + 2


# -- checkpoints ----------------------------------------------------------------------------


def test_checkpoint_resumes_to_the_same_answer(tmp_path: Path) -> None:
    """Should keep the values at a budget stop and resume from them, bit-identical."""
    game = OctalGame.parse("0.56")
    path = str(tmp_path / "run.ckpt")
    with pytest.raises(BudgetExceeded):
        game.period(budget=Budget(max_states=200_000), checkpoint=path)
    kept = read(path, schema=CHECKPOINT)
    assert 150_000 <= len(kept.values) <= 260_000 and kept.values.dtype == np.uint8
    resumed = game.period(checkpoint=path)
    straight = game.period()
    assert resumed == straight and np.array_equal(resumed.values, straight.values)
    assert len(read(path, schema=CHECKPOINT).values) == resumed.checked_to
    with pytest.raises(InputError, match="is of '0.56'"):
        OctalGame.parse("0.16").period(checkpoint=path)


def test_checkpoint_survives_a_kill(tmp_path: Path) -> None:
    """Should resume after SIGKILL from the last checkpoint written (atomically)."""
    path = tmp_path / "run.ckpt"
    code = ("import sdg_automata.games.octal as o, sdg_automata.games.octal.checkpoint as c\n"
            "c.CHECKPOINT_SECONDS = 0.05\n"
            f"o.OctalGame.parse('0.16').period(engine='python', checkpoint={str(path)!r})\n")
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    kept = read(str(path), schema=CHECKPOINT).values
    assert 0 < len(kept) < 509_622
    assert kept.tolist() == OctalGame.parse("0.16").values(len(kept)).tolist()
    assert OctalGame.parse("0.16").period(checkpoint=str(path)).period == 149459


# -- the direct check, the certificate's mask ignored (issue 26 §5) ---------------------------

#: (code, method, least preperiod, least period): 0.45 carries the mask it detects; Kayles
#: (Winning Ways: last exception 𝒢(70)) and Dawson's Kayles (OEIS A002187 shifted by one)
#: carry the one a forced "sparse" run chose
MASKED = [("0.45", "auto", 498, 20), ("0.77", "sparse", 71, 12), ("0.07", "sparse", 53, 34)]


def masked(code: str, method: str, path: Path) -> dict[str, object]:
    result = OctalGame.parse(code).period(method=method)  # type: ignore[arg-type]
    assert result.certified and result.sparse is not None
    header = write_certificate(result, str(path))
    assert header["sparse"] is not None
    return header


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize(("code", "method", "pre", "per"), MASKED)
def test_a_masked_certificate_verifies_both_ways(code: str, method: str, pre: int, per: int,
                                                 engine: str, tmp_path: Path) -> None:
    """Should accept a certificate carrying a mask with and without it, with the same
    preperiod, period and values (the definition's), and say which way it checked."""
    path = tmp_path / "c.cert"
    header = masked(code, method, path)
    fast = verify(str(path), engine=engine)  # type: ignore[arg-type]
    direct = verify(str(path), engine=engine, ignore_mask=True)  # type: ignore[arg-type]
    assert (fast.mode, direct.mode) == ("sparse", "direct")
    assert fast.mask == header["sparse"] and direct.mask is None
    assert (fast.preperiod, fast.period, fast.values) == (direct.preperiod, direct.period,
                                                          direct.values)
    assert (fast.preperiod, fast.period) == (pre, per)
    values = read(str(path), schema=CERTIFICATE).values
    assert values.tolist() == naive_values(OctalGame.parse(code), len(values))


def _wrong_claims(sparse: dict[str, object]) -> dict[str, dict[str, object]]:
    rare = sparse["rare_heaps"]
    assert isinstance(rare, list) and isinstance(sparse["rare"], int)
    return {"count": {**sparse, "rare": sparse["rare"] + 1},
            "heaps": {**sparse, "rare_heaps": rare[:-1] + [rare[-1] + 1]},
            "mask": {**sparse, "mask": sparse["mask"] ^ 1},  # type: ignore[operator]
            "lemma": {**sparse, "rare_parity": 1}}  # positional False: no such lemma


@pytest.mark.parametrize("claim", ["count", "heaps", "mask", "lemma"])
def test_a_wrong_mask_claim_is_refused_by_default_and_ignored_directly(
        claim: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Should refuse a certificate whose mask claim is wrong (the default check relies on
    it), and accept it with --ignore-mask when its values, period and preperiod are right:
    the direct check never reads the mask, which proves nothing it needs."""
    path = tmp_path / "c.cert"
    header = masked("0.45", "auto", path)
    sparse = header["sparse"]
    assert isinstance(sparse, dict)
    rewrite(path, {"sparse": _wrong_claims(sparse)[claim]})
    with pytest.raises(InvalidCertificate):
        verify(str(path))
    status, _, err = run(capsys, "verify", str(path))
    assert status == 1 and err.count("error:") == 1
    status, out, _ = run(capsys, "verify", str(path), "--ignore-mask", "--json")
    data = json.loads(out)
    assert status == 0 and data["valid"] and data["mode"] == "direct"
    assert data["sparse"] is None and (data["preperiod"], data["period"]) == (498, 20)


@pytest.mark.parametrize("ignore_mask", [False, True])
@pytest.mark.parametrize(("code", "method", "pre", "per"), MASKED)
def test_a_tampered_value_is_refused_both_ways(code: str, method: str, pre: int, per: int,
                                               ignore_mask: bool, tmp_path: Path) -> None:
    """Should refuse a certificate with one value changed (hash kept right), mask or not."""
    path = tmp_path / "c.cert"
    masked(code, method, path)
    values = read(str(path), schema=CERTIFICATE).values.tolist()
    values[pre + 1] ^= 1
    rewrite(path, values=values)
    with pytest.raises(InvalidCertificate, match=f"𝒢\\({pre + 1}\\)"):
        verify(str(path), ignore_mask=ignore_mask)


def test_cli_ignore_mask_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Should say in the text and the JSON how the values were checked, keep the default
    text as it was, and refuse --ignore-mask where it does not apply."""
    path = tmp_path / "c.cert"
    masked("0.45", "auto", path)
    status, out, _ = run(capsys, "verify", str(path))
    assert status == 0 and out.endswith("values re-derived from the rules)\n")
    status, out, _ = run(capsys, "verify", str(path), "--ignore-mask")
    assert status == 0 and "every option enumerated, the mask ignored" in out
    status, out, _ = run(capsys, "verify", str(path), "--json")
    assert json.loads(out)["mode"] == "sparse"
    status, _, err = run(capsys, "0.45", "--ignore-mask")
    assert status == 2 and "--ignore-mask does not apply" in err
