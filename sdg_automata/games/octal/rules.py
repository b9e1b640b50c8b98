"""Take-and-break games ``0.d₁d₂…d_t``: octal and hexadecimal codes, their rules, their grammar.

An octal game ``0.d₁d₂…d_t`` (digits 0–7) is played on heaps of tokens: a
move removes k tokens from one heap, which is allowed leaving no heap when
bit 1 of d_k is set, one non-empty heap when bit 2 is set, and two non-empty
heaps when bit 4 is set.  A *hexadecimal* code has digits 0–F, and bit 8 of
d_k allows leaving three non-empty heaps (Winning Ways, ch. 4; Howse and
Nowakowski, "Periodicity and arithmetic-periodicity in hexadecimal games",
TCS 313, 2004): ``0.3F`` removes one token leaving 0 or 1 heaps, or two tokens
leaving 0, 1, 2 or 3 heaps.  Heaps are independent, so a position's Grundy
number is the XOR of its heaps' values 𝒢(n), and 𝒢(0) = 0.  Kayles is 0.77,
Dawson's Kayles 0.07, Dawson's chess 0.137 (the full reference, with the
proofs, is ``docs/octal.md``; the SDG encoding is SPEC §2).

:class:`OctalGame` validates a code once and is the entry point: its
:meth:`~OctalGame.values` come from :mod:`sdg_automata.games.octal.values` and its
:meth:`~OctalGame.period`, proven by the periodicity theorem (for three-heap splits
in its hexadecimal form, ``docs/octal.md`` §2), from
:mod:`sdg_automata.games.octal.period`.

The references (Winning Ways, Guy–Smith) are listed by :mod:`sdg_automata.games.octal`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import InputError
from ...grammar import Grammar, Rule
from ...runtime.budget import UNLIMITED, Budget
from ...runtime.engines import Engine
from .period import DEFAULT_MAX_N, OctalPeriod, prove
from .values import Method, Values, compute

__all__ = ["HEX_DIGITS", "OctalGame"]

_CODE = re.compile(r"0?\.([0-9A-Fa-f]+)")
#: the digits of a code, 0–F (a code with a digit 8–F is hexadecimal)
HEX_DIGITS = "0123456789ABCDEF"
_LETTER = "a"
_HEAD = "A"


@dataclass(frozen=True, kw_only=True)
class OctalGame:
    """The octal or hexadecimal game ``0.d₁d₂…d_t``, validated once.

    Parameters
    ----------
    digits:
        d₁, …, d_t, each 0–15 (0–7 for an octal game; 8–15, written 8–F, also
        allow leaving three heaps), the last one non-zero (trailing zeros say
        nothing and are dropped by :meth:`parse`, not here).

    Raises
    ------
    InputError
        For a digit outside 0–15, no digits, or a last digit 0.

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

    A hexadecimal code may split a heap in three:

    >>> OctalGame.parse("0.3f").code, OctalGame.parse("0.3F").heaps
    ('0.3F', 3)
    >>> OctalGame(digits=(16,))
    Traceback (most recent call last):
    ...
    sdg_automata.errors.InputError: code digits are 0-15 (hexadecimal 0-F), not 16
    """

    digits: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.digits:
            raise InputError("an octal game needs at least one digit")
        for d in self.digits:
            if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 15:
                raise InputError(f"code digits are 0-15 (hexadecimal 0-F), not {d!r}")
        if self.digits[-1] == 0:
            raise InputError(f"the last digit of {self.code} must be non-zero "
                             f"(a take-and-break game needs at least one move)")

    @classmethod
    def parse(cls, text: str) -> OctalGame:
        """Read ``0.d₁d₂…`` or ``.d₁d₂…`` (digits 0–9, A–F in either case); trailing
        zeros are dropped.

        >>> OctalGame.parse(".0770").code
        '0.077'
        """
        m = _CODE.fullmatch(text.strip())
        if m is None:
            raise InputError(f"{text!r} is not an octal or hexadecimal game code (0.d1d2... "
                             f"with digits 0-7, or 0-F to split heaps in three, e.g. 0.77, .07 "
                             f"or 0.3F)")
        digits = m.group(1).rstrip("0")
        if not digits:
            raise InputError(f"{text!r} has no non-zero digit: no move is allowed")
        return cls(digits=tuple(int(c, 16) for c in digits))

    @property
    def code(self) -> str:
        """The canonical code ``0.d₁…d_t`` (hexadecimal digits in upper case)."""
        return "0." + "".join(HEX_DIGITS[d] for d in self.digits)

    def __str__(self) -> str:
        return self.code

    @property
    def t(self) -> int:
        """The largest removal (the number of digits)."""
        return len(self.digits)

    def removals(self, bit: int) -> tuple[int, ...]:
        """The k with ``bit`` (1: no heap left, 2: one heap, 4: two heaps, 8: three heaps)
        in d_k."""
        return tuple(k for k, d in enumerate(self.digits, start=1) if d & bit)

    @property
    def splits(self) -> tuple[int, ...]:
        """The removals that may leave two heaps."""
        return self.removals(4)

    @property
    def triples(self) -> tuple[int, ...]:
        """The removals that may leave three heaps (hexadecimal digits 8–F)."""
        return self.removals(8)

    @property
    def heaps(self) -> int:
        """The most heaps a move may leave, counted as the periodicity theorem needs them:
        3 with a digit 8–F, else 2 (an octal game; one-heap games too, conservatively)."""
        return 3 if self.triples else 2

    @property
    def hexadecimal(self) -> bool:
        """Whether a digit is 8–F (a move may leave three heaps)."""
        return bool(self.triples)

    def has_move(self, n: int) -> bool:
        """Whether a heap of n tokens has a move."""
        return any((d & 1 and k == n) or (d & 2 and k < n) or (d & 4 and k <= n - 2)
                   or (d & 8 and k <= n - 3) for k, d in enumerate(self.digits, start=1))

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
        From n = t + 3 on every removal of a digit with bit 2, 4 or 8 is a move, so
        checking n ≤ t + 3 decides every n.
        """
        return all(self.has_move(n) for n in range(1, self.t + 4))

    def grammar(self, *, check: bool = True) -> Grammar:
        """The unary grammar A → aᵏ | aᵏA | A aᵏ A | A aᵏ A A of the game's digits (SPEC §2).

        Bit 8 (three heaps) is the rule A → A aᵏ A A: its split of aⁿ leaves the three
        parts x, y, z ≥ 1 with x + k + y + z = n, every composition of n − k.

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
        stuck = next((n for n in range(1, self.t + 4) if not self.has_move(n)), None)
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
            if d & 8:
                rules.append(Rule(_HEAD, (_HEAD,) + run + (_HEAD, _HEAD)))
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
            ``"sparse"``, ``"full"`` or ``"naive"``
            (:func:`~sdg_automata.games.octal.values.naive_values`).
        budget:
            ``max_seconds`` and ``max_states`` (values) limits.
        engine:
            ``"compiled"`` (the numba kernels of :mod:`sdg_automata.kernels.octal`),
            ``"python"`` (the reference) or ``"auto"``: Python for the first
            values, the kernels from
            :data:`~sdg_automata.games.octal.values.COMPILED_FROM` values on.  The
            values are the same.
        """
        return compute(self, n, method=method, budget=budget, engine=engine)

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
            A file that keeps the values computed (:mod:`sdg_automata.games.octal.checkpoint`):
            read first when it exists (the run resumes where it stopped),
            written atomically every
            :data:`~sdg_automata.games.octal.checkpoint.CHECKPOINT_SECONDS` or so, at the
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

        **Hexadecimal codes** (a move may leave three heaps): the same induction
        from n ≥ 3·max(n₀, 1) + 2p + t — the largest of three heaps summing to
        n + p − k is ≥ (n + p − k)/3 ≥ max(n₀, 1) + p — so 3·max(n₀, 1) + 3p + t
        values suffice; we require 3n₀ + 3p + t + 3 (≥ that), the bound CGSuite's
        take-and-break checker uses for three heaps (``docs/octal.md`` §2).

        **Search.**  Candidates p are the shifts at which the last 64
        computed values recur; for each, n₀(p) = 1 + the last n with
        𝒢(n + p) ≠ 𝒢(n) among the computed values, and the theorem applies
        once N ≥ 2·max(n₀, 1) + 2p + t values are known (3n₀ + 3p + t + 3 for a
        hexadecimal code).

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
        return prove(self, max_n=max_n, method=method, budget=budget, engine=engine,
                     checkpoint=checkpoint)
