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

The steps are also public on values in memory (:func:`check_values`,
:func:`check_period`): the solver runs them on what it did not compute itself, the
values it resumed from a checkpoint, before it calls a period certified
(:mod:`sdg_automata.games.octal.period`).  Every step returns to its meter every
:data:`_WORK` splits or so (a budget, the progress, Ctrl-C and SIGTERM are served
there, within about 0.1 s; one heap, up to N/2 splits per splitting removal, is the
unit that is never cut), and the file is read with a check between chunks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ...errors import BudgetExceeded, InputError, InvalidCertificate
from ...kernels import octal_check as loops
from ...kernels.native import prepare
from ...runtime.budget import UNLIMITED, Budget, Meter, available_bytes
from ...runtime.engines import THRESHOLDS, Engine, use_compiled
from ...runtime.stopping import held_signals
from .valuefile import CERTIFICATE, read

__all__ = ["Verified", "check_period", "check_values", "options_bound", "verify"]

#: ``engine="auto"`` checks with the compiled loops from this many values on
COMPILED_FROM = THRESHOLDS["octal values"]
#: splits visited between two returns to the meter (budget, progress, Ctrl-C): compiled,
#: and in the Python loops (about a hundred times slower, so the same ~0.1 s)
_WORK = 1 << 25
_PYTHON_WORK = 1 << 15
#: heaps whose values are bounded and measured at a time, before their check (the
#: arrays indexed by value grow with the largest value met, never ahead of it)
_SEGMENT = 1 << 20
#: the rare heaps the sparse check has room for at first (doubled when full)
_RARE_START = 1024
#: bytes per value below the largest one met: ``seen`` (8), ``common_below`` (16), ``odd``
_BYTES_PER_VALUE = 25
#: three-heap splits checked between two returns to the meter (about h²/12 per heap h)
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


def _removals(digits: list[int], bit: int) -> npt.NDArray[np.int64]:
    return np.array([k for k, d in enumerate(digits, 1) if d & bit], dtype=np.int64)


