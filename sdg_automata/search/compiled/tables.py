"""The memoized step of Steps 1–5 as arrays: states as vectors of per-group part ids.

:meth:`GrundyAutomaton.step <sdg_automata.automaton.construction.GrundyAutomaton.step>`
splits the nonterminals into groups (:class:`~sdg_automata.automaton.construction.GroupLayout`)
and computes the part of δ(q, a) each group owns from a key of a few bits.
This module keeps that split for the compiled kernels
(:mod:`sdg_automata.kernels.automaton`):

* a state is a **vector of part ids**, one per group: each group's parts are
  interned in a small table (id 0 is the empty part), so a state of a few
  hundred bits is a few 16-bit ids — the tree (vector) compression that
  explicit-state model checkers use (LTSmin's; Laarman et al.), here with the
  memo's groups as the leaves;
* a step is, per group that reads something on the letter, a lookup in a dense
  table indexed by its inputs: old parts (its own, the end symbol's) by id, the
  new parts of unit targets' groups projected first onto the bits its key reads,
  several inputs combined pairwise by a chain of 2-D tables;
* every table is **learned lazily**: an entry the kernel does not know sends it
  back to Python, which computes δ(q, a) by
  :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step_reference` (the
  Steps 3–4 computation, kept whole) and records every group's entries
  (:meth:`StepTables.learn`); the kernel then resumes where it stopped.

All tables live in one int32 heap read through a plan of one instruction per
group (:func:`_instruction`), so a kernel takes two arrays for the whole step;
every table covers every id that exists (:meth:`StepTables._grow`), so the
kernel reads without bounds checks, and Python grows a table by laying the heap
out again (doubling, so rarely).  An entry met twice must agree (the key holds
everything the part depends on): a disagreement is
:class:`~sdg_automata.errors.SdgBug`, never a wrong answer.  The walks over
these states are :mod:`sdg_automata.search.compiled.drive`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import SdgBug

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ...automaton.construction import GrundyAutomaton

__all__ = ["MAX_TABLE", "PartStates", "StepTables"]

#: ids are int32: a part table (or a combination table) may hold at most this many entries
MAX_ID = (1 << 31) - 1
#: the most entries one dense table may take (256 MB): a key whose inputs have this many
#: combinations would be better served by the Python memo; the run falls back to Python
MAX_TABLE = 1 << 26


class _Table:
    """One dense table of the heap: ``rows × cols`` int32 entries, ``-1`` unknown.

    Its dimensions always cover every id that exists in the id spaces indexing
    them (``StepTables._grow``), so the kernel needs no bounds check.
    """

    __slots__ = ("cols", "offset", "rows")

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols, self.offset = rows, cols, 0


class _Input:
    """One input of a group's key: the (old or new) part of group ``source``.

    An old part (the group's own, or the end symbol's: the only other group whose
    items a key reads) is used as it is (``table`` is ``None``: its id is the
    input), which saves a lookup per group and step; a new part (the values of a
    unit target's group) is projected onto the bits the key reads, through
    ``table``, so that the combining tables stay small.
    """

    __slots__ = ("ids", "mask", "new", "source", "table")

    def __init__(self, source: int, new: bool, mask: int, table: _Table | None) -> None:
        self.source, self.new, self.mask, self.table = source, new, mask, table
        self.ids: dict[int, int] = {}  # projection (an int) -> its id


class _Entry:
    """A group that reads something on a letter: its inputs and combining tables
    (level j combines the result so far with input j + 1; one input: with 0)."""

    __slots__ = ("group", "inputs", "levels", "pairs")

    def __init__(self, group: int, inputs: list[_Input], levels: list[_Table]) -> None:
        self.group, self.inputs, self.levels = group, inputs, levels
        # per intermediate level: (combination id, input id) -> combination id
        self.pairs: list[dict[tuple[int, int], int]] = [{} for _ in levels[:-1]]


#: the kinds of instruction of a step plan (``kernels.step.step`` executes them)
_IDLE, _OLD1, _OLD2, _NEW, _ANY = range(5)


def _instruction(e: _Entry) -> list[int]:
    """The plan of one group on one letter, for ``kernels.step.step``.

    ``IDLE g``: its part is empty.  ``OLD1 g h off``: one old part as input,
    ``part = T[h]``.  ``OLD2 g h₀ h₁ off cols``: two old parts (its own and the
    end symbol's), ``part = T[h₀, h₁]``.  ``NEW g r (h, proj)×r (off, cols)×(r−1)``:
    r projected new parts chained.  ``ANY g r (h, new, proj)×r (off, cols)×…``:
    any mix (``proj`` -1: the id itself); one input is combined with 0.
    """
    old = [i for i in e.inputs if i.table is None]
    if len(old) == len(e.inputs) == 1:
        return [_OLD1, e.group, old[0].source, e.levels[0].offset]
    if len(old) == len(e.inputs) == 2:
        t = e.levels[0]
        return [_OLD2, e.group, old[0].source, old[1].source, t.offset, t.cols]
    levels = [x for t in e.levels for x in (t.offset, t.cols)]
    if not old and len(e.inputs) > 1:
        inputs = [x for i in e.inputs for x in (i.source, i.table.offset)]  # type: ignore[union-attr]
        return [_NEW, e.group, len(e.inputs), *inputs, *levels]
    inputs = [x for i in e.inputs
              for x in (i.source, int(i.new), -1 if i.table is None else i.table.offset)]
    return [_ANY, e.group, len(e.inputs), *inputs, *levels]


class StepTables:
    """The compiled form of :meth:`GrundyAutomaton.step`'s memo (see the module docstring).

    Parameters
    ----------
    automaton:
        An automaton with a :attr:`~sdg_automata.automaton.construction.GrundyAutomaton.layout`
        (two groups or more).

    Attributes
    ----------
    groups:
        The number of groups G: a state is G part ids.
    initial:
        The vector of q₀.
    heap, plan, starts:
        The kernel's view: the int32 tables, the int64 descriptor, and where
        each letter's descriptor starts in ``plan``.  Replaced (not resized)
        when a table grows, so read them again after :meth:`learn`.

    Raises
    ------
    OverflowError
        From :meth:`learn`, when a table would outgrow :data:`MAX_TABLE` entries
        or an id its int32 (the caller falls back to the Python engine).
    """

    def __init__(self, automaton: GrundyAutomaton) -> None:
        import numpy as np

        layout = automaton.layout
        if layout is None:
            raise SdgBug("compiled step tables need a layout of two groups or more")
        self.automaton = automaton
        self.alphabet = automaton.alphabet
        self.owned = layout.owned
        self.groups = len(self.owned)
        self.parts: list[list[int]] = [[0] for _ in self.owned]
        self.index: list[dict[int, int]] = [{0: 0} for _ in self.owned]
        self._tables: list[_Table] = []
        #: id space -> the (table, dimension) pairs it indexes
        self._users: dict[object, list[tuple[_Table, int]]] = {}
        self._letters: list[tuple[list[_Entry], list[int], int]] = []
        for a in self.alphabet:
            entries = []
            masks, uncovered = layout.letters[a]
            for mask, deps, owned in masks:
                g = self.owned.index(owned)
                sources = [(g, False, mask & owned)] if mask & owned else []
                sources += [(h, False, mask & o) for h, o in enumerate(self.owned)
                            if h != g and mask & o]
                sources += [(h, True, deps & o) for h, o in enumerate(self.owned) if deps & o]
                if (mask | deps) != sum(m for _, _, m in sources):
                    raise SdgBug("step tables: a key reads bits no group owns")
                entries.append(self._entry(g, sources))
            idle = [g for g in range(self.groups) if g not in {e.group for e in entries}]
            self._letters.append((entries, idle, uncovered))
        self._values: dict[str, tuple[int, npt.NDArray[np.int32]]] = {}
        self._layout_heap()
        self.initial = np.array(self.vector(automaton.initial), dtype=np.int32)

    def _entry(self, g: int, sources: list[tuple[int, bool, int]]) -> _Entry:
        """The inputs and tables of group ``g`` reading ``sources`` (its own old part first)."""
        inputs = []
        for h, new, mask in sources:
            table = None if not new else self._table(("part", h), None)
            inputs.append(_Input(h, new, mask, table))
        spaces = [("part", i.source) if i.table is None else i for i in inputs]
        levels = [self._table(spaces[0], spaces[1] if len(inputs) > 1 else None)]
        entry = _Entry(g, inputs, levels)
        levels += [self._table((entry, j - 2), spaces[j]) for j in range(2, len(inputs))]
        entry.pairs = [{} for _ in levels[:-1]]
        return entry

    # -- the heap ------------------------------------------------------------------------

    def _table(self, rows: object, cols: object | None) -> _Table:
        """A table whose rows (and columns, unless ``None``: one) follow two id spaces."""
        t = _Table(4, 1 if cols is None else 4)
        self._users.setdefault(rows, []).append((t, 0))
        if cols is not None:
            self._users.setdefault(cols, []).append((t, 1))
        self._tables.append(t)
        return t

    def _grow(self, space: object, size: int) -> None:
        """Id ``size - 1`` exists in ``space``: every table it indexes covers it."""
        if size > MAX_ID:
            raise OverflowError("a step table's ids outgrew int32")
        stale = [(t, dim) for t, dim in self._users.get(space, ())
                 if (t.rows if dim == 0 else t.cols) < size]
        if not stale:
            return
        shapes = [(u.offset, u.rows, u.cols) for u in self._tables]
        for t, dim in stale:
            while (t.rows if dim == 0 else t.cols) < size:
                if dim == 0:
                    t.rows *= 2
                else:
                    t.cols *= 2
            if t.rows * t.cols > MAX_TABLE:
                raise OverflowError(f"a step table would need {t.rows * t.cols:,} entries, "
                                    f"over the kernels' {MAX_TABLE:,}")
        self._layout_heap(self.heap, shapes)

    def _layout_heap(self, old: npt.NDArray[np.int32] | None = None,
                     shapes: list[tuple[int, int, int]] | None = None) -> None:
        """Place every table in a new heap (copying ``old``'s entries) and write the plan:
        per letter, the number of groups, then one instruction per group
        (:func:`_instruction`), the groups that read nothing on it first."""
        import numpy as np

        size = 0
        for t in self._tables:
            t.offset, size = size, size + t.rows * t.cols
        heap = np.full(size, -1, dtype=np.int32)
        if old is not None and shapes is not None:
            for t, (offset, rows, cols) in zip(self._tables, shapes, strict=True):
                heap[t.offset:t.offset + t.rows * t.cols].reshape(t.rows, t.cols)[
                    :rows, :cols] = old[offset:offset + rows * cols].reshape(rows, cols)
        plan: list[int] = []
        starts = []
        for entries, idle, _ in self._letters:
            starts.append(len(plan))
            plan.append(len(entries) + len(idle))
            for g in idle:
                plan += [_IDLE, g]
            for e in entries:
                plan += _instruction(e)
        self.heap = heap
        self.plan = np.array(plan, dtype=np.int64)
        self.starts = np.array(starts, dtype=np.int64)

    def _set(self, t: _Table, row: int, col: int, value: int, what: str) -> None:
        if row >= t.rows or col >= t.cols:
            raise SdgBug(f"step tables: {what} indexed outside its table")
        at = t.offset + row * t.cols + col
        known = int(self.heap[at])
        if known < 0:
            self.heap[at] = value
        elif known != value:
            raise SdgBug(f"step tables: {what} gives two results ({known} and {value})")

    def _new_id(self, ids: dict[Any, int], key: Any, space: object) -> int:
        """The id of ``key`` in ``ids`` (the id space ``space``), made if new."""
        got = ids.get(key)
        if got is None:
            got = ids[key] = len(ids)
            self._grow(space, len(ids))
        return got

    # -- parts ---------------------------------------------------------------------------

    def _intern(self, g: int, part: int) -> int:
        index = self.index[g]
        pid = index.get(part)
        if pid is None:
            pid = index[part] = len(self.parts[g])
            self.parts[g].append(part)
            self._grow(("part", g), len(self.parts[g]))
            for head, (group, table) in list(self._values.items()):
                if group == g:
                    self._value_of(head, pid, table)
        return pid

    def part_id(self, g: int, part: int) -> int:
        """The id of ``part`` (a bitset of group ``g``'s items), interned if new: how a
        shard of the sharded search (:mod:`sdg_automata.search.sharded`) reads another's ids."""
        return self._intern(g, part)

    def state(self, vector: Sequence[int]) -> int:
        """The bitset of the state with part ids ``vector`` (its first G entries)."""
        q = 0
        for g, parts in enumerate(self.parts):
            q |= parts[vector[g]]
        return q

    def vector(self, q: int) -> list[int]:
        """The part ids of state ``q``, interning its parts."""
        return [self._intern(g, q & owned) for g, owned in enumerate(self.owned)]

    def group_of(self, head: str) -> int:
        """The group owning the items A^v of ``head``."""
        bit = self.automaton.value_bits(head)[0]
        return next(g for g, owned in enumerate(self.owned) if owned & bit)

    def values(self, head: str) -> tuple[int, npt.NDArray[np.int32]]:
        """(group of A, ``table``): ``table[id]`` is 𝒢_A read off part ``id`` of that group
        (``-1``: no item A^v), kept up to date as parts are learned; read it again after
        :meth:`learn` (it is replaced when it grows)."""
        import numpy as np

        if head not in self._values:
            g = self.group_of(head)
            table = np.full(max(16, 2 * len(self.parts[g])), -1, dtype=np.int32)
            self._values[head] = (g, table)
            for pid in range(len(self.parts[g])):
                self._value_of(head, pid, table)
        return self._values[head]

    def _value_of(self, head: str, pid: int, table: npt.NDArray[np.int32]) -> None:
        import numpy as np

        g = self._values[head][0]
        if pid >= len(table):
            grown = np.full(2 * len(table), -1, dtype=np.int32)
            grown[:len(table)] = table
            table = grown
            self._values[head] = (g, table)
        v = self.automaton.grundy_at(self.parts[g][pid], head)
        table[pid] = -1 if v is None else v

    # -- learning ------------------------------------------------------------------------

    def learn(self, source: Sequence[int], k: int) -> list[int]:
        """δ(q, a) for the state with part ids ``source`` and letter ``alphabet[k]``, by
        :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step_reference`, recorded in
        every table the kernel reads for it; returns the new vector."""
        entries, _, uncovered = self._letters[k]
        q = self.state(source)
        out = self.automaton.step_reference(q, self.alphabet[k])
        if out & uncovered:
            raise SdgBug(f"step tables: letter {self.alphabet[k]!r} sets items outside its "
                         "groups")
        target = [self._intern(g, out & owned) for g, owned in enumerate(self.owned)]
        for e in entries:
            c = 0
            for j, i in enumerate(e.inputs):
                pid = (target if i.new else source)[i.source]
                if i.table is None:
                    p = pid
                else:
                    p = self._new_id(i.ids, self.parts[i.source][pid] & i.mask, i)
                    self._set(i.table, pid, 0, p, "a projection")
                if j == 0:
                    c = p
                    if len(e.inputs) > 1:
                        continue
                    p = 0
                level = max(0, j - 1)
                if level == len(e.levels) - 1:
                    nxt = target[e.group]
                else:
                    nxt = self._new_id(e.pairs[level], (c, p), (e, level))
                self._set(e.levels[level], c, p, nxt,
                          f"letter {self.alphabet[k]!r}, group {e.group}")
                c = nxt
        return target

    @property
    def part_counts(self) -> list[int]:
        """How many parts each group has interned."""
        return [len(p) for p in self.parts]


class PartStates(Sequence[int]):
    """States stored as rows of part ids, seen as their bitsets (``states[s]`` is an int).

    The reachable states of a compiled exploration: ``records[s]`` holds the
    part ids of state s, and the bitset is rebuilt on access.
    """

    def __init__(self, tables: StepTables, records: npt.NDArray[np.int32]) -> None:
        self.tables = tables
        self.records = records

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, s: Any) -> Any:
        if isinstance(s, slice):
            return [self[i] for i in range(*s.indices(len(self)))]
        return self.tables.state(self.records[s].tolist())

    def __iter__(self) -> Iterator[int]:
        parts = self.tables.parts
        for row in self.records.tolist():
            q = 0
            for g, pid in enumerate(row):
                q |= parts[g][pid]
            yield q

    @property
    def inverse(self) -> Mapping[int, int]:
        """The inverse of this sequence (built on first use: nothing in the package needs
        it, but a :class:`~sdg_automata.automaton.crawl.Crawl` offers it)."""
        return _Index(self)

    def grundy(self, head: str) -> list[int | None]:
        """𝒢_A read off every state (``None`` where A has no item), without building them."""
        g, table = self.tables.values(head)
        return [None if v < 0 else v for v in table[self.records[:, g]].tolist()]


class _Index(Mapping[int, int]):
    """``{state: number}`` of a :class:`PartStates`, built when first read."""

    def __init__(self, states: PartStates) -> None:
        self._states = states
        self._map: dict[int, int] | None = None

    def _built(self) -> dict[int, int]:
        if self._map is None:
            self._map = {q: s for s, q in enumerate(self._states)}
        return self._map

    def __getitem__(self, q: int) -> int:
        return self._built()[q]

    def __iter__(self) -> Iterator[int]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._states)
