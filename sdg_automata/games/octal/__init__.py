"""Octal games: Grundy sequences by the sparse-space method, periods proven.

An octal game ``0.d₁d₂…d_t`` (digits 0–7) is played on heaps of tokens: a
move removes k tokens from one heap, which is allowed leaving no heap when
bit 1 of d_k is set, one non-empty heap when bit 2 is set, and two non-empty
heaps when bit 4 is set.  Heaps are independent, so a position's Grundy
number is the XOR of its heaps' values 𝒢(n), and 𝒢(0) = 0.  Kayles is 0.77,
Dawson's Kayles 0.07, Dawson's chess 0.137 (Winning Ways, ch. 4; the full
reference, with the proofs, is ``docs/octal.md``).

Three routes compute 𝒢(0), …, 𝒢(N − 1), all exact:

* :func:`naive_values` — the definition, in plain Python, O(N²·t): the oracle
  of the tests.
* ``"full"`` — the same mex over every option, each heap's splits XORed in
  one numpy operation: still O(N²) work, the fallback when there is no sparse
  space.
* ``"sparse"`` — the sparse-space method (Gangolli–Plambeck 1989;
  Flammenkamp): with a mask m (and, when every splitting removal has the same
  parity, the heap's parity), values fall into a *rare* class (even
  popcount(𝒢 & m)) and a *common* class.  The XOR of two commons is rare, so
  every common-class option of a heap comes from a one-heap move or from a
  split with a rare part — few, and all enumerated.  The mex among rare-class
  values is settled by searching the common–common splits only until each
  rare value below the common candidate is found, which is almost at once;
  only a heap whose value really is rare needs the whole search.  The mask is
  detected from the values themselves (the class with fewest members), and
  a wrong or useless mask makes the method slow, never wrong.  ``"auto"``
  also watches how many splits it visits per block of heaps and runs the
  full mex instead until the next detection when the rare values are not
  rare enough (Officers, 0.6).

:meth:`OctalGame.period` proves the eventual period with the octal
periodicity theorem (Guy–Smith 1956): if 𝒢(n + p) = 𝒢(n) for all
n₀ ≤ n < 2n₀ + p + t, then for all n ≥ n₀.  Nothing is extrapolated: when no
period is proven within the values computed, the result says so.

>>> game = OctalGame.parse("0.77")           # Kayles
>>> [int(v) for v in game.values(12)]
[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]
>>> p = game.period()
>>> p.preperiod, p.period, p.certified
(71, 12, True)

References
----------
.. [1] E. R. Berlekamp, J. H. Conway, R. K. Guy, *Winning Ways for your
   Mathematical Plays*, ch. 4 ("Take and break"), the periodicity theorem.
.. [2] R. K. Guy, C. A. B. Smith, "The G-values of various games", Proc.
   Cambridge Philos. Soc. 52 (1956) 514–526.
.. [3] A. Gangolli, T. Plambeck, "A note on periodicity in some octal games",
   Int. J. Game Theory 18 (1989) 311–320 (the rare/common split).
.. [4] A. Flammenkamp, "Octal games", https://wwwhomes.uni-bielefeld.de/achim/octal.html
   (the sparse space phenomenon; tables of results).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from ...errors import BudgetExceeded, InputError, Interrupted, SdgBug
from ...grammar import Grammar, Rule
from ...kernels import Engine, check_engine, held_signals, use_compiled
from ...runtime.budget import UNLIMITED, Budget, Meter
from ...runtime.engines import THRESHOLDS
from ...sweeps.runner import Status, Sweep, run_sweep
from ..impartial import mex
from . import certificate as octal_file

__all__ = [
    "CHECKPOINT_SECONDS",
    "COMPILED_FROM",
    "DEFAULT_MAX_N",
    "JSON_VALUES",
    "Method",
    "OctalGame",
    "OctalPeriod",
    "SURVEY_COLUMNS",
    "SURVEY_MAX_N",
    "SparseSpace",
    "SurveyRow",
    "codes",
    "load_kernels",
    "naive_values",
    "survey",
    "survey_failed",
    "survey_row",
    "survey_sweep",
    "write_certificate",
]

Method = Literal["auto", "sparse", "full", "naive"]

#: values per code in a survey before the code is reported open
SURVEY_MAX_N = 1 << 15
#: the share of a survey's per-code seconds (at most 5 s) left between the engine's own
#: budget and the sweep's deadline, so that the engine stops first and says how far it got
_SURVEY_MARGIN = 0.1

#: values computed by default before a period is declared not proven: enough
#: for every game of the benchmark table (0.56 needs 653 582)
DEFAULT_MAX_N = 1 << 20

#: seconds between two checkpoints at least (more when writing one takes over 1/10 of it)
CHECKPOINT_SECONDS = 60.0

#: the values ``OctalPeriod.to_json`` lists by default (the rest: ``shown=``, ``--values``)
JSON_VALUES = 1000

#: ``engine="auto"`` computes the first values in Python and switches to the compiled
#: kernels once a run asks for this many (:data:`sdg_automata.runtime.engines.THRESHOLDS`
#: says why)
COMPILED_FROM = THRESHOLDS["octal values"]
#: ... and in a period search, which does not know how many values it will need
PERIOD_COMPILED_FROM = THRESHOLDS["octal period values"]

_CODE = re.compile(r"0?\.([0-7]+)")
_LETTER = "a"
_HEAD = "A"
Values = npt.NDArray[np.int32]
_EMPTY: npt.NDArray[np.uint8] = np.zeros(0, dtype=np.uint8)
_EMPTY.flags.writeable = False


# -- the game ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class OctalGame:
    """The octal game ``0.d₁d₂…d_t``, validated once.

    Parameters
    ----------
    digits:
        d₁, …, d_t, each 0–7, the last one non-zero (trailing zeros say
        nothing and are dropped by :meth:`parse`, not here).

    Raises
    ------
    InputError
        For a digit outside 0–7, no digits, or a last digit 0.

    Examples
    --------
    Kayles is 0.77; its Grundy values are periodic with period 12 from n = 71,
    proven by the octal periodicity theorem:

    >>> kayles = OctalGame.parse("0.77")
    >>> kayles.values(12).tolist()
    [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]
    >>> p = kayles.period()
    >>> p.preperiod, p.period, p.certified
    (71, 12, True)
    >>> OctalGame(digits=(8,))
    Traceback (most recent call last):
    ...
    sdg_automata.errors.InputError: octal digits are 0-7, not 8
    """

    digits: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.digits:
            raise InputError("an octal game needs at least one digit")
        for d in self.digits:
            if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 7:
                raise InputError(f"octal digits are 0-7, not {d!r}")
        if self.digits[-1] == 0:
            raise InputError(f"the last digit of {self.code} must be non-zero "
                             f"(an octal game needs at least one move)")

    @classmethod
    def parse(cls, text: str) -> OctalGame:
        """Read ``0.d₁d₂…`` or ``.d₁d₂…``; trailing zeros are dropped.

        >>> OctalGame.parse(".0770").code
        '0.077'
        """
        m = _CODE.fullmatch(text.strip())
        if m is None:
            raise InputError(f"{text!r} is not an octal game code (0.d1d2... with digits 0-7, "
                             f"e.g. 0.77 or .07)")
        digits = m.group(1).rstrip("0")
        if not digits:
            raise InputError(f"{text!r} has no non-zero digit: no move is allowed")
        return cls(digits=tuple(int(c) for c in digits))

    @property
    def code(self) -> str:
        """The canonical code ``0.d₁…d_t``."""
        return "0." + "".join(map(str, self.digits))

    def __str__(self) -> str:
        return self.code

    @property
    def t(self) -> int:
        """The largest removal (the number of digits)."""
        return len(self.digits)

    def removals(self, bit: int) -> tuple[int, ...]:
        """The k with ``bit`` (1: no heap left, 2: one heap, 4: two heaps) in d_k."""
        return tuple(k for k, d in enumerate(self.digits, start=1) if d & bit)

    @property
    def splits(self) -> tuple[int, ...]:
        """The removals that may leave two heaps."""
        return self.removals(4)

    def has_move(self, n: int) -> bool:
        """Whether a heap of n tokens has a move."""
        return any((d & 1 and k == n) or (d & 2 and k < n) or (d & 4 and k <= n - 2)
                   for k, d in enumerate(self.digits, start=1))

    # -- the SDG encoding ----------------------------------------------------------------

    def is_sdg(self) -> bool:
        """Whether the game is the SDG of :meth:`grammar` (every heap n ≥ 1 has a move).

        Notes
        -----
        In the grammar A → aᵏ (bit 1 of d_k), A → aᵏA (bit 2), A → A aᵏ A
        (bit 4), a move of the SDG from (A, aⁿ) removes k letters and leaves
        the words of the rule's nonterminals, each in L(G, A) — exactly the
        octal move, *provided* every non-empty heap aᵐ is in L(G, A), i.e. is
        a position (SPEC §2).  By induction on n, aⁿ ∈ L(G, A) iff the heap n
        has a move (its options are smaller non-empty heaps).  A heap with no
        move (𝒢 = 0, like the heap of 1 in 0.07) is not a word of the
        language, and no SDG move may land on it: then the two games differ.
        Beyond n = t + 1 the moves of n include those of t + 2, so checking
        n ≤ t + 2 decides every n.
        """
        return all(self.has_move(n) for n in range(1, self.t + 3))

    def grammar(self, *, check: bool = True) -> Grammar:
        """The unary grammar A → aᵏ | aᵏA | A aᵏ A of the game's digits (SPEC §2).

        Parameters
        ----------
        check:
            Refuse a game that is not this grammar's SDG (:meth:`is_sdg`);
            ``False`` returns the grammar anyway (its SDG then differs).

        Raises
        ------
        InputError
            When ``check`` and some heap has no move, naming it.
        """
        stuck = next((n for n in range(1, self.t + 3) if not self.has_move(n)), None)
        if check and stuck is not None:
            raise InputError(
                f"{self.code} is not an SDG on a unary grammar: a heap of {stuck} has no move, "
                f"so a^{stuck} would not be a position (every heap must have a move)")
        rules: list[Rule] = []
        for k, d in enumerate(self.digits, start=1):
            run = (_LETTER,) * k
            if d & 1:
                rules.append(Rule(_HEAD, run))
            if d & 2:
                rules.append(Rule(_HEAD, run + (_HEAD,)))
            if d & 4:
                rules.append(Rule(_HEAD, (_HEAD,) + run + (_HEAD,)))
        return Grammar(rules=rules, start=_HEAD)

    # -- values and periods ----------------------------------------------------------------

    def values(self, n: int, *, method: Method = "auto", budget: Budget = UNLIMITED,
               engine: Engine = "auto") -> Values:
        """𝒢(0), …, 𝒢(n − 1) as an int32 array.

        Parameters
        ----------
        n:
            How many values.
        method:
            ``"auto"`` (sparse where there is a sparse space, else full),
            ``"sparse"``, ``"full"`` or ``"naive"`` (:func:`naive_values`).
        budget:
            ``max_seconds`` and ``max_states`` (values) limits.
        engine:
            ``"compiled"`` (the numba kernels of :mod:`sdg_automata.kernels.octal`),
            ``"python"`` (the reference) or ``"auto"``: Python for the first
            values, the kernels from :data:`COMPILED_FROM` values on.  The
            values are the same.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(f"the number of values must be a natural number, not {n!r}")
        if method not in get_args(Method):
            raise InputError(f"unknown method {method!r} "
                             f"(choose from {', '.join(get_args(Method))})")
        if method == "naive":
            return np.array(naive_values(self, n), dtype=np.int32)
        run = _Engine(self, method=method, engine=engine)
        meter = budget.start(f"{self.code} values", unit="values")
        run.extend(n, meter)
        out: Values = run.g[:n].astype(np.int32)
        return out

    def period(self, *, max_n: int = DEFAULT_MAX_N, method: Method = "auto",
               budget: Budget = UNLIMITED, engine: Engine = "auto",
               checkpoint: str | None = None) -> OctalPeriod:
        """The least preperiod and period of 𝒢, proven by the periodicity theorem.

        Computes values until the theorem proves a period or ``max_n`` values
        are computed; in the latter case the result has ``certified=False``.

        Parameters
        ----------
        max_n:
            The most values to compute.
        method:
            How to compute values (see :meth:`values`).
        budget:
            ``max_seconds`` (raises :class:`~sdg_automata.errors.BudgetExceeded`
            saying how many values were reached) and progress.
        engine:
            Where the values are computed (see :meth:`values`); the period
            search runs compiled too once the values do.
        checkpoint:
            A file that keeps the values computed (:mod:`sdg_automata.games.octal.certificate`):
            read first when it exists (the run resumes where it stopped),
            written atomically every :data:`CHECKPOINT_SECONDS` or so, at the
            end, and when the budget or Ctrl-C stops the run.

        Notes
        -----
        **Theorem** (Guy–Smith; Winning Ways ch. 4).  If 𝒢(n + p) = 𝒢(n) for
        all n with n₀ ≤ n < 2n₀ + p + t, then for all n ≥ n₀.  Proof, by
        induction on n ≥ 2n₀ + p + t: the one-heap options n − k and n + p − k
        (k ≤ t) are ≥ n₀ and < n, so equal; a split a + b = n + p − k with
        a ≤ b has b ≥ n₀ + p, and (a, b − p) is a split of n − k with the same
        value; conversely a split a + b = n − k, a ≤ b, has b ≥ n₀ and gives
        (a, b + p).  So n and n + p have the same option values.  (We apply
        it with n₀ ≥ 1 so that b − p ≥ 1 keeps both heaps non-empty.)

        **Search.**  Candidates p are the shifts at which the last 64
        computed values recur; for each, n₀(p) = 1 + the last n with
        𝒢(n + p) ≠ 𝒢(n) among the computed values, and the theorem applies
        once N ≥ 2·max(n₀, 1) + 2p + t values are known.

        **Minimality.**  Once (n₀, p) is proven, every value is known.  The
        eventual periods are exactly the multiples of the least one, P, so P
        divides p, and a divisor d of p is an eventual period iff
        𝒢(n + d) = 𝒢(n) on one window n₀ ≤ n < n₀ + p (p-periodicity carries
        it further).  Every multiple kP has the same least preperiod as P:
        were 𝒢(n + kP) = 𝒢(n) for all n ≥ m while 𝒢(m' + P) ≠ 𝒢(m') for some
        m' ≥ m, then with j large 𝒢(m') = 𝒢(m' + jkP) = 𝒢(m' + P + jkP) =
        𝒢(m' + P) (the middle step is P-periodicity far out), absurd.  So the
        least preperiod is 1 + the last n < n₀ with 𝒢(n + P) ≠ 𝒢(n), read off
        the computed values.  (Full text: ``docs/octal.md``.)
        """
        if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
            raise InputError(f"max_n must be a positive integer, not {max_n!r}")
        if method not in get_args(Method) or method == "naive":
            raise InputError(f"periods are computed with 'auto', 'sparse' or 'full', "
                             f"not {method!r}")
        run = _Engine(self, method=method, engine=engine, compiled_from=PERIOD_COMPILED_FROM)
        saver = None if checkpoint is None else _Checkpoint(checkpoint, run)
        if saver is not None:
            budget = replace(budget, progress=saver.progress(budget.progress))
        meter = budget.start(f"{self.code} period", unit="values")
        try:
            try:
                result = self._prove(run, max_n, meter)
            except KeyboardInterrupt:  # between two kernel calls (extend has its own)
                raise meter.interrupted(run.n) from None
        except (BudgetExceeded, Interrupted):
            if saver is not None:  # keep what was computed
                saver.save()
            raise
        if saver is not None:
            saver.save()
        return result

    def _prove(self, run: _Engine, max_n: int, meter: Meter) -> OctalPeriod:
        """Extend ``run`` until the theorem proves a period or ``max_n`` values are known."""
        target = min(max_n, max(128, run.n))
        while True:
            run.extend(target, meter)
            n = run.n
            found = run.find_period()
            if found is not None and found[2] <= n:
                pre, per = run.minimize(found[0], found[1])
                return OctalPeriod(code=self.code, preperiod=pre, period=per, certified=True,
                                   checked_to=n, values=run.frozen(pre + per),
                                   sparse=run.space, computed=run.frozen(n))
            if n >= max_n:
                return OctalPeriod(code=self.code, preperiod=None, period=None, certified=False,
                                   checked_to=n, sparse=run.space, computed=run.frozen(n))
            # the plausible candidate says how many values would prove it; else grow by 1/4
            step = max(128, n // 4)
            target = min(max_n, found[2] if found is not None and found[2] < n + step else n + step)


# -- results ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SparseSpace:
    """The rare/common split used by the sparse-space method.

    A value v of heap n is *rare* when popcount(v & mask) + (n if positional
    else 0) has the parity ``rare_parity``.  ``rare`` is the number of rare
    heaps among the values computed.
    """

    mask: int
    positional: bool
    rare_parity: int
    rare: int

    def to_json(self) -> dict[str, Any]:
        """``{"mask", "positional", "rare_parity", "rare"}``."""
        return {"mask": self.mask, "positional": self.positional,
                "rare_parity": self.rare_parity, "rare": self.rare}


@dataclass(frozen=True, kw_only=True)
class OctalPeriod:
    """The eventual period of an octal game's Grundy sequence, or "not proven up to N".

    Attributes
    ----------
    code:
        The canonical code.
    preperiod, period:
        The least n₀ with 𝒢(n + p) = 𝒢(n) for every n ≥ n₀, for the least
        such p; ``None`` when not certified.
    certified:
        ``True`` when proven by the periodicity theorem, ``False`` when no
        period was proven within ``checked_to`` values (never a guess).
    checked_to:
        The number of values computed.
    values:
        𝒢(0), …, 𝒢(n₀ + p − 1) (a read-only array of the narrowest unsigned
        type that holds them; empty when not certified): with the period
        they give every value.
    sparse:
        The rare/common split used, or ``None`` (full computation).
    computed:
        All ``checked_to`` values computed (read-only; the certificate's
        source), or empty.
    """

    code: str
    preperiod: int | None
    period: int | None
    certified: bool
    checked_to: int
    values: npt.NDArray[np.integer[Any]] = field(default_factory=lambda: _EMPTY, compare=False)
    sparse: SparseSpace | None = field(default=None, compare=False)
    computed: npt.NDArray[np.integer[Any]] = field(default_factory=lambda: _EMPTY,
                                                    compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.certified != (self.preperiod is not None and self.period is not None):
            raise SdgBug("a certified period has a preperiod and a period, and only it")
        if self.period is not None and self.preperiod is not None:
            if self.period < 1 or self.preperiod < 0:
                raise SdgBug(f"impossible period {self.period} / preperiod {self.preperiod}")
            if len(self.values) != self.preperiod + self.period:
                raise SdgBug("a certified period carries its first preperiod + period values")

    def value(self, n: int) -> int:
        """𝒢(n) for any n ≥ 0, from the proven period."""
        if self.preperiod is None or self.period is None:
            raise InputError(f"{self.code} has no proven period (checked to {self.checked_to})")
        if n < 0:
            raise InputError(f"heap sizes are natural numbers, not {n}")
        if n >= self.preperiod:
            n = self.preperiod + (n - self.preperiod) % self.period
        return int(self.values[n])

    def first(self, k: int) -> list[int]:
        """𝒢(0), …, 𝒢(k − 1) from the proven period."""
        if self.preperiod is None or self.period is None:
            raise InputError(f"{self.code} has no proven period (checked to {self.checked_to})")
        idx = np.arange(k, dtype=np.int64)
        late = idx >= self.preperiod
        idx[late] = self.preperiod + (idx[late] - self.preperiod) % self.period
        out: list[int] = self.values[idx].tolist()
        return out

    def to_json(self, *, shown: int | None = None) -> dict[str, Any]:
        """``{"code", "preperiod", "period", "certified", "checked_to", "values",
        "values_total"}``: ``values`` lists the first ``shown`` values (default: the
        first preperiod + period, at most :data:`JSON_VALUES`); ``values_total`` is
        preperiod + period, the number of values that give every value (``null``
        when not certified)."""
        total = len(self.values) if self.certified else None
        k = min(total or 0, JSON_VALUES) if shown is None else shown
        return {"code": self.code, "preperiod": self.preperiod, "period": self.period,
                "certified": self.certified, "checked_to": self.checked_to,
                "values": self.first(k) if self.certified else [], "values_total": total}


#: rare heaps listed in a certificate's header at most (past that only their number)
CERTIFICATE_RARE_LIST = 1 << 16


def write_certificate(result: OctalPeriod, path: str) -> dict[str, Any]:
    """Write the certificate of a certified ``result`` to ``path`` (atomically); its header.

    The file (:mod:`sdg_automata.games.octal.certificate`, ``docs/octal.md`` §7) holds the code,
    the least preperiod n₀ and period p, the values 𝒢(0), …, 𝒢(N − 1) with
    N = 2·max(n₀, 1) + 2p + t (what the periodicity theorem needs) and, when the
    sparse-space method was in use at the end of the run, its mask and the rare
    heaps among them (the claim :func:`sdg_automata.games.octal.verify.verify` re-counts
    and then uses to check each value quickly).
    """
    if result.preperiod is None or result.period is None:
        raise InputError(f"{result.code} has no proven period (checked to "
                         f"{result.checked_to}): there is nothing to certify")
    t = len(result.code) - 2
    count = 2 * max(result.preperiod, 1) + 2 * result.period + t
    values = result.computed[:count]
    if len(values) < count:
        raise SdgBug(f"a certified period computed {len(values)} values of {count}")
    sparse: dict[str, Any] | None = None
    if result.sparse is not None:
        sp = result.sparse
        table = _parity_table(sp.mask, 1 << max(1, int(values.max()).bit_length()))
        rare = []
        for i in range(0, count, _CHUNK):
            cls = table[values[i:i + _CHUNK]]
            if sp.positional:
                cls = cls ^ (np.arange(i, i + len(cls)) & 1).astype(np.uint8)
            rare.append(np.flatnonzero(cls == sp.rare_parity) + i)
        heaps = np.concatenate(rare)
        heaps = heaps[heaps >= 1]
        sparse = {"mask": sp.mask, "positional": sp.positional, "rare_parity": sp.rare_parity,
                  "rare": len(heaps),
                  "rare_heaps": heaps.tolist() if len(heaps) <= CERTIFICATE_RARE_LIST else None}
    header = {"schema": octal_file.CERTIFICATE, "code": result.code,
              "preperiod": result.preperiod, "period": result.period,
              "theorem": "2*max(preperiod,1) + 2*period + t values", "sparse": sparse,
              "checked_to": result.checked_to, "generator": "sdg-automata"}
    octal_file.write(path, header, values)
    return header


# -- the oracle ---------------------------------------------------------------------------


def naive_values(game: OctalGame, n: int) -> list[int]:
    """𝒢(0), …, 𝒢(n − 1) straight from the definition (the tests' oracle).

    O(n²·t) in plain Python: no sparse space, no numpy.
    """
    g: list[int] = []
    for h in range(n):
        options: set[int] = set()
        for k, d in enumerate(game.digits, start=1):
            if k > h:
                break
            if d & 1 and k == h:
                options.add(0)
            if d & 2 and k < h:
                options.add(g[h - k])
            if d & 4:
                s = h - k
                options.update(g[a] ^ g[s - a] for a in range(1, s // 2 + 1))
        g.append(mex(options))
    return g


# -- the engine ---------------------------------------------------------------------------

_PYTHON_PAIRS = 32  # rare splits per heap paired in plain Python; more go to numpy
_SCAN_FIRST = 16  # common-common splits of each removal searched one by one before the index
_WINDOW = 256  # the first numpy window of common-common splits (then 4× larger each time)
_INDEX_HEAPS = 1 << 16  # the small heaps indexed by value for the search of a rare-class value
_PARTNERS = 8  # the most frequent values a searched value is paired with in the index
_PROBES = 1024  # indexed heaps tried per searched value before the plain search goes on
_DETECT = 1024  # values computed fully before the first mask detection
_SPARSE_ENOUGH = 0.25  # the rare fraction under which the sparse method may pay
_SPARSE_GAIN = 4  # "auto" falls back to the full mex when sparse visits over 1/4 of the splits
_JUDGE_FROM = 2048  # ... judged on blocks of 1024 heaps from this heap on
_KERNEL_WORK = 1 << 25  # splits a kernel visits between two returns to Python (~0.1 s)


def _parity_table(mask: int, size: int) -> npt.NDArray[np.uint8]:
    """parity(popcount(v & mask)) for v < size."""
    table: npt.NDArray[np.uint8] = (
        np.bitwise_count(np.arange(size, dtype=np.int64) & mask) & 1).astype(np.uint8)
    return table


#: values read at a time by the whole-array passes (histograms, rare lists), so that
#: their temporaries stay small next to 10⁸ one-byte values
_CHUNK = 1 << 22


def _walsh_hadamard(x: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """W[m] = Σ_v x[v]·(−1)^popcount(v & m), for len(x) a power of two."""
    w: npt.NDArray[np.int64] = x.copy()
    h = 1
    while h < len(w):
        y = w.reshape(-1, 2, h)
        a = y[:, 0, :].copy()
        y[:, 0, :] += y[:, 1, :]
        y[:, 1, :] = a - y[:, 1, :]
        h *= 2
    return w


def detect_space(g: npt.NDArray[np.integer[Any]], splits: Sequence[int]) -> SparseSpace | None:
    """The mask (and positional flag) that makes the fewest heaps rare.

    Masks range over the bits of the largest value; the heap's parity may
    join the class only when every splitting removal k has the same parity
    (then common ⊕ common lands in the rare class of heap n).  ``None`` when
    there is no split, or even the best mask leaves more than a quarter of
    the heaps rare.

    Notes
    -----
    The number of heaps of parity q whose value has an even popcount under
    the mask m is (T_q + W_q[m]) / 2, where T_q counts the heaps of parity q
    and W_q is the Walsh–Hadamard transform of their value histogram (as
    tczajka/octal-games chooses its mask): every mask is scored in
    O(V log V) for values below V.  Ties go to the plain (not positional)
    split, then to the smallest mask.
    """
    n = len(g)
    if n == 0 or not splits:
        return None
    top = 0
    for i in range(0, n, _CHUNK):
        top = max(top, int(g[i:i + _CHUNK].max()))
    size = 1 << max(1, top.bit_length())
    # hist[q, v]: how many heaps of parity q have the value v
    hist = np.zeros((2, size), dtype=np.int64)
    for i in range(0, n, _CHUNK):
        part = g[i:i + _CHUNK]
        for q in (0, 1):
            hist[q] += np.bincount(part[(i + q) & 1::2], minlength=size)
    even = [(hist[q].sum() + _walsh_hadamard(hist[q])) // 2 for q in (0, 1)]
    odd = [hist[q].sum() - even[q] for q in (0, 1)]
    best: tuple[int, int, int, int] | None = None  # (rare heaps, positional, mask, rare parity)
    kinds = [False, True] if len({k & 1 for k in splits}) == 1 else [False]
    for positional in kinds:
        rho = splits[0] & 1 if positional else 0
        # heaps of parity q are rare when popcount(v & m) ≡ rho + q·positional (mod 2)
        counts = sum(((odd if (rho ^ (q & positional)) else even)[q] for q in (0, 1)),
                     start=np.zeros(size, dtype=np.int64))[1:]
        i = int(counts.argmin())
        option = (int(counts[i]), int(positional), i + 1, rho)
        if best is None or option < best:
            best = option
    assert best is not None
    if best[0] > _SPARSE_ENOUGH * n:
        return None
    return SparseSpace(mask=best[2], positional=bool(best[1]), rare_parity=best[3], rare=best[0])


def _narrowest(value: int) -> type[np.integer[Any]]:
    """The value type of the engine's array for values up to ``value``: 1 byte per
    value while they fit in 8 bits, 2 while 16, else 4."""
    return np.uint8 if value < 1 << 8 else np.uint16 if value < 1 << 16 else np.int32


@dataclass(frozen=True)
class _ValueIndex:
    """Where to look first for a split of two common heaps worth v (``docs/octal.md`` §4).

    The heaps 1 ≤ a < :data:`_INDEX_HEAPS` grouped by value (``heaps[start[w]:start[w + 1]]``
    have the value w, ascending), and the :data:`_PARTNERS` most frequent values so far.
    A split (a, s − a) is worth v when 𝒢(s − a) = 𝒢(a) ⊕ v: trying the small heaps a whose
    value w pairs with a frequent value u = w ⊕ v finds v after about 1/freq(u) tries,
    where the plain search from a = 1 needs about 1/(freq(w)·freq(u)) — the difference is
    large when v is only the XOR of a frequent and an infrequent value (0.376).  Only a
    shortcut: every split so tried is an option, and the plain search still decides.
    """

    partners: npt.NDArray[np.int64]
    start: npt.NDArray[np.int64]
    heaps: npt.NDArray[np.int64]

    @classmethod
    def of(cls, g: npt.NDArray[np.integer[Any]], bits: int) -> _ValueIndex:
        """The index of the values ``g`` (all the values computed; below 2^``bits``)."""
        size = 1 << bits
        hist = np.zeros(size, dtype=np.int64)
        step = _CHUNK >> 6  # bincount makes an int64 copy of its input: 2 MB, not 32
        for i in range(0, len(g), step):
            hist += np.bincount(g[i:i + step], minlength=size)
        order = np.argsort(-hist, kind="stable")[:_PARTNERS]
        small = g[1:_INDEX_HEAPS]
        start = np.zeros(size + 1, dtype=np.int64)
        start[1:] = np.cumsum(np.bincount(small, minlength=size))
        return cls(partners=np.asarray(order[hist[order] > 0], dtype=np.int64), start=start,
                   heaps=np.argsort(small, kind="stable").astype(np.int64) + 1)

    def heaps_for(self, v: int) -> npt.NDArray[np.int64]:
        """The heaps a to try for v, in order (partners by frequency, then ascending), at
        most :data:`_PROBES`."""
        top = len(self.start) - 1
        parts = [self.heaps[self.start[w]:self.start[w + 1]]
                 for w in (int(u) ^ v for u in self.partners) if w < top]
        out: npt.NDArray[np.int64] = (np.concatenate(parts) if parts else self.heaps[:0])
        return out[:_PROBES]


_NO_INDEX = _ValueIndex(partners=np.zeros(0, dtype=np.int64),
                        start=np.zeros(1, dtype=np.int64), heaps=np.zeros(0, dtype=np.int64))


class _Engine:
    """Incremental 𝒢(0), 𝒢(1), … in a growing array (memory linear in N: 1 byte a value
    while they fit in 8 bits, 2 while 16, else 4), by the Python reference runners or
    the compiled kernels of :mod:`sdg_automata.kernels.octal`."""

    def __init__(self, game: OctalGame, *, method: Method, engine: Engine = "auto",
                 compiled_from: int = COMPILED_FROM) -> None:
        self.game = game
        self.compiled_from = compiled_from  # "auto" runs the kernels from so many values
        self.method = method
        self.engine = check_engine(engine)
        self.kernels: Any = None  # the compiled kernel module, once chosen
        self.g: npt.NDArray[np.integer[Any]] = np.zeros(1024, dtype=np.uint8)
        self.n = 0
        self.terminal = game.removals(1)
        self.one = game.removals(2)
        self.two = game.splits
        self.space: SparseSpace | None = None
        # a forced "sparse" switches early, so that small runs exercise it too
        self.next_detect = {"auto": _DETECT, "sparse": 64, "full": -1}[method]
        self.rare: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.rare_count = 0
        self.index = _NO_INDEX
        self.bits = 1

    def _reserve(self, n: int) -> None:
        if n > len(self.g):
            size = len(self.g)
            while size < n:
                size *= 2
            grown = np.zeros(size, dtype=self.g.dtype)
            grown[:self.n] = self.g[:self.n]
            self.g = grown

    def load(self, values: npt.NDArray[np.integer[Any]], space: SparseSpace | None,
             next_detect: int) -> None:
        """Start from ``values`` (a checkpoint's), in the state the run had then."""
        top = int(values.max()) if len(values) else 0
        self._widen(top)
        self._reserve(len(values))
        self.g[:len(values)] = values
        self.n = len(values)
        self.bits = max(1, top.bit_length())
        self.next_detect = next_detect
        self._use(space)

    def _widen(self, value: int) -> None:
        """Make the values' array hold ``value``."""
        dtype = _narrowest(value)
        if np.iinfo(dtype).max > np.iinfo(self.g.dtype).max:
            self.g = self.g.astype(dtype)

    def frozen(self, k: int) -> npt.NDArray[np.integer[Any]]:
        """The first ``k`` values, a read-only view."""
        view = self.g[:k]
        view.flags.writeable = False
        return view

    def _use(self, space: SparseSpace | None) -> None:
        """Switch to ``space`` and rebuild the rare list from the values so far."""
        self.space = space
        if space is None:
            return
        table = _parity_table(space.mask, 1 << self.bits)
        parts = []
        for i in range(0, self.n, _CHUNK):
            cls = table[self.g[i:min(self.n, i + _CHUNK)]]
            if space.positional:
                cls = cls ^ ((np.arange(i, i + len(cls)) & 1).astype(np.uint8))
            parts.append(np.flatnonzero(cls == space.rare_parity) + i)
        rare = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        rare = np.asarray(rare[rare >= 1], dtype=np.int64)  # heaps of a split are non-empty
        self.rare = np.zeros(max(1024, 2 * len(rare)), dtype=np.int64)
        self.rare[:len(rare)] = rare
        self.rare_count = len(rare)
        self.index = _ValueIndex.of(self.g[:self.n], self.bits)

    def extend(self, n: int, meter: Meter) -> None:
        """Compute values up to 𝒢(n − 1)."""
        self._reserve(n)
        if self.kernels is None and use_compiled(self.engine, work=n,
                                                       threshold=self.compiled_from):
            with held_signals():
                from ...kernels import octal as kernels

            self.kernels = kernels
        try:
            while self.n < n:
                if self.n == self.next_detect and self.method != "full":
                    self._detect()
                stop = n if self.next_detect <= self.n else min(n, self.next_detect)
                self._run(stop, meter)
        except KeyboardInterrupt:
            raise meter.interrupted(self.n) from None

    def _detect(self) -> None:
        space = detect_space(self.g[:self.n], self.two)
        if space is None and self.method == "sparse" and self.two:
            # forced: the plain parity mask still answers exactly, only slower
            space = SparseSpace(mask=1, positional=False, rare_parity=0, rare=0)
        self._use(space)
        self.next_detect = self.n * 4  # re-detect as the values grow

    def _run(self, stop: int, meter: Meter) -> None:
        # no splits: one-heap moves only; splits without a sparse space: every split
        kind = "one-heap" if not self.two else "full" if self.space is None else "sparse"
        if self.kernels is not None:
            self._compiled(kind, stop, meter)
        else:
            _RUNNERS[kind](self, stop, meter)

    def _grow_bits(self, value: int) -> None:
        if value >> self.bits:
            self.bits = value.bit_length()

    # -- the Python reference -------------------------------------------------------------

    def _store(self, h: int, v: int) -> npt.NDArray[np.integer[Any]]:
        """𝒢(h) = v, widening the array when v needs it; the array (maybe new)."""
        if v > 255:
            self._widen(v)
        self.g[h] = v
        return self.g

    def _run_one_heap(self, stop: int, meter: Meter) -> None:
        gl = self.g[:self.n].tolist()
        due = meter.due
        for h in range(self.n, stop):
            options = {gl[h - k] for k in self.one if k < h}
            if h in self.terminal:
                options.add(0)
            v = mex(options)
            gl.append(v)
            self._store(h, v)
            self._grow_bits(v)
            if h >= due:
                due = meter.check(h)
        self.n = stop

    def _run_full(self, stop: int, meter: Meter) -> None:
        g = self.g
        seen = np.zeros((1 << self.bits) + 1, dtype=bool)
        due = meter.due
        for h in range(self.n, stop):
            seen[:] = False
            for k in self.one:
                if k < h:
                    seen[g[h - k]] = True
            if h in self.terminal:
                seen[0] = True
            for k in self.two:
                s = h - k
                half = s // 2
                if half >= 1:
                    seen[g[1:half + 1] ^ g[s - half:s][::-1]] = True
            v = int(seen.argmin())
            g = self._store(h, v)
            if v >> self.bits:
                self._grow_bits(v)
                seen = np.zeros((1 << self.bits) + 1, dtype=bool)
            if h >= due:
                due = meter.check(h)
        self.n = stop

    def _run_sparse(self, stop: int, meter: Meter) -> None:
        """The sparse-space method, one heap at a time, options as bits of a Python int.

        Few rare heaps are paired in plain Python (a numpy call costs more than
        dozens of XORs); many go through one numpy table.  A rare-class value
        below the common mex is searched among the common-common splits only
        until it turns up: the first few of each removal one by one, then the
        splits :class:`_ValueIndex` proposes, then all of them by numpy in
        windows growing 4× at a time (a heap whose value really is rare needs
        all of them).
        """
        space = self.space
        assert space is not None
        g = self.g
        gl: list[int] = g[:self.n].tolist()
        rare: list[int] = self.rare[:self.rare_count].tolist()
        positional = space.positional
        rho = space.rare_parity
        mask = space.mask
        one, two, terminal = self.one, self.two, self.terminal
        table: tuple[npt.NDArray[np.int64], Values] | None = None
        table_rare = -1
        began = self.n
        work = full_work = 0  # splits visited, and what the full mex would have visited
        block = self.n  # where the block of heaps being judged began
        due = meter.due
        for h in range(self.n, stop):
            flip = (h & 1) if positional else 0
            marks = 0
            for k in one:
                if k < h:
                    marks |= 1 << gl[h - k]
            if h in terminal:
                marks |= 1
            if len(rare) * len(two) <= _PYTHON_PAIRS or h < rare[-1] + self.game.t + 2:
                for k in two:
                    s = h - k
                    for r in rare:
                        if r >= s:
                            break
                        marks |= 1 << (gl[r] ^ gl[s - r])
            else:  # every rare heap fits in every split: one numpy table
                if table is None or table_rare != len(rare):
                    table, table_rare = self._rare_table(rare), len(rare)
                offsets, first = table
                for x in np.bincount(g[offsets + h] ^ first).nonzero()[0].tolist():
                    marks |= 1 << x
            scanned = [0] * len(two)
            probes = 0
            while True:
                v = (~marks & (marks + 1)).bit_length() - 1  # the least value not an option
                # a common-class value missing from the options is the mex
                if ((v & mask).bit_count() & 1) ^ flip != rho:
                    break
                # a rare-class value: search the common-common splits until v turns up,
                # (1) the first few of each removal one by one,
                for i, k in enumerate(two):
                    s = h - k
                    a, top = scanned[i], min((h - k) // 2, _SCAN_FIRST)
                    while a < top:
                        a += 1
                        x = gl[a] ^ gl[s - a]
                        marks |= 1 << x
                        if x == v:
                            break
                    scanned[i] = a
                    if marks >> v & 1:
                        break
                if marks >> v & 1:
                    continue
                # (2) the small heaps the index pairs with a frequent value to make v,
                tried = self.index.heaps_for(v)
                for k in two:
                    a_all = tried[tried < h - k]
                    x_all = g[a_all] ^ g[h - k - a_all]
                    for x in np.bincount(x_all).nonzero()[0].tolist():
                        marks |= 1 << x
                probes += len(tried) * len(two)
                # (3) then every split, by numpy in windows growing 4× at a time (a heap
                # whose value really is rare needs all of them)
                while not marks >> v & 1:
                    more = False
                    for i, k in enumerate(two):
                        s = h - k
                        half = s // 2
                        a = scanned[i]
                        if a >= half:
                            continue
                        more = True
                        top = min(half, max(_WINDOW, 4 * a))
                        x_all = g[a + 1:top + 1] ^ g[s - top:s - a][::-1]
                        for x in np.bincount(x_all).nonzero()[0].tolist():
                            marks |= 1 << x
                        scanned[i] = top
                        if marks >> v & 1:
                            break
                    if not more:
                        break
                if not marks >> v & 1:
                    break  # no split is worth v: it is the mex
            gl.append(v)
            g = self._store(h, v)
            if h >= 1 and ((v & mask).bit_count() & 1) ^ flip == rho:
                rare.append(h)
            work += len(rare) * len(two) + sum(scanned) + probes
            full_work += len(two) * (h // 2)
            if h >= due:
                due = meter.check(h)
            if h & 1023 == 0:
                if (self.method == "auto" and h >= _JUDGE_FROM and h - block >= 1024
                        and work * _SPARSE_GAIN > full_work):
                    # over a whole block the rare values were not rare enough: the full
                    # mex is cheaper until the next detection, which may find a better mask
                    # (below _JUDGE_FROM numpy's per-call cost, not the splits visited,
                    # decides, and either method is quick)
                    self.space, stop = None, h + 1
                    break
                work = full_work = 0
                block = h
        self.n = stop
        self.rare = np.array(rare, dtype=np.int64)
        self.rare_count = len(rare)
        if stop > began:
            self.bits = max(self.bits, int(g[began:stop].max()).bit_length())

    def _rare_table(self, rare: list[int]) -> tuple[npt.NDArray[np.int64], Values]:
        """Offsets and rare-heap values of every rare split, for all splitting k at once:
        heap n reads ``g[offsets + n] ^ first``."""
        base = np.array(rare, dtype=np.int64)
        ks = np.array(self.two, dtype=np.int64)
        offsets = (-ks[:, None] - base[None, :]).ravel()
        first: Values = np.tile(self.g[base], len(ks))
        return offsets, first

    # -- the compiled kernels -------------------------------------------------------------

    def _compiled(self, kind: str, stop: int, meter: Meter) -> None:
        """The runner ``kind`` by its kernel, returning to Python every ~0.1–0.2 s
        (:data:`_KERNEL_WORK` splits) for the budget, the progress and Ctrl-C."""
        k = self.kernels
        one = np.array(self.one, dtype=np.int64)
        two = np.array(self.two, dtype=np.int64)
        terminal = np.zeros(self.game.t + 1, dtype=np.bool_)
        terminal[list(self.terminal)] = True
        seen = np.full((1 << self.bits) + 1, -1, dtype=np.int64)
        while self.n < stop:
            vmax = int(np.iinfo(self.g.dtype).max)
            with held_signals():  # the first call compiles or loads the kernel: not to break
                if kind == "sparse":
                    sp = self.space
                    assert sp is not None
                    reached, status, extra, self.rare_count = k.run_sparse(
                        self.g, self.n, stop, self.rare, self.rare_count, sp.mask,
                        sp.positional, sp.rare_parity, one, two, terminal, seen, vmax,
                        _KERNEL_WORK, self.method == "auto", _JUDGE_FROM, _SPARSE_GAIN,
                        self.index.partners, self.index.start, self.index.heaps, _SCAN_FIRST,
                        _PROBES)
                else:  # "full", or "one-heap": the full mex with no splits
                    reached, status, extra = k.run_full(self.g, self.n, stop, one, two,
                                                        terminal, seen, vmax, _KERNEL_WORK)
            self.n = int(reached)
            if status == k.GROW:
                self._grow_bits(int(extra))
                seen = np.full((1 << self.bits) + 1, -1, dtype=np.int64)
            elif status == k.WIDEN:
                self._widen(int(extra))
            elif status == k.RARE_FULL:
                self.rare = np.concatenate([self.rare, np.zeros(max(1024, len(self.rare)),
                                                                dtype=np.int64)])
            elif status == k.FALLBACK:
                self.space = None  # as the reference: the full mex until the next detection
                return
            meter.check(self.n)

    def find_period(self) -> tuple[int, int, int] | None:
        """:func:`find_period` of the values so far (compiled when the values are)."""
        if self.kernels is None:
            return find_period(self.g[:self.n], self.game.t)
        w = min(_MATCH, self.n // 4)
        if w < 1:
            return None
        with held_signals():  # as in _compiled
            n0, p, need = self.kernels.find_period(self.g, self.n, self.game.t, w)
        return None if p < 0 else (int(n0), int(p), int(need))

    def minimize(self, n0: int, p: int) -> tuple[int, int]:
        """:func:`minimize` (compiled when the values are)."""
        if self.kernels is None:
            return minimize(self.g[:self.n], n0, p)
        with held_signals():  # as in _compiled
            period = int(self.kernels.first_period(self.g, n0, p,
                                                   np.array(_divisors(p), dtype=np.int64)))
            return int(self.kernels.last_exception(self.g, n0, period)) + 1, period


class _Checkpoint:
    """The values of ``run`` kept in the file ``path`` (an ``octal-checkpoint/1`` file)."""

    def __init__(self, path: str, run: _Engine) -> None:
        self.path, self.run = path, run
        self.interval = CHECKPOINT_SECONDS
        self.saved_at = time.monotonic()
        if os.path.exists(path):
            self._load()

    def _load(self) -> None:
        file = octal_file.read(self.path, schema=octal_file.CHECKPOINT)
        head, game = file.header, self.run.game
        if head.get("code") != game.code:
            raise InputError(f"the checkpoint {self.path!r} is of {head.get('code')!r}, "
                             f"not {game.code}")
        space = head.get("space")
        try:
            sparse = None if space is None else SparseSpace(**space)
            self.run.load(file.values, sparse, int(head["next_detect"]))
        except (TypeError, KeyError, ValueError):
            raise InputError(f"the checkpoint {self.path!r} has a malformed header") from None

    def progress(self, inner: Callable[[int], None] | None) -> Callable[[int], None]:
        """The progress callback that also saves every so often (``count`` values are
        complete whenever a runner reports it)."""
        def report(count: int) -> None:
            if inner is not None:
                inner(count)
            if time.monotonic() - self.saved_at >= self.interval:
                self.save(count)
        return report

    def save(self, count: int | None = None) -> None:
        """Write the first ``count`` values (default: all), atomically."""
        run = self.run
        n = run.n if count is None else count
        began = time.monotonic()
        octal_file.write(self.path, {
            "schema": octal_file.CHECKPOINT, "code": run.game.code, "method": run.method,
            "space": None if run.space is None else run.space.to_json(),
            "next_detect": max(run.next_detect, n) if run.next_detect >= 0 else -1,
        }, run.g[:n], level=1)
        self.saved_at = time.monotonic()
        self.interval = max(CHECKPOINT_SECONDS, 10 * (self.saved_at - began))


_RUNNERS: dict[str, Callable[[_Engine, int, Meter], None]] = {
    "one-heap": _Engine._run_one_heap,
    "full": _Engine._run_full,
    "sparse": _Engine._run_sparse,
}


# -- periods ------------------------------------------------------------------------------

_MATCH = 64  # the trailing window whose recurrences propose periods


def find_period(g: npt.NDArray[np.integer[Any]], t: int) -> tuple[int, int, int] | None:
    """A candidate (n₀, p, N) from the computed values, or ``None``.

    p is the least shift at which the last values recur and that has held for
    at least one full period; n₀ = 1 + its last exception in ``g``; N =
    2·max(n₀, 1) + 2p + t is the number of values that would prove it (the
    theorem holds when ``len(g) >= N``).
    """
    n = len(g)
    w = min(_MATCH, n // 4)
    if w < 1:
        return None
    tail = g[n - w:]
    cand = np.arange(1, n - w + 1)  # shifts p
    for j in range(w):
        cand = cand[g[n - w + j - cand] == tail[j]]
        if not len(cand):
            return None
    for p in cand.tolist():
        bad = np.flatnonzero(g[p:] != g[:n - p])
        n0 = int(bad[-1]) + 1 if len(bad) else 0
        if n - p - n0 >= p:  # held for a full period at least: worth proving
            return n0, p, 2 * max(n0, 1) + 2 * p + t
    return None


def minimize(g: npt.NDArray[np.integer[Any]], n0: int, p: int) -> tuple[int, int]:
    """The least preperiod and period, given a proven (n₀, p) and the values up to n₀ + 2p."""
    period = next(d for d in _divisors(p)
                  if np.array_equal(g[n0 + d:n0 + d + p], g[n0:n0 + p]))
    bad = np.flatnonzero(g[period:n0 + period] != g[:n0])
    return (int(bad[-1]) + 1 if len(bad) else 0), period


def _divisors(p: int) -> list[int]:
    small = [d for d in range(1, int(p ** 0.5) + 1) if p % d == 0]
    return sorted(set(small + [p // d for d in small]))


# -- survey -------------------------------------------------------------------------------


def codes(digits: int) -> Iterator[str]:
    """Every canonical code with 1 … ``digits`` digits, in numeric order."""
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise InputError(f"the number of digits must be a positive integer, not {digits!r}")
    for length in range(1, digits + 1):
        for i in range(8 ** length):
            ds = [(i >> (3 * (length - 1 - j))) & 7 for j in range(length)]
            if ds[-1]:
                yield "0." + "".join(map(str, ds))


#: the fields of a survey row, in the order CSV shows them
SURVEY_COLUMNS = ("key", "status", "code", "preperiod", "period", "certified", "checked_to",
                  "mask", "positional", "rare", "seconds", "error")


@dataclass(frozen=True, kw_only=True)
class SurveyRow:
    """One code of a survey (a :class:`~sdg_automata.sweeps.runner.Row`): its period or why not.

    ``status`` is ``"ok"`` when the job finished (certified or open up to
    ``checked_to``), ``"budget"`` or ``"error"`` when it did not (``error``
    says why; ``result`` is then ``None``).
    """

    code: str
    status: Status
    result: OctalPeriod | None = None
    seconds: float = field(default=0.0, compare=False)
    error: str | None = None

    @property
    def key(self) -> str:
        """The code: what a resumed survey matches."""
        return self.code

    def to_json(self) -> dict[str, Any]:
        """The :data:`SURVEY_COLUMNS`, without the values (``null`` where unknown)."""
        r, sp = self.result, self.result.sparse if self.result else None
        return {"key": self.code, "status": self.status, "code": self.code,
                "preperiod": r and r.preperiod, "period": r and r.period,
                "certified": r.certified if r else None,
                "checked_to": r.checked_to if r else None,
                "mask": sp.mask if sp else None, "positional": sp.positional if sp else None,
                "rare": sp.rare if sp else None, "seconds": round(self.seconds, 4),
                "error": self.error}


def survey_row(job: tuple[str, int, Engine], meter: Meter) -> SurveyRow:
    """The sweep's work: :meth:`OctalGame.period` of one (code, max_n, engine), timed."""
    code, max_n, engine = job
    budget, seconds = meter.budget, meter.budget.max_seconds
    if seconds is not None:  # stop before the sweep's own deadline, to say how far
        budget = replace(budget, max_seconds=seconds - min(_SURVEY_MARGIN * seconds, 5.0))
    # the values reached, as progress reports them, are the job meter's count: should the
    # sweep's own deadline (its alarm) stop the engine first, or this row as it is built,
    # the sweep's row (survey_failed) says how far it got all the same
    inner = budget.progress

    def report(count: int) -> None:
        meter.count = count
        if inner is not None:
            inner(count)

    try:
        result = OctalGame.parse(code).period(max_n=max_n, engine=engine,
                                              budget=replace(budget, progress=report))
    except BudgetExceeded as e:  # open as far as it got: the row says how far
        return _open_row(code, max(e.explored, meter.count), str(e), meter.elapsed)
    return SurveyRow(code=code, status="ok", result=result, seconds=meter.elapsed)


def survey_failed(job: tuple[str, int, Engine], status: Status, message: str,
                  reached: int) -> SurveyRow:
    """The sweep's row for a job over its budget (open as far as the ``reached`` values)
    or failed."""
    if status == "budget":
        return _open_row(job[0], reached, message, 0.0)
    return SurveyRow(code=job[0], status=status, error=message)


def _open_row(code: str, reached: int, why: str, seconds: float) -> SurveyRow:
    """A code stopped at its budget: open as far as the ``reached`` values (which ``why``
    says, unless the engine's own message did)."""
    if not why.endswith(f"({reached} values reached)"):
        why = f"{why}, {reached} values reached"
    result = OctalPeriod(code=code, preperiod=None, period=None, certified=False,
                         checked_to=reached)
    return SurveyRow(code=code, status="budget", result=result, seconds=seconds, error=why)


def _brief(row: dict[str, Any]) -> dict[str, str]:
    """A row as the short cells of a terminal table ("open" when not proven up to N)."""
    def cell(value: Any) -> str:
        return "" if value is None else str(value)

    if row["status"] != "ok":
        first = row["status"]
    elif not row["certified"]:
        first = "open"
    else:
        first = cell(row["preperiod"])
    return {"code": row["code"], "preperiod": first, "period": cell(row["period"]),
            "values": cell(row["checked_to"]), "seconds": f"{row['seconds']:.3f}"}


def load_kernels(engine: Engine = "compiled", max_n: int = COMPILED_FROM) -> None:
    """Import numba and load the octal kernels for every value type (about a second once;
    several on a cold cache, when they are compiled), if ``engine`` would use them for
    ``max_n`` values.

    A survey calls it before its codes run, here or in worker processes that fork
    from here, so that they start with the kernels loaded: the one-off cost then
    counts in no code's budget (it used to stop whichever code first reached
    :data:`COMPILED_FROM` values in each worker, and on a cold cache the first
    codes of all).  The calls do no work.
    """
    if not use_compiled(engine, work=max_n, threshold=COMPILED_FROM):
        return
    from ...kernels import octal as k

    i64, seen = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    terminal = np.zeros(1, dtype=np.bool_)
    with held_signals():
        for dtype in (np.uint8, np.uint16, np.int32):
            g = np.zeros(2, dtype=dtype)
            k.run_sparse(g, 0, 0, i64, 0, 1, False, 0, i64, i64, terminal, seen, 0, 1, True, 0,
                         1, i64, i64, i64, 0, 0)
            k.run_full(g, 0, 0, i64, i64, terminal, seen, 0, 1)
            k.find_period(g, 0, 0, 1)
            k.first_period(g, 0, 1, i64)
            k.last_exception(g, 0, 1)


def survey_sweep(digits: int, *, max_n: int = SURVEY_MAX_N,
                 engine: Engine = "auto") -> Sweep[tuple[str, int, Engine]]:
    """Every code of up to ``digits`` digits as a sweep (:mod:`sdg_automata.sweeps.runner`).

    Run it with :func:`~sdg_automata.sweeps.runner.run_sweep` on any executor, or on
    the command line with ``octal survey``.
    """
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise InputError(f"max_n must be a positive integer, not {max_n!r}")
    check_engine(engine)
    return Sweep(name="octal games", jobs=[(c, max_n, engine) for c in codes(digits)],
                 key=_job_key, work=survey_row, failed=survey_failed, columns=SURVEY_COLUMNS,
                 brief=_brief, unit="values")


def _job_key(job: tuple[str, int, Engine]) -> str:
    return job[0]


def survey(digits: int, *, max_n: int = SURVEY_MAX_N, executor: Executor | None = None,
           budget: Budget = UNLIMITED, engine: Engine = "auto") -> list[dict[str, Any]]:
    """The rows of :func:`survey_sweep`, in code order.

    Parameters
    ----------
    digits:
        The most digits (2 or 3 in practice: 63 and 511 codes).
    max_n:
        Values per code before it is reported open ("not proven up to N").
    executor:
        Where the codes run (a process pool, a Dask executor); ``None``: here.
    budget:
        The per-code budget; a code over it is a row with status ``"budget"``.
    engine:
        Where each code's values are computed (see :meth:`OctalGame.values`).
    """
    sweep = survey_sweep(digits, max_n=max_n, engine=engine)
    load_kernels(engine, max_n)  # before any code's budget starts (or a local pool forks)
    rows: dict[str, dict[str, Any]] = {}
    run_sweep(sweep, lambda row: rows.__setitem__(row["key"], row), executor=executor,
              budget=budget)
    return [rows[c] for c, _, _ in sweep.jobs]
