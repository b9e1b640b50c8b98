"""The values 𝒢(0), …, 𝒢(N − 1) of an octal game: the definition, the full mex, the sparse space.

Three routes compute the values, all exact (``docs/octal.md`` §4):

* :func:`naive_values` — the definition, in plain Python, O(N²·t): the oracle
  of the tests.
* ``"full"`` — the same mex over every option, each heap's splits XORed in
  one numpy operation: still O(N²) work, the fallback when there is no sparse
  space.
* three-heap splits (hexadecimal codes) — the mex over every option, the values of
  the three-heap splits of s read off the table of two-heap XORs of every m < s
  (a split (a, b, c) is a heap a and a two-heap split of b + c), O(s·V) numpy work
  for values below V; Python only (the kernels of :mod:`sdg_automata.kernels.octal`
  do not split in three: a run that would use them runs here after one
  :class:`~sdg_automata.errors.EngineNotice`), and never the sparse space, whose
  lemma fails for three heaps (the XOR of three common values is common).
* ``"sparse"`` — the sparse-space method (:mod:`sdg_automata.games.octal.space`):
  every common-class option of a heap comes from a one-heap move or from a
  split with a rare part — few, and all enumerated.  The mex among rare-class
  values is settled by searching the common–common splits only until each
  rare value below the common candidate is found, which is almost at once;
  only a heap whose value really is rare needs the whole search.  The mask is
  detected from the values themselves, and a wrong or useless mask makes the
  method slow, never wrong.  ``"auto"`` also watches how many splits it visits
  per block of heaps and runs the full mex instead until the next detection
  when the rare values are not rare enough (Officers, 0.6).

:class:`_Engine` runs them incrementally, by its Python reference runners or by
the compiled kernels of :mod:`sdg_automata.kernels.octal` (the same values).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

import numpy as np
import numpy.typing as npt

from ...errors import EngineNotice, InputError
from ...runtime.budget import Budget, Meter
from ...runtime.engines import THRESHOLDS, Engine, check_engine, use_compiled
from ...runtime.stopping import held_signals
from ..mex import mex
from .space import CHUNK, SparseSpace, detect_space, rare_heaps

__all__ = ["COMPILED_FROM", "Method", "Rules", "load_kernels", "naive_values"]

Method = Literal["auto", "sparse", "full", "naive"]

#: ``engine="auto"`` computes the first values in Python and switches to the compiled
#: kernels once a run asks for this many (:data:`sdg_automata.runtime.engines.THRESHOLDS`
#: says why)
COMPILED_FROM = THRESHOLDS["octal values"]
Values = npt.NDArray[np.int32]


class Rules(Protocol):
    """What the value engine reads of a game: :class:`~sdg_automata.games.octal.rules.OctalGame`."""

    @property
    def code(self) -> str:
        """The canonical code ``0.d₁…d_t``."""

    @property
    def digits(self) -> tuple[int, ...]:
        """d₁, …, d_t."""

    @property
    def t(self) -> int:
        """The largest removal."""

    @property
    def splits(self) -> tuple[int, ...]:
        """The removals that may leave two heaps."""

    @property
    def triples(self) -> tuple[int, ...]:
        """The removals that may leave three heaps (hexadecimal digits 8–F)."""

    @property
    def heaps(self) -> int:
        """The most heaps a move may leave, as the periodicity theorem counts them (2 or 3)."""

    def removals(self, bit: int) -> tuple[int, ...]:
        """The k with ``bit`` (1: no heap left, 2: one heap, 4: two heaps, 8: three heaps)
        in d_k."""


# -- the oracle ---------------------------------------------------------------------------


def naive_values(game: Rules, n: int) -> list[int]:
    """𝒢(0), …, 𝒢(n − 1) straight from the definition (the tests' oracle).

    O(n²·t) in plain Python (O(n³·t) with three-heap splits): no sparse space, no
    numpy.
    """
    g: list[int] = []
    for h in range(n):
        options: set[int] = set()
        for k, d in enumerate(game.digits, start=1):
            if k > h:
                break
            s = h - k
            if d & 1 and k == h:
                options.add(0)
            if d & 2 and k < h:
                options.add(g[s])
            if d & 4:
                options.update(g[a] ^ g[s - a] for a in range(1, s // 2 + 1))
            if d & 8:  # a ≤ b ≤ c, a + b + c = s
                options.update(g[a] ^ g[b] ^ g[s - a - b] for a in range(1, s // 3 + 1)
                               for b in range(a, (s - a) // 2 + 1))
        g.append(mex(options))
    return g


def compute(game: Rules, n: int, *, method: Method, budget: Budget, engine: Engine) -> Values:
    """:meth:`OctalGame.values <sdg_automata.games.octal.rules.OctalGame.values>`: the
    arguments checked, 𝒢(0), …, 𝒢(n − 1) as an int32 array."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"the number of values must be a natural number, not {n!r}")
    if method not in get_args(Method):
        raise InputError(f"unknown method {method!r} "
                         f"(choose from {', '.join(get_args(Method))})")
    if method == "naive":
        return np.array(naive_values(game, n), dtype=np.int32)
    if method == "sparse" and game.triples:
        raise InputError(f"the sparse-space method does not apply to {game.code}: a move may "
                         "leave three heaps, and the XOR of three common values is common "
                         "(use 'auto' or 'full')")
    run = _Engine(game, method=method, engine=engine)
    meter = budget.start(f"{game.code} values", unit="values")
    run.extend(n, meter)
    out: Values = run.g[:n].astype(np.int32)
    return out


# -- the engine ---------------------------------------------------------------------------

_PYTHON_PAIRS = 32  # rare splits per heap paired in plain Python; more go to numpy
_SCAN_FIRST = 16  # common-common splits of each removal searched one by one before the index
_WINDOW = 256  # the first numpy window of common-common splits (then 4× larger each time)
_INDEX_HEAPS = 1 << 16  # the small heaps indexed by value for the search of a rare-class value
_PARTNERS = 8  # the most frequent values a searched value is paired with in the index
_PROBES = 1024  # indexed heaps tried per searched value before the plain search goes on
_DETECT = 1024  # values computed fully before the first mask detection
_SPARSE_GAIN = 4  # "auto" falls back to the full mex when sparse visits over 1/4 of the splits
_JUDGE_FROM = 2048  # ... judged on blocks of 1024 heaps from this heap on
_KERNEL_WORK = 1 << 25  # splits a kernel visits between two returns to Python (~0.1 s)
_THREE_BLOCK = 64  # unmarked values looked up at a time among the three-heap splits
_THREE_WINDOW = 16  # the first window of heaps a tried for them (then 4× larger each time)


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
        step = CHUNK >> 6  # bincount makes an int64 copy of its input: 2 MB, not 32
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


@dataclass
class _RareTable:
    """The numpy table of every rare split of :meth:`_Engine._sure_options`, for the
    number of rare heaps it was built with (``rare``; -1: none yet)."""

    rare: int = -1
    offsets: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    first: Values = field(default_factory=lambda: np.zeros(0, np.int32))


class _Engine:
    """Incremental 𝒢(0), 𝒢(1), … in a growing array (memory linear in N: 1 byte a value
    while they fit in 8 bits, 2 while 16, else 4), by the Python reference runners or
    the compiled kernels of :mod:`sdg_automata.kernels.octal`."""

    def __init__(self, game: Rules, *, method: Method, engine: Engine = "auto",
                 compiled_from: int = COMPILED_FROM) -> None:
        self.game = game
        self.compiled_from = compiled_from  # "auto" runs the kernels from so many values
        self.method = method
        self.engine = check_engine(engine)
        self.kernels: Any = None  # the compiled kernels (kernels.octal.Kernels), once chosen
        self.g: npt.NDArray[np.integer[Any]] = np.zeros(1024, dtype=np.uint8)
        self.n = 0
        self.terminal = game.removals(1)
        self.one = game.removals(2)
        self.two = game.splits
        self.three = game.triples
        # the two-heap XORs of every heap m, a row of bits per m, for the three-heap splits
        self.pairs: npt.NDArray[np.uint8] = np.zeros((0, 1), dtype=np.uint8)
        self.pairs_done = 0  # the rows of ``pairs`` filled
        self.noticed = False  # the notice that the kernels do not split in three was given
        self.space: SparseSpace | None = None
        # a forced "sparse" switches early, so that small runs exercise it too; three-heap
        # splits never use a sparse space (its lemma fails for them)
        self.next_detect = -1 if self.three else {"auto": _DETECT, "sparse": 64,
                                                  "full": -1}[method]
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
        rare = rare_heaps(self.g[:self.n], space, self.bits)
        self.rare = np.zeros(max(1024, 2 * len(rare)), dtype=np.int64)
        self.rare[:len(rare)] = rare
        self.rare_count = len(rare)
        self.index = _ValueIndex.of(self.g[:self.n], self.bits)

    def extend(self, n: int, meter: Meter) -> None:
        """Compute values up to 𝒢(n − 1)."""
        self._reserve(n)
        if self.three:
            self._notice_python(n)
        elif self.kernels is None and use_compiled(self.engine, work=n,
                                                   threshold=self.compiled_from,
                                                   library="octal"):
            from ...kernels.native import prepare
            from ...kernels.octal import functions, loaded

            prepare(functions, meter, "the octal kernels")  # a first run's build: budgeted
            with held_signals():
                self.kernels = loaded()
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

    def _notice_python(self, n: int) -> None:
        """A run of a code that splits in three stays in Python: say so once when the
        compiled kernels were asked for, or ``"auto"`` would have chosen them."""
        wanted = self.engine == "compiled" or (self.engine == "auto"
                                               and n >= self.compiled_from)
        if wanted and not self.noticed:
            self.noticed = True
            warnings.warn(f"the values of {self.game.code} run in Python: the compiled "
                          "kernels do not split heaps in three", EngineNotice, stacklevel=4)

    def _run(self, stop: int, meter: Meter) -> None:
        # no splits: one-heap moves only; splits without a sparse space: every split
        kind = ("three" if self.three else "one-heap" if not self.two
                else "full" if self.space is None else "sparse")
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

    def _mark_one_and_two(self, g: npt.NDArray[np.integer[Any]], h: int,
                          seen: npt.NDArray[np.bool_]) -> None:
        """Mark in ``seen`` the values of h's options that leave no heap, one or two."""
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

    def _run_full(self, stop: int, meter: Meter) -> None:
        g = self.g
        seen = np.zeros((1 << self.bits) + 1, dtype=bool)
        due = meter.due
        for h in range(self.n, stop):
            seen[:] = False
            self._mark_one_and_two(g, h, seen)
            v = int(seen.argmin())
            g = self._store(h, v)
            if v >> self.bits:
                self._grow_bits(v)
                seen = np.zeros((1 << self.bits) + 1, dtype=bool)
            if h >= due:
                due = meter.check(h)
        self.n = stop

    def _pair_rows(self, upto: int, width: int) -> npt.NDArray[np.uint8]:
        """The table of two-heap XORs, bit-packed: bit x of row m (byte x >> 3, bit x & 7)
        is set when some split m = b + (m − b), 1 ≤ b < m, is worth x; rows below
        ``upto`` filled, ``width`` bits a row (every value and XOR is below it)."""
        pairs = self.pairs
        if pairs.shape[1] * 8 < width or len(pairs) < upto:
            grown = np.zeros((max(upto, 2 * len(pairs)), max(width // 8, pairs.shape[1])),
                             dtype=np.uint8)
            grown[:self.pairs_done, :pairs.shape[1]] = pairs[:self.pairs_done]
            pairs = self.pairs = grown
        g = self.g
        top = min(upto, self.n)
        row = np.zeros(pairs.shape[1] * 8, dtype=np.bool_)
        for m in range(max(self.pairs_done, 2), top):
            row[:] = False
            row[g[1:m] ^ g[m - 1:0:-1]] = True
            pairs[m] = np.packbits(row, bitorder="little")
        self.pairs_done = max(self.pairs_done, top)
        return pairs

    def _run_three(self, stop: int, meter: Meter) -> None:
        """The mex over every option, three-heap splits included.  The one- and two-heap
        options are marked first; the values still unmarked are then looked up among the
        three-heap splits, smallest first, until one is found in none: a split (a, b, c)
        of s is the heap a beside a two-heap split of s − a, so v is an option iff bit
        v ⊕ 𝒢(a) of row s − a of :meth:`_pair_rows` is set for some 1 ≤ a ≤ s − 2.  The
        a are tried in windows growing 4× at a time (most values turn up at once; only
        the mex needs every a)."""
        g = self.g
        due = meter.due
        for h in range(self.n, stop):
            width = 8 << max(0, self.bits - 3)
            pairs = self._pair_rows(h, width)
            seen = np.zeros(width + 1, dtype=np.bool_)
            self._mark_one_and_two(g, h, seen)
            tables = [(s - np.arange(1, s - 1), g[1:s - 1].astype(np.int64))
                      for s in (h - k for k in self.three) if s >= 3]
            unmarked = np.flatnonzero(~seen)  # ascending; the last is ``width``
            v = int(unmarked[-1])
            for i in range(0, len(unmarked) - 1, _THREE_BLOCK):
                alive = unmarked[i:min(i + _THREE_BLOCK, len(unmarked) - 1)]
                for rows, ga in tables:
                    at, size = 0, _THREE_WINDOW
                    while len(alive) and at < len(rows):
                        x = alive[:, None] ^ ga[None, at:at + size]
                        hit = ((pairs[rows[None, at:at + size], x >> 3] >> (x & 7)) & 1)
                        alive = alive[~hit.any(axis=1)]
                        at, size = at + size, 4 * size
                if len(alive):
                    v = int(alive[0])
                    break
            g = self._store(h, v)
            self._grow_bits(v)
            self.n = h + 1
            if h >= due:
                due = meter.check(h)
        self.n = stop

    def _run_sparse(self, stop: int, meter: Meter) -> None:
        """The sparse-space method, one heap at a time, options as bits of a Python int.

        Each heap's options that the lemma says are enough (:meth:`_sure_options`), then,
        while their mex is a rare-class value, a search for it among the common-common
        splits (:meth:`_settle`).  Under ``"auto"``, a block of 1,024 heaps that visited
        more than 1/:data:`_SPARSE_GAIN` of what the full mex would have ends the run at
        that heap: the full mex is cheaper until the next detection.
        """
        space = self.space
        assert space is not None
        g = self.g
        gl: list[int] = g[:self.n].tolist()
        rare: list[int] = self.rare[:self.rare_count].tolist()
        began, table = self.n, _RareTable()
        work = full_work = 0  # splits visited, and what the full mex would have visited
        block = self.n  # where the block of heaps being judged began
        due = meter.due
        for h in range(self.n, stop):
            flip = (h & 1) if space.positional else 0
            v, visited = self._settle(h, self._sure_options(h, gl, rare, table), gl, flip)
            gl.append(v)
            g = self._store(h, v)
            if h >= 1 and ((v & space.mask).bit_count() & 1) ^ flip == space.rare_parity:
                rare.append(h)
            work += len(rare) * len(self.two) + visited
            full_work += len(self.two) * (h // 2)
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

    def _sure_options(self, h: int, gl: list[int], rare: list[int], table: _RareTable) -> int:
        """The options of heap h the sparse-space lemma needs, as bits: its one-heap moves,
        the whole heap taken, and every split with a rare part.

        Few rare heaps are paired in plain Python (a numpy call costs more than dozens of
        XORs); many go through one numpy table of every rare split (rebuilt when a rare
        heap joins)."""
        marks = 0
        for k in self.one:
            if k < h:
                marks |= 1 << gl[h - k]
        if h in self.terminal:
            marks |= 1
        if len(rare) * len(self.two) <= _PYTHON_PAIRS or h < rare[-1] + self.game.t + 2:
            for k in self.two:
                s = h - k
                for r in rare:
                    if r >= s:
                        break
                    marks |= 1 << (gl[r] ^ gl[s - r])
            return marks
        # every rare heap fits in every split: one numpy table
        if table.rare != len(rare):
            table.offsets, table.first = self._rare_table(rare)
            table.rare = len(rare)
        for x in np.bincount(self.g[table.offsets + h] ^ table.first).nonzero()[0].tolist():
            marks |= 1 << x
        return marks

    def _settle(self, h: int, marks: int, gl: list[int], flip: int) -> tuple[int, int]:
        """𝒢(h) from the options ``marks`` the lemma needs, and the common-common splits
        visited to find it.

        The least value not an option is the mex when it is a common-class value (the
        lemma).  A rare-class one is searched among the common-common splits until it
        turns up, in three widening steps: the first :data:`_SCAN_FIRST` of each removal
        one by one, then the splits :class:`_ValueIndex` proposes, then every split by
        numpy in windows growing 4× at a time (a heap whose value really is rare needs all
        of them)."""
        space = self.space
        assert space is not None
        scanned = [0] * len(self.two)  # the splits a ≤ scanned[i] of removal i visited
        probes = 0
        while True:
            v = (~marks & (marks + 1)).bit_length() - 1  # the least value not an option
            if ((v & space.mask).bit_count() & 1) ^ flip != space.rare_parity:
                break  # a common-class value missing from the options is the mex
            marks = self._scan_first(h, v, marks, gl, scanned)
            if marks >> v & 1:
                continue
            tried = self.index.heaps_for(v)
            marks = self._pair_index(h, marks, tried)
            probes += len(tried) * len(self.two)
            marks = self._scan_windows(h, v, marks, scanned)
            if not marks >> v & 1:
                break  # no split is worth v: it is the mex
        return v, sum(scanned) + probes

    def _scan_first(self, h: int, v: int, marks: int, gl: list[int],
                    scanned: list[int]) -> int:
        """Step (1) of :meth:`_settle`: the first few splits of each removal, one by one,
        until one is worth v."""
        for i, k in enumerate(self.two):
            s = h - k
            a, top = scanned[i], min(s // 2, _SCAN_FIRST)
            while a < top:
                a += 1
                x = gl[a] ^ gl[s - a]
                marks |= 1 << x
                if x == v:
                    break
            scanned[i] = a
            if marks >> v & 1:
                break
        return marks

    def _pair_index(self, h: int, marks: int, tried: npt.NDArray[np.int64]) -> int:
        """Step (2) of :meth:`_settle`: the small heaps the index pairs with a frequent
        value to make v, for every removal."""
        g = self.g
        for k in self.two:
            a_all = tried[tried < h - k]
            for x in np.bincount(g[a_all] ^ g[h - k - a_all]).nonzero()[0].tolist():
                marks |= 1 << x
        return marks

    def _scan_windows(self, h: int, v: int, marks: int, scanned: list[int]) -> int:
        """Step (3) of :meth:`_settle`: every split not yet visited, by numpy in windows
        growing 4× at a time, until one is worth v or none is left."""
        g = self.g
        while not marks >> v & 1:
            more = False
            for i, k in enumerate(self.two):
                s = h - k
                half = s // 2
                a = scanned[i]
                if a >= half:
                    continue
                more = True
                top = min(half, max(_WINDOW, 4 * a))
                for x in np.bincount(g[a + 1:top + 1] ^ g[s - top:s - a][::-1]
                                     ).nonzero()[0].tolist():
                    marks |= 1 << x
                scanned[i] = top
                if marks >> v & 1:
                    break
            if not more:
                break
        return marks

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
                        _KERNEL_WORK, self.method == "auto", _JUDGE_FROM, k.SPARSE_GAIN,
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




_RUNNERS: dict[str, Callable[[_Engine, int, Meter], None]] = {
    "three": _Engine._run_three,
    "one-heap": _Engine._run_one_heap,
    "full": _Engine._run_full,
    "sparse": _Engine._run_sparse,
}


def load_kernels(engine: Engine = "compiled", max_n: int = COMPILED_FROM) -> None:
    """Import numba and load the octal kernels for every value type (about a second once;
    several on a cold cache, when they are compiled), if ``engine`` would use them for
    ``max_n`` values.

    A survey (:mod:`sdg_automata.sweeps.octal`) calls it before its codes run, here or
    in worker processes that fork from here, so that they start with the kernels
    loaded: the one-off cost then
    counts in no code's budget (it used to stop whichever code first reached
    :data:`COMPILED_FROM` values in each worker, and on a cold cache the first
    codes of all).  The calls do no work.
    """
    if not use_compiled(engine, work=max_n, threshold=COMPILED_FROM, library="octal"):
        return
    from ...kernels.octal import loaded

    i64, seen = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    terminal = np.zeros(1, dtype=np.bool_)
    with held_signals():
        k = loaded()
        for dtype in (np.uint8, np.uint16, np.int32):
            g = np.zeros(2, dtype=dtype)
            k.run_sparse(g, 0, 0, i64, 0, 1, False, 0, i64, i64, terminal, seen, 0, 1, True, 0,
                         1, i64, i64, i64, 0, 0)
            k.run_full(g, 0, 0, i64, i64, terminal, seen, 0, 1)
            k.find_period(g, 0, 0, 1)
            k.first_period(g, 0, 1, i64)
            k.last_exception(g, 0, 1)
