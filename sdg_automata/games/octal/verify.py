"""``octal verify``: check an octal certificate from the game's rules alone.

A certificate (written by ``octal CODE --certificate FILE``; the format is
:mod:`sdg_automata.games.octal.valuefile`, documented in ``docs/octal.md``) claims that
the game ``code`` has least preperiod n₀ and least period p, and stores the
values 𝒢(0), …, 𝒢(N − 1) with N = 2·max(n₀, 1) + 2p + t.  This checker
shares nothing with the solver but the file reader.  It

1. re-derives every stored value from the rules: 𝒢(h) must be the mex of the
   options of h, computed from the stored values of smaller heaps (checked
   before), so by induction every stored value is the game's;
2. checks 𝒢(n + p) = 𝒢(n) for n₀ ≤ n < N − p, which by the octal periodicity
   theorem (Guy–Smith; ``docs/octal.md`` §2) proves p-periodicity from n₀;
3. checks minimality: 𝒢(n₀ − 1 + p) ≠ 𝒢(n₀ − 1) (so no smaller preperiod
   works for p, nor for any period), and for each prime q dividing p, some
   n₀ ≤ n < n₀ + p has 𝒢(n + p/q) ≠ 𝒢(n) (the least period divides p, so it
   would divide some p/q).

Step 1 may use the sparse-space lemma with the certificate's mask: a value of
the common class can only be reached by a one-heap move, the removal of the
whole heap or a split with a rare heap, whatever the mask — provided the
positional variant is used only when every splitting removal has the parity
ρ (checked here).  So the mask only makes the check fast, and its claim (the
rare heaps it lists) is re-counted from the values and compared.

``ignore_mask=True`` (``octal verify --ignore-mask``) checks without the lemma: the
certificate's ``sparse`` block is not read at all, and every value is re-derived the
direct way, the mex over every option of the heap.  A certificate is accepted then
exactly when its values, period and preperiod are right, whatever its mask claims:
the claim is only a hint for the fast check, and proves nothing that the direct check
needs (a wrong claim is refused by the default mode, which relies on it).  The direct
check is O(N²) where the sparse one is about O(N·R): a way to check a certificate
without trusting the sparse-space lemma, on certificates of moderate size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ...errors import InputError, InvalidCertificate
from ...kernels import octal_check as loops
from ...runtime.budget import UNLIMITED, Budget, Meter
from ...runtime.engines import THRESHOLDS, Engine, use_compiled
from ...runtime.stopping import held_signals
from .valuefile import CERTIFICATE, read

__all__ = ["Verified", "verify"]

#: ``engine="auto"`` checks with the compiled loops from this many values on
COMPILED_FROM = THRESHOLDS["octal values"]
#: splits visited between two returns to the meter (budget, progress, Ctrl-C): compiled,
#: and in the Python loops (about a hundred times slower, so the same ~0.1 s)
_WORK = 1 << 25
_PYTHON_WORK = 1 << 15
#: three-heap splits checked between two returns to the meter (about h² per heap h)
_THREE_WORK = 1 << 22

#: how the values were checked: with the certificate's sparse mask (the lemma), or
#: directly, every option of every heap enumerated (no mask, or ``ignore_mask``)
Mode = Literal["sparse", "direct"]


@dataclass(frozen=True, kw_only=True)
class Verified:
    """What a valid certificate proves, and how it was checked.

    ``mask`` is the certificate's sparse space when the check used it, else ``None``;
    ``mode`` says which (``"sparse"`` or ``"direct"``).
    """

    code: str
    preperiod: int
    period: int
    values: int
    mask: dict[str, Any] | None
    mode: Mode = "direct"

    def to_json(self) -> dict[str, Any]:
        """``{"valid": true, "code", "preperiod", "period", "values_checked", "sparse",
        "mode"}``."""
        return {"valid": True, "code": self.code, "preperiod": self.preperiod,
                "period": self.period, "values_checked": self.values, "sparse": self.mask,
                "mode": self.mode}


def _field(header: dict[str, Any], key: str, least: int) -> int:
    value = header.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InputError(f"the certificate's {key!r} is not an integer ≥ {least}: {value!r}")
    return value


def _digits(code: object) -> list[int]:
    m = re.fullmatch(r"0\.([0-9A-F]*[1-9A-F])", code) if isinstance(code, str) else None
    if m is None:
        raise InputError(f"the certificate's code {code!r} is not a canonical octal or "
                         "hexadecimal code")
    return [int(c, 16) for c in m.group(1)]


def _primes(p: int) -> list[int]:
    out, q = [], 2
    while q * q <= p:
        if p % q == 0:
            out.append(q)
            while p % q == 0:
                p //= q
        q += 1
    return out + ([p] if p > 1 else [])


def verify(path: str, *, engine: Engine = "auto", budget: Budget = UNLIMITED,
           ignore_mask: bool = False) -> Verified:
    """Check the certificate at ``path``; what it proves.

    Parameters
    ----------
    path:
        The certificate.
    engine:
        Where the loops run: ``"compiled"``, ``"python"`` or ``"auto"`` (compiled from
        :data:`COMPILED_FROM` values on).
    budget:
        ``max_seconds`` and progress.
    ignore_mask:
        Do not read the certificate's sparse mask: check every value directly, by the
        mex over all its options (accepted exactly when the values, period and preperiod
        are right, whatever the mask claims).

    Raises
    ------
    InvalidCertificate
        A value, the period, the preperiod, the count, the mask's claim or the
        hash is wrong (one sentence saying which).
    InputError
        The file cannot be read or is not a certificate.
    """
    file = read(path, schema=CERTIFICATE)
    head, g = file.header, file.values
    digits = _digits(head.get("code"))
    n0, p = _field(head, "preperiod", 0), _field(head, "period", 1)
    t, count = len(digits), len(g)
    one = np.array([k for k, d in enumerate(digits, 1) if d & 2], dtype=np.int64)
    two = np.array([k for k, d in enumerate(digits, 1) if d & 4], dtype=np.int64)
    ends = np.array([k for k, d in enumerate(digits, 1) if d & 1], dtype=np.int64)
    three = np.array([k for k, d in enumerate(digits, 1) if d & 8], dtype=np.int64)
    # the periodicity theorem for two heaps (Guy-Smith) and for three (docs/octal.md §2)
    need, law = ((3 * n0 + 3 * p + t + 3, "3n₀ + 3p + t + 3") if len(three)
                 else (2 * max(n0, 1) + 2 * p + t, "2·max(n₀, 1) + 2p + t"))
    if count < need:
        raise InvalidCertificate(f"the certificate holds {count} values; the periodicity "
                                 f"theorem needs {law} = {need} for n₀ = {n0}, p = {p}")
    sparse = None if ignore_mask else head.get("sparse")
    meter = budget.start(f"verify {head['code']}", unit="values")
    if len(three):
        if sparse is not None:
            raise InvalidCertificate("a sparse mask is claimed, but the sparse-space lemma "
                                     "does not hold when a move may leave three heaps")
        _check_three(g, one, two, three, ends, digits, meter)
        return _periodic(head["code"], g, n0, p, None, "direct")
    mask, positional, rho = _split(sparse, two)
    compiled = use_compiled(engine, work=count, threshold=COMPILED_FROM)
    check, first_break = (loops.compiled() if compiled
                          else (loops.check_heaps, loops.first_break))
    work = _WORK if compiled else _PYTHON_WORK
    top = int(g.max()) if count else 0
    size = 1 << max(1, top.bit_length())
    odd = np.zeros(size, dtype=np.uint8) if mask < 0 else (
        np.bitwise_count(np.arange(size) & mask) & 1 ^ rho).astype(np.uint8)
    common_below = np.zeros((2, size + 1), dtype=np.int64)
    common_below[0, 1:] = np.cumsum(odd)
    common_below[1, 1:] = np.cumsum(1 - odd)
    seen = np.full(size + 1, -1, dtype=np.int64)
    rare = np.zeros(1024, dtype=np.int64)
    nrare, h = 0, 0
    try:
        while h < count:
            cost = (nrare + 16) * max(len(two), 1) if mask >= 0 else max(1, h // 2 * len(two))
            stop = min(count, h + max(1, work // cost))
            with held_signals():  # the first call compiles or loads the kernel: held whole
                reached, got = check(g, h, stop, one, two, ends, mask >= 0, positional, odd,
                                     common_below, rare, nrare, seen)
            if got < 0:
                rare = np.concatenate([rare, np.zeros(len(rare), dtype=np.int64)])
                h = int(reached)
                continue
            h, nrare = int(reached), int(got)
            if h < stop:
                raise InvalidCertificate(f"𝒢({h}) = {g[h]} in the certificate, but the rules "
                                         f"give {_mex(digits, g, h)}")
            meter.check(h)
    except KeyboardInterrupt:
        raise meter.interrupted(h) from None
    if isinstance(sparse, dict):
        _rare_claim(sparse, rare[:nrare])
    return _periodic(head["code"], g, n0, p, sparse, "direct" if sparse is None else "sparse",
                     first_break)


def _check_three(g: np.ndarray[Any, Any], one: np.ndarray[Any, Any],
                 two: np.ndarray[Any, Any], three: np.ndarray[Any, Any],
                 ends: np.ndarray[Any, Any], digits: list[int], meter: Meter) -> None:
    """Step 1 for a hexadecimal code: every value re-derived directly, in chunks between
    which the budget is checked."""
    h, count = 0, len(g)
    try:
        while h < count:
            stop = min(count, h + max(1, _THREE_WORK // max(1, h * h)))
            reached = loops.check_three(g, h, stop, one, two, three, ends)
            if reached < stop:
                raise InvalidCertificate(f"𝒢({reached}) = {g[reached]} in the certificate, "
                                         f"but the rules give {_mex(digits, g, reached)}")
            h = stop
            meter.check(h)
    except KeyboardInterrupt:
        raise meter.interrupted(h) from None


def _periodic(code: str, g: np.ndarray[Any, Any], n0: int, p: int,
              sparse: dict[str, Any] | None, mode: Mode,
              first_break: Any = loops.first_break) -> Verified:
    """Steps 2 and 3: the periodicity condition and minimality; what was proven."""
    count = len(g)
    with held_signals():
        n = first_break(g, n0, count - p, p)
    if n >= 0:
        raise InvalidCertificate(f"{p} is not a period from n₀ = {n0}: 𝒢({n + p}) = "
                                 f"{g[n + p]} ≠ 𝒢({n}) = {g[n]}")
    if n0 > 0 and g[n0 - 1 + p] == g[n0 - 1]:
        raise InvalidCertificate(f"the preperiod is not least: 𝒢(n + {p}) = 𝒢(n) already "
                                 f"from n = {n0 - 1}")
    for q in _primes(p):
        with held_signals():
            broken = first_break(g, n0, n0 + p, p // q)
        if broken < 0:
            raise InvalidCertificate(f"the period is not least: {p // q} is a period too")
    return Verified(code=code, preperiod=n0, period=p, values=count, mask=sparse, mode=mode)


def _split(sparse: Any, two: np.ndarray[Any, Any]) -> tuple[int, bool, int]:
    """(mask, positional, ρ) of the certificate's sparse space (mask −1: none), refused
    when the lemma would not hold for it."""
    if sparse is None:
        return -1, False, 0
    if not isinstance(sparse, dict):
        raise InputError("the certificate's 'sparse' is neither null nor an object")
    mask, positional, rho = sparse.get("mask"), sparse.get("positional"), sparse.get("rare_parity")
    if (not isinstance(mask, int) or isinstance(mask, bool) or mask < 1 or mask >= 1 << 31
            or not isinstance(positional, bool) or rho not in (0, 1)):
        raise InputError("the certificate's sparse mask, positional or rare_parity is malformed")
    ks = {int(k) & 1 for k in two}
    if (rho != 0 and not positional) or (positional and ks != {rho}):
        raise InvalidCertificate(
            f"the sparse space (mask {mask}, positional {positional}, rare parity {rho}) is "
            f"not one the lemma holds for: the heap's parity may join the class only when "
            f"every splitting removal has the parity ρ")
    return mask, positional, rho


def _rare_claim(sparse: dict[str, Any], found: np.ndarray[Any, Any]) -> None:
    """The mask's claim: the certificate's rare heaps are those of the values."""
    claimed = sparse.get("rare_heaps")
    if sparse.get("rare") != len(found):
        raise InvalidCertificate(f"the mask makes {len(found)} heaps rare, the certificate "
                                 f"says {sparse.get('rare')}")
    if claimed is not None and (not isinstance(claimed, list)
                                or claimed != found.tolist()):
        raise InvalidCertificate("the certificate's rare heaps are not those of its values")


def _mex(digits: list[int], g: np.ndarray[Any, Any], h: int) -> int:
    """𝒢(h) from the stored values below h, by the definition (for the message)."""
    options = set()
    for k, d in enumerate(digits, 1):
        if d & 1 and k == h:
            options.add(0)
        if d & 2 and k < h:
            options.add(int(g[h - k]))
        if d & 4 and k < h:
            s = h - k
            half = s // 2
            options.update((g[1:half + 1].astype(np.int64)
                            ^ g[s - half:s][::-1].astype(np.int64)).tolist())
        if d & 8 and k < h:
            s = h - k
            options.update(int(g[a]) ^ int(g[b]) ^ int(g[s - a - b])
                           for a in range(1, s // 3 + 1) for b in range(a, (s - a) // 2 + 1))
    return next(v for v in range(len(options) + 1) if v not in options)