def options_bound(code: str, heaps: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """How many options each heap of ``heaps`` has at most, by the rules of ``code``: a
    bound on its value, since a mex is at most the number of options.

    A heap n has one option per removal k < n leaving one heap, one when some
    removal takes all n, ⌊(n − k)/2⌋ per removal k < n leaving two, and the number of
    partitions of s = n − k into three positive parts, round(s²/12), per removal leaving
    three.
    """
    digits = _digits(code)
    bound = np.zeros(len(heaps), dtype=np.int64)
    for k, d in enumerate(digits, 1):
        if d & 1:
            bound += heaps == k
        if d & 2:
            bound += heaps > k
        if d & 4:
            bound += np.maximum(heaps - k, 0) // 2
        if d & 8:
            s = np.maximum(heaps - k, 0)
            bound += (s * s + 6) // 12
    return bound


def verify(path: str, *, engine: Engine = "auto", budget: Budget = UNLIMITED,
           ignore_mask: bool = False) -> Verified:
    """Check the certificate at ``path``; what it proves.

    Parameters
    ----------
    path:
        The certificate (a regular file; its payload is read with the budget checked
        between chunks, and nothing past it).
    engine:
        Where the loops run: ``"compiled"``, ``"python"`` or ``"auto"`` (compiled from
        :data:`COMPILED_FROM` values on).
    budget:
        ``max_seconds`` and progress: the reading and every step are metered.
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
    BudgetExceeded, Interrupted
        The budget ran out, or Ctrl-C (or SIGTERM on the command line) came.
    """
    meter = budget.start(f"verify {path}", unit="values")
    try:
        file = read(path, schema=CERTIFICATE, check=lambda _: meter.check(0))
        head, g = file.header, file.values
        code = head.get("code")
        _digits(code)
        assert isinstance(code, str)
        n0, p = _field(head, "preperiod", 0), _field(head, "period", 1)
        _enough(code, len(g), n0, p)
        sparse = None if ignore_mask else head.get("sparse")
        found = check_values(code, g, sparse=sparse, engine=engine, meter=meter)
        if isinstance(sparse, dict):
            _rare_claim(sparse, found)
        check_period(code, g, n0, p, engine=engine, meter=meter)
    except KeyboardInterrupt:
        raise meter.interrupted() from None
    return Verified(code=code, preperiod=n0, period=p, values=len(g), mask=sparse,
                    mode="direct" if sparse is None else "sparse")


def _enough(code: str, count: int, n0: int, p: int) -> None:
    # the periodicity theorem for two heaps (Guy–Smith) and for three (docs/octal.md §2)
    t = len(code) - 2
    three = _removals(_digits(code), 8).size > 0
    need, law = ((3 * n0 + 3 * p + t + 3, "3n₀ + 3p + t + 3") if three
                 else (2 * max(n0, 1) + 2 * p + t, "2·max(n₀, 1) + 2p + t"))
    if count < need:
        raise InvalidCertificate(f"the certificate holds {count} values; the periodicity "
                                 f"theorem needs {law} = {need} for n₀ = {n0}, p = {p}")


def _kernels(engine: Engine, count: int, meter: Meter) -> tuple[Any, Any, int, bool]:
    """(check_heaps, first_break, work per call, compiled) for ``count`` values; a first
    run's build of the compiled ones obeys ``meter``'s budget."""
    compiled = use_compiled(engine, work=count, threshold=COMPILED_FROM, library="octal_check")
    check, first_break = (prepare(loops.compiled, meter, "the checker's kernels") if compiled
                          else (loops.check_heaps, loops.first_break))
    return check, first_break, _WORK if compiled else _PYTHON_WORK, compiled


def _holding(compiled: bool) -> AbstractContextManager[None]:
    """Signals held over a compiled call (its first one compiles or loads the kernel, which
    must not be cut); the Python loops take Ctrl-C where they are."""
    return held_signals() if compiled else nullcontext()


class _ByValue:
    """The arrays the loops index by value, grown with the largest value met (never
    ahead of it): a value's class, the common-class values below each value, and the
    heap that last saw each value."""

    def __init__(self, mask: int, rho: int) -> None:
        self.mask, self.rho, self.size = mask, rho, 0
        self.odd = np.zeros(0, dtype=np.uint8)
        self.common_below = np.zeros((2, 1), dtype=np.int64)
        self.seen = np.full(1, -1, dtype=np.int64)

    def cover(self, top: int, meter: Meter, h: int) -> None:
        """Make room for the values up to ``top``; memory that is not there is the
        budget's :class:`~sdg_automata.errors.BudgetExceeded`, said before allocating."""
        if top < self.size:
            return
        size = 1 << max(1, top.bit_length())
        left = available_bytes()
        if left is not None and size * _BYTES_PER_VALUE > left:
            raise BudgetExceeded(f"checking 𝒢({h}) = {top} needs about "
                                 f"{size * _BYTES_PER_VALUE >> 20:,} MB for the values below "
                                 f"it, more than the {left >> 20:,} MB left", explored=h)
        values = np.arange(size, dtype=np.int64)
        self.odd = (np.zeros(size, dtype=np.uint8) if self.mask < 0 else
                    (np.bitwise_count(values & self.mask) & 1 ^ self.rho).astype(np.uint8))
        self.common_below = np.zeros((2, size + 1), dtype=np.int64)
        self.common_below[0, 1:] = np.cumsum(self.odd)
        self.common_below[1, 1:] = np.cumsum(1 - self.odd)
        seen = np.full(size + 1, -1, dtype=np.int64)
        seen[:len(self.seen)] = self.seen
        self.seen, self.size = seen, size


def _segments(count: int) -> Iterator[tuple[int, int]]:
    for start in range(0, count, _SEGMENT):
        yield start, min(count, start + _SEGMENT)


def check_values(code: str, g: npt.NDArray[np.integer[Any]], *, sparse: Any,
                 engine: Engine = "auto", meter: Meter | None = None) -> npt.NDArray[np.int64]:
    """Re-derive every value of ``g`` = 𝒢(0), …, 𝒢(N − 1) from the rules of ``code``
    (step 1); the rare heaps met (none without a sparse space).

    ``sparse`` is a certificate's ``sparse`` block (``mask``, ``positional``,
    ``rare_parity``), or ``None``: every option of every heap enumerated.  A value above
    the number of options of its heap (:func:`options_bound`) is refused before the
    arrays indexed by value are sized for it.

    Raises
    ------
    InvalidCertificate
        The first wrong value, with the value the rules give; a sparse space the
        lemma does not hold for.
    InputError
        A malformed ``sparse`` block or code.
    """
    meter = meter if meter is not None else UNLIMITED.start("check", unit="values")
    digits = _digits(code)
    one, two, ends = _removals(digits, 2), _removals(digits, 4), _removals(digits, 1)
    three = _removals(digits, 8)
    if three.size:
        if sparse is not None:
            raise InvalidCertificate("a sparse mask is claimed, but the sparse-space lemma "
                                     "does not hold when a move may leave three heaps")
        _check_three(code, g, one, two, three, ends, meter)
        return np.zeros(0, dtype=np.int64)
    mask, positional, rho = _split(sparse, two)
    count = len(g)
    check, _, work, compiled = _kernels(engine, count, meter)
    by_value = _ByValue(mask, rho)
    rare = np.zeros(_RARE_START, dtype=np.int64)
    nrare, h = 0, 0
    try:
        for start, stop in _segments(count):
            _bounded(code, g, start, stop)
            by_value.cover(int(g[start:stop].max()), meter, start)
            while h < stop:
                with _holding(compiled):
                    reached, got, status = check(
                        g, h, stop, one, two, ends, mask >= 0, positional, by_value.odd,
                        by_value.common_below, rare, nrare, by_value.seen, work)
                h, nrare = int(reached), int(got)
                if status == loops.WRONG:
                    raise InvalidCertificate(f"𝒢({h}) = {g[h]} in the certificate, but the "
                                             f"rules give {_mex(digits, g, h)}")
                if status == loops.RARE_FULL:
                    rare = np.concatenate([rare, np.zeros(len(rare), dtype=np.int64)])
                meter.check(h)
    except KeyboardInterrupt:
        raise meter.interrupted(h) from None
    return rare[:nrare]


def _check_three(code: str, g: npt.NDArray[np.integer[Any]], one: npt.NDArray[np.int64],
                 two: npt.NDArray[np.int64], three: npt.NDArray[np.int64],
                 ends: npt.NDArray[np.int64], meter: Meter) -> None:
    """Step 1 for a hexadecimal code: every value re-derived directly (Python only: a
    certificate of such a code is small, the sparse-space lemma failing for three heaps),
    in chunks of about :data:`_THREE_WORK` splits between which the meter is checked."""
    h, count = 0, len(g)
    try:
        while h < count:
            stop = min(count, h + max(1, _THREE_WORK // max(1, h * h)))
            _bounded(code, g, h, stop)
            reached = loops.check_three(g, h, stop, one, two, three, ends)
            if reached < stop:
                raise InvalidCertificate(f"𝒢({reached}) = {g[reached]} in the certificate, "
                                         f"but the rules give {_mex(_digits(code), g, reached)}")
            h = stop
            meter.check(h)
    except KeyboardInterrupt:
        raise meter.interrupted(h) from None


def _bounded(code: str, g: npt.NDArray[np.integer[Any]], start: int, stop: int) -> None:
    """Refuse the first value of heaps start..stop − 1 above its heap's number of options."""
    heaps = np.arange(start, stop, dtype=np.int64)
    bound = options_bound(code, heaps)
    over = np.flatnonzero(g[start:stop] > bound)
    if len(over):
        h = start + int(over[0])
        raise InvalidCertificate(f"𝒢({h}) = {g[h]} in the certificate, but heap {h} has at "
                                 f"most {bound[over[0]]} options, so its value is at most that")


def check_period(code: str, g: npt.NDArray[np.integer[Any]], n0: int, p: int, *,
                 engine: Engine = "auto", meter: Meter | None = None) -> None:
    """Steps 2 and 3 on the values ``g`` (checked by step 1): p is a period from n₀ by
    the periodicity theorem, and both are least.

    Raises
    ------
    InvalidCertificate
        Too few values for the theorem, a break of the period, a smaller preperiod or
        period that works.
    """
    meter = meter if meter is not None else UNLIMITED.start("check", unit="values")
    _enough(code, len(g), n0, p)
    n = _first_break(g, n0, len(g) - p, p, engine, meter)
    if n >= 0:
        raise InvalidCertificate(f"{p} is not a period from n₀ = {n0}: 𝒢({n + p}) = "
                                 f"{g[n + p]} ≠ 𝒢({n}) = {g[n]}")
    if n0 > 0 and g[n0 - 1 + p] == g[n0 - 1]:
        raise InvalidCertificate(f"the preperiod is not least: 𝒢(n + {p}) = 𝒢(n) already "
                                 f"from n = {n0 - 1}")
    for q in _primes(p):
        if _first_break(g, n0, n0 + p, p // q, engine, meter) < 0:
            raise InvalidCertificate(f"the period is not least: {p // q} is a period too")


def _first_break(g: npt.NDArray[np.integer[Any]], start: int, stop: int, d: int,
                 engine: Engine, meter: Meter) -> int:
    """The first n with start ≤ n < stop and 𝒢(n + d) ≠ 𝒢(n), or −1, in calls of
    bounded work with the meter checked between them."""
    _, first_break, work, compiled = _kernels(engine, len(g), meter)
    try:
        for at in range(start, stop, work):
            with _holding(compiled):
                n = int(first_break(g, at, min(stop, at + work), d))
            if n >= 0:
                return n
            meter.check(meter.count)
    except KeyboardInterrupt:
        raise meter.interrupted() from None
    return -1


def _split(sparse: Any, two: npt.NDArray[np.int64]) -> tuple[int, bool, int]:
    """(mask, positional, ρ) of the certificate's sparse space (mask −1: none), refused
    when the lemma would not hold for it."""
    if sparse is None:
        return -1, False, 0
    if not isinstance(sparse, dict):
        raise InputError("the certificate's 'sparse' is neither null nor an object")
    mask, positional, rho = sparse.get("mask"), sparse.get("positional"), sparse.get("rare_parity")
    if (not isinstance(mask, int) or isinstance(mask, bool) or mask < 1 or mask >= 1 << 31
            or not isinstance(positional, bool) or rho not in (0, 1)
            or isinstance(rho, bool)):
        raise InputError("the certificate's sparse mask, positional or rare_parity is malformed "
                         "(a mask is an integer 1 ≤ mask < 2³¹, positional true or false, "
                         "rare_parity 0 or 1)")
    ks = {int(k) & 1 for k in two}
    if (rho != 0 and not positional) or (positional and ks != {rho}):
        raise InvalidCertificate(
            f"the sparse space (mask {mask}, positional {positional}, rare parity {rho}) is "
            f"not one the lemma holds for: the heap's parity may join the class only when "
            f"every splitting removal has the parity ρ")
    return mask, positional, rho


def _rare_claim(sparse: dict[str, Any], found: npt.NDArray[np.int64]) -> None:
    """The mask's claim: the certificate's rare heaps are those of the values."""
    claimed = sparse.get("rare_heaps")
    if sparse.get("rare") != len(found):
        raise InvalidCertificate(f"the mask makes {len(found)} heaps rare, the certificate "
                                 f"says {sparse.get('rare')}")
    if claimed is not None and (not isinstance(claimed, list)
                                or claimed != found.tolist()):
        raise InvalidCertificate("the certificate's rare heaps are not those of its values")


def _mex(digits: list[int], g: npt.NDArray[np.integer[Any]], h: int) -> int:
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
