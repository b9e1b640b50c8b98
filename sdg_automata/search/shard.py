"""The worker side of the sharded search: the actor that owns one shard of the visited set.

:class:`Shard` runs on a Dask worker, one per worker, called by the driver in
:mod:`sdg_automata.search.sharded` (whose docstring gives the design: owner
hashing by part keys, the one-process order of numbers, levels walked a slice a call),
its states in a store of :mod:`sdg_automata.search.shard_stores`, its kernels those of
:mod:`sdg_automata.kernels.sharded` from a native library
(:mod:`sdg_automata.kernels.sharded_native`; numba's dispatchers where it is off).
Shards send their successors to each other directly, each to each over a Dask comm of
their own (:class:`_Channel`: one message a batch, acked; between workers of one machine
the batches lie in memory both map, :mod:`~sdg_automata.search.arena`, and one message a
level says where), in batches of up to
:data:`BATCH_STATES` states, the last of a level to every other shard, which merges once
it has them all; every wait is bounded (:data:`SEND_TIMEOUT`), so a lost peer ends the
run with :class:`~sdg_automata.errors.ResourceError` instead of a hang.

A shard's memory goes with its run (issue 34 §5).  Dask drops an actor once no client
holds its future, so a driver that dies (killed, or its connection to the scheduler
lost) takes its shards' keys with it: an idle shard is dropped at once.  A busy one
would go on computing for nobody, and waiting for a peer already dropped waits for
ever (Dask leaves a call to an actor its worker no longer has unanswered), so a shard
looks, at every pause of its kernel and every second of a wait, whether its worker
still holds its key (:meth:`Shard._abandoned`); once not, it stops, frees its memory and
answers nothing.  Any call that fails frees the shard's memory as well: the run is
over (the driver never concludes from a partial run), whoever keeps the error.
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import pickle
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import ResourceError, SdgBug
from ..kernels.protocol import BATCH
from .arena import Arena, Placed, Source
from .arena import available as shared_batches
from .compiled.drive import _start
from .compiled.loop import Misses, dispatch, stop
from .compiled.stores import NARROW, Growing
from .shard_stores import STORES, ShardStore

__all__ = ["BATCH_STATES", "BUFFER_ROWS", "CHANNEL_OP", "COMPILING", "MIN_BUFFER_ROWS", "PHASES",
           "SEND_TIMEOUT", "PeerStopped", "Shard", "answered", "kernels_compiling", "shard_key"]

_T = TypeVar("_T")

#: a shard sends the successors owned by another once it has this many (and the rest at
#: the end of the level): big enough that the per-message cost (measured on one machine,
#: both ends' CPU: 0.3 ms a message on a :class:`_Channel`, 0.9 ms an actor call) is small
#: next to moving them (about 0.7 ms a MB)
BATCH_STATES = 100_000
#: the rows of the owners' buffers together, at most (each holds up to
#: :data:`BATCH_STATES`, at least :data:`MIN_BUFFER_ROWS`): a shard of a large cluster
#: keeps its buffers small
BUFFER_ROWS = 1 << 22
#: the fewest rows of an owner's buffer: more than the kernel's block of successors
#: (:data:`~sdg_automata.kernels.protocol.BATCH`), which it makes only when every buffer
#: has room for it (:func:`~sdg_automata.kernels.sharded.expand`)
MIN_BUFFER_ROWS = 1 << 12
#: the longest a shard waits for another to take a batch (ack it: it is only appended to
#: a list there), or to end the level (send its last batch) after this shard ended its
#: own: longer means that shard is gone (a shard whose comm closed is known at once)
SEND_TIMEOUT = 60.0
#: the phases of a shard's work that :meth:`Shard.usage` times: stepping the frontier
#: (the kernel, which also puts each successor in its owner's buffer), learning the steps
#: it missed, handing the full buffers out as batches, waiting for batches to be taken,
#: deduping received states (their ids translated as they are copied in, then merged by
#: code, each value's first new state noted as it is met), numbering them (with fetching the
#: others' codes)
PHASES = ("step", "learn", "route", "send", "absorb", "number")
#: the worker metric (sent to the scheduler with every heartbeat) that counts the kernel
#: compilations under way in the worker: what the driver shows while a fresh cluster
#: compiles (:func:`kernels_compiling`)
COMPILING = "sdg_kernels_compiling"
#: a level is numbered late (:meth:`Shard.levels`) while its successors' codes made
#: from their parents' codes stay below this: (states numbered + 1) · letters² (the
#: parents' codes are below states · letters); past it, in int64, a level is numbered
#: first, its codes fetched from the other shards
LATE_LIMIT = 1 << 62
#: the key of the owner hash of parts (any constant; the same on every shard)
_SALT = b"sdg-automata/sharded"
#: the sentinel after each stream of a level (:meth:`Shard._streams`): the largest int64
_NO_CODE = (1 << 63) - 1


def _part_key(group: int, part: int) -> int:
    """A 64-bit key of a part of a group (a bitset of its items), the same in every
    process: what the owner hash reads in place of the part's id, which is the shard's
    own.  Keyed by the group too, so that the keys of a state's parts are independent
    (the owner hash adds them up)."""
    data = group.to_bytes(4, "little") + part.to_bytes(max(1, (part.bit_length() + 7) // 8),
                                                       "little")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=_SALT).digest(), "little")


def shard_key(token: str, index: int) -> str:
    """The Dask key of shard ``index`` of run ``token``: the driver submits the actor under
    it, and the shard looks for it among its worker's actors (:meth:`Shard._abandoned`)."""
    return f"sdg-shard-{token}-{index}"


def kernels_compiling(worker: Any = None) -> int:
    """How many of the package's compiled kernels numba is compiling in this process now:
    the lookups of a kernel's machine code (in numba's cache: a hit, or a miss, after which
    it compiles) less the machine codes it holds; and the native libraries it waits to be
    built (:func:`~sdg_automata.kernels.native.building`).  A Dask worker metric
    (:data:`COMPILING`; ``worker`` is the worker, unused); 0 where nothing is compiled."""
    import sys

    native = sys.modules.get("sdg_automata.kernels.native")
    under_way = 0 if native is None else native.building()
    for name, module in list(sys.modules.items()):
        if not name.startswith("sdg_automata.kernels.") or module is None:
            continue
        for kernel in list(vars(module).values()):
            stats: Any = getattr(kernel, "stats", None)  # a numba dispatcher
            if stats is None:
                continue
            try:
                under_way += (sum(stats.cache_misses.values()) + sum(stats.cache_hits.values())
                              - len(kernel.overloads))
            except (AttributeError, TypeError):  # not a dispatcher, or another numba
                continue
    return max(under_way, 0)


#: glibc's ``mallopt`` parameters: the size from which ``malloc`` maps fresh pages, and the
#: free memory at the heap's top from which ``free`` gives it back to the system
_M_MMAP_THRESHOLD, _M_TRIM_THRESHOLD = -3, -1
#: the mmap threshold while a shard runs (:func:`_heap_thresholds`): above a batch of
#: 10⁵ states of up to 160 bytes, under glibc's largest (32 MiB on 64 bits)
RUN_MMAP_THRESHOLD = 16 << 20
#: glibc's default, at which a Dask worker keeps it (its nanny sets
#: ``MALLOC_TRIM_THRESHOLD_``, which stops glibc from moving it)
DEFAULT_MMAP_THRESHOLD = 128 << 10
#: the trim threshold while a shard runs: a level's batches over the comm (the sent,
#: copied out of the owners' buffers; the received, read into fresh buffers) are freed at
#: the heap's top and taken again moments later (between workers of one machine the
#: batches lie in arenas instead, :mod:`~sdg_automata.search.arena`; the level's streams
#: and the kernels' scratch still come and go)
RUN_TRIM_THRESHOLD = 64 << 20


def _default_trim_threshold() -> int:
    """The trim threshold a process has when no shard runs: the ``MALLOC_TRIM_THRESHOLD_``
    it was started with (a Dask nanny starts its worker with 64 KiB), else glibc's
    default (128 KiB)."""
    import os

    try:
        given = int(os.environ.get("MALLOC_TRIM_THRESHOLD_", ""))
    except ValueError:
        return 128 << 10
    return min(max(given, 0), (1 << 31) - 1)  # mallopt takes a C int


@functools.cache
def _glibc() -> Any:
    """The C library, where it is glibc (``None`` elsewhere); found once (``find_library``
    runs ``ldconfig``)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def _heap_thresholds(running: bool) -> None:
    """Set glibc's mmap and trim thresholds of this process (nothing elsewhere) for a
    shard ``running``, or back.  A Dask worker keeps the mmap threshold at 128 KiB and
    the trim threshold at 64 KiB, so every batch (a buffer of a few MB) was mapped anew,
    or taken from the heap's top after ``free`` had given it back: either way its pages
    were faulted in and zeroed by the kernel again, as the socket was read or the batch
    copied out.  While a shard of this process runs (:func:`_hold_heap`), the heap keeps
    them: the two workers' page faults halved on 1.27·10⁷ states (89,000 → 38,000 each;
    0.1 CPU s of their event loops from the first, 0.2–0.3 s of both from the second,
    issue 36 item 6; measured before batches between workers of one machine went through
    shared memory, :mod:`~sdg_automata.search.arena`)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, RUN_MMAP_THRESHOLD if running
                     else DEFAULT_MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, RUN_TRIM_THRESHOLD if running
                     else _default_trim_threshold())


#: the shards of this process that hold the heap (:func:`_hold_heap`), under its lock
_HOLDING = [0]
_HOLDING_LOCK = threading.RLock()  # reentrant: the finalizer may run in the GC, anywhere


def _hold_heap() -> None:
    """One more shard of this process runs: the heap's thresholds are
    :data:`RUN_MMAP_THRESHOLD` and :data:`RUN_TRIM_THRESHOLD` while any does
    (:func:`_heap_thresholds`)."""
    with _HOLDING_LOCK:
        _HOLDING[0] += 1
        if _HOLDING[0] == 1:
            _heap_thresholds(True)


def _let_go(channels: list[_Channel], sources: dict[int, Source]) -> None:
    """A shard is over (closed, or dropped by Dask and collected: a weakref finalizer,
    so it holds nothing of the shard but these): its channels close, so do the other
    shards' arenas it mapped, and once no shard of this process runs, the thresholds are
    the process's own again and the heap is trimmed (:func:`_trim_heap`)."""
    try:
        for channel in channels:
            channel.close()
        for source in sources.values():
            source.close()
        sources.clear()
    finally:
        with _HOLDING_LOCK:
            _HOLDING[0] -= 1
            if _HOLDING[0] == 0:
                _heap_thresholds(False)
                _trim_heap()


def _trim_heap() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``; nothing
    elsewhere).  A level's batches are numpy arrays on the heap, which glibc keeps once
    freed: without this a worker kept some 50 MB after a run (Dask's nanny sets
    ``MALLOC_TRIM_THRESHOLD_`` for the same reason; a worker started without one has it
    not)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def answered(future: Any, seconds: float) -> bool:
    """Whether an actor call has answered, waiting up to ``seconds`` for it (its error, if
    any, is raised by ``future.result()`` afterwards)."""
    try:
        future.result(timeout=seconds)
    except (TimeoutError, concurrent.futures.TimeoutError):  # distinct before Python 3.11
        return False
    except Exception:  # noqa: BLE001 -- answered with an error: the caller reads it
        return True
    return True


class PeerStopped(ResourceError):
    """A shard was asked for a batch or its codes after it stopped: the failure of another
    shard's call that follows from this one's (which the driver reports instead)."""


#: the name of the worker's handler that takes the batches of a :class:`_Channel`
CHANNEL_OP = "sdg_shard_batches"


class _Channel:
    """Batches to one other shard over a Dask comm of their own (``distributed.comm``),
    opened once a run.

    Between machines each batch is one message, answered by a one-byte ack once the shard
    has it (an actor call, a round trip through Dask's actor machinery, costs 0.9 ms of
    the two workers' CPU against 0.3 ms, on one machine).  The comm keeps the batches in
    the order sent, and the sender sends the next once the last is acked (:meth:`send`'s
    future; :meth:`Shard._send` waits for it first): the parts a batch brings come before
    the batches that use them, and a slow receiver holds the sender back (a comm's write
    only queues the frames).  A level's last batch (the one with the sender's word) is not
    acked: the next batch's ack says it was taken, so at most two are in flight, and the
    ack that cost a message each way per level and pair of shards goes.

    Where shard ``w`` maps this shard's arena (:mod:`~sdg_automata.search.arena`: both on
    one machine), each batch is copied there, and one message with the level's last says
    where they all lie (the peer reads none before it merges the level; a batch that must
    go over the comm takes those before it along): a message a level, no ack, and the
    arena is reused only once the peer has merged the level.

    A message is ``(me, depth, [(parts, rows, codes), …], word)``; the receiving worker's
    handler (:func:`_take_batches`) hands each batch to shard ``w``, under ``key`` there,
    and tells it when the comm of shard ``me`` closed."""

    def __init__(self, worker: Any, address: str, w: int, me: int, key: str) -> None:
        import asyncio

        from distributed.comm.core import connect

        self.loop, self.w = worker.loop.asyncio_loop, w
        #: the memory this shard's batches to shard ``w`` go through, if ``w`` maps it
        #: (:mod:`~sdg_automata.search.arena`; else they go over the comm)
        self.arena: Arena | None = None
        #: the batches of the level not sent yet (:meth:`send`): parts, rows, codes
        self.held: list[tuple[list[Any], Any, Any]] = []
        if shared_batches():
            try:
                self.arena = Arena()
            except OSError:  # no memory to share, or no descriptor left: the comm
                pass

        offer = None if self.arena is None else self.arena.offer()

        async def open_comm() -> tuple[Any, bool]:  # the comm, whether the peer maps it
            comm = await connect(address, timeout=SEND_TIMEOUT,  # type: ignore[no-untyped-call]
                                 **worker.connection_args)
            try:
                await comm.write({"op": CHANNEL_OP, "key": key, "sender": me, "reply": False,
                                  "shared": offer})
                return comm, offer is not None and await comm.read() is True
            except BaseException:  # cancelled too: the comm goes with it
                comm.abort()
                raise

        def abort_late(opened: Any) -> None:  # a comm that came after the timeout
            if not opened.cancelled() and opened.exception() is None:
                opened.result()[0].abort()

        opening = asyncio.run_coroutine_threadsafe(open_comm(), self.loop)
        try:
            self.comm, mapped = opening.result(timeout=2 * SEND_TIMEOUT)
            if not mapped:  # (the arena is ours alone: this thread closes it)
                self._unshare()
        except (TimeoutError, concurrent.futures.TimeoutError):
            opening.cancel()
            opening.add_done_callback(abort_late)
            self._unshare()
            raise ResourceError(f"shard {me}: no connection to shard {w} at {address} "
                                f"within {2 * SEND_TIMEOUT:g} s") from None
        except BaseException:
            self._unshare()
            raise

    def _unshare(self) -> None:
        """Send every batch over the comm: the peer maps no arena of ours."""
        if self.arena is not None:
            self.arena.close()
            self.arena = None

    def send(self, sender: int, depth: int, parts: list[Any], rows: Any, codes: Any,
             word: tuple[dict[str, Any], Any] | None) -> Any:
        """Send a batch (:meth:`Shard.receive`'s arguments; ``rows`` and ``codes`` are
        copied, so the caller may reuse them at once): a future that is done once the
        shard took it, or, for a level's last batch (``word`` not ``None``), once it is
        written.  A batch in the arena is held until the level's last (its future done
        at once): one message then says where they all lie, as the peer reads none
        before its merge."""
        import asyncio

        from distributed.comm.core import CommClosedError
        from distributed.protocol.serialize import Serialized, serialize

        placed = None if self.arena is None else self.arena.place(depth, rows, codes)
        if placed is None:  # over the comm: the frames keep the arrays until written
            self.held.append((parts, rows.copy(), codes.copy()))
        else:
            self.held.append((parts, placed[0], placed[1]))
            if word is None:
                return _HELD
        message, self.held = (sender, depth, self.held, word), []
        # pickled whole here (its arrays out of band, not copied), not element by element
        # through Dask's serializers in the event loop: 25–30 µs a batch instead of 150–190
        # to write, 20–25 instead of 45–65 to read (issue 36 item 6); a batch that cannot be
        # pickled fails this shard's call, not its peer's comm
        frames = Serialized(*serialize(  # type: ignore[no-untyped-call]
            message, serializers=("pickle",), iterate_collection=False, on_error="raise"))
        acked = word is None  # (so the batch went over the comm)

        async def write() -> None:
            try:
                await self.comm.write(frames)
                if acked:
                    await self.comm.read()
            except (CommClosedError, OSError) as e:
                raise PeerStopped(f"shard {self.w} closed its comm: it takes no batch "
                                  f"({e})") from None

        return asyncio.run_coroutine_threadsafe(write(), self.loop)

    def close(self) -> None:
        """Close the comm (the receiver's handler then ends)."""
        import contextlib

        with contextlib.suppress(RuntimeError):  # the worker's loop is closed: so is the comm
            self.loop.call_soon_threadsafe(self.comm.abort)
        self._unshare()  # (what the peer mapped stays its own until it unmaps it)


def _done() -> concurrent.futures.Future[None]:
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    done.set_result(None)
    return done


#: the answer to a batch held in the arena (:meth:`_Channel.send`): done, one for all
_HELD = _done()


def _take_batches(worker: Any) -> Callable[..., Any]:
    """The handler of :data:`CHANNEL_OP` on ``worker``: reads a :class:`_Channel`'s batches,
    gives each to the shard whose key the channel named (looked up each time, so the comm
    holds no shard that Dask dropped) and acks each message but a level's last
    (:class:`_Channel`);
    ends when the comm closes, or when the shard is gone or stopped (closing the comm: the
    sender's wait fails).  A comm that closes under a shard still there tells it
    (:meth:`Shard._peer_gone`): the sender stopped, or its worker died, and no batch of
    it will come."""
    async def handle(comm: Any, key: str, sender: int,
                     shared: dict[str, Any] | None = None) -> Any:
        from distributed.core import Status

        try:
            if shared is not None:  # the sender's arena: mapped here if it can be
                source = Source.open(shared)
                shard = worker.state.actors.get(key)
                taken = source is not None and shard is not None and shard._share(sender,
                                                                                   source)
                if source is not None and not taken:
                    source.close()
                del shard
                await comm.write(taken)
            while True:
                batch = await comm.read()
                shard = worker.state.actors.get(key)
                if shard is None:
                    break
                me, depth, batches, word = batch
                for i, (parts, rows, codes) in enumerate(batches, 1):
                    shard._take(me, depth, parts, rows, codes,
                                word if i == len(batches) else None)
                # the frame keeps no shard while it waits: Dask may drop it meanwhile
                del shard, batch, batches
                if word is None:  # not a level's last batch (_Channel)
                    await comm.write(b"")
        except Exception:  # noqa: BLE001 -- the comm closed, or the shard stopped
            shard = worker.state.actors.get(key)
            if shard is not None:
                shard._peer_gone(sender)
            del shard
        finally:
            comm.abort()
        return Status.dont_reply

    return handle


def _by_call(peer: Any, sender: int, depth: int, parts: list[Any], rows: Any, codes: Any,
             word: tuple[dict[str, Any], Any] | None) -> Any:
    """A batch to ``peer`` as a call of its :meth:`Shard.receive` (the arrays copied: the
    call is made later, in the event loop, and the caller reuses its buffers)."""
    return peer.receive(sender, depth, parts, rows.copy(), codes.copy(), word)


class _Stopped(Exception):
    """Nobody waits for this shard's answer any more: the driver said stop (another shard
    failed, Ctrl-C), or its run was dropped (:meth:`Shard._abandoned`)."""


class _Ranks:
    """A level's codes, every shard's, as what ranks a code among them
    (:meth:`Shard._ranks`): their bitmap (``bits``, uint64 words, bit 0 code ``origin``;
    :func:`~sdg_automata.kernels.sharded.number` counts the set bits below a code) where
    it takes no more words than there are codes, else the codes themselves, sorted (a
    binary search): memory at most the codes' 8 bytes each either way."""

    __slots__ = ("bits", "codes", "origin")

    def __init__(self, *, bits: Any = None, origin: int = 0, codes: Any = None) -> None:
        self.bits, self.origin, self.codes = bits, origin, codes

    def number(self, kernel: Any, keys: Any, lo: int, hi: int, div: int, base: int,
               out: Any) -> None:
        """:func:`~sdg_automata.kernels.sharded.number` by these ranks: ``out[i]`` ←
        (``base`` + the codes below p)·``div`` + (``keys[i]`` − p·``div``), p =
        ⌊``keys[i]`` / ``div``⌋, for i in ``lo`` … ``hi`` − 1 (the keys' p nondecreasing)."""
        import numpy as np

        if self.bits is not None:
            kernel.number(keys, lo, hi, div, self.bits, self.origin, base, out)
            return
        k = keys[lo:hi]
        p = k // div
        out[lo:hi] = (base + np.searchsorted(self.codes, p)) * div + (k - p * div)


def _words(codes: Any) -> tuple[int, int]:
    """The bitmap words (first, past the last) that increasing ``codes`` (not empty) fall
    in: code c in word ⌊c / 64⌋ (q₀'s code −1 in word −1)."""
    return int(codes[0]) >> 6, (int(codes[-1]) >> 6) + 1


def _unmark(word: int, bits: Any) -> Any:
    """The codes whose bits are set in ``bits``, its words from ``word`` on
    (:func:`~sdg_automata.kernels.sharded.mark`), increasing."""
    import numpy as np

    flat = np.unpackbits(bits.astype("<u8").view(np.uint8), bitorder="little")
    return np.flatnonzero(flat).astype(np.int64) + 64 * word


class Shard:
    """The actor owning one shard of the visited set (see :mod:`sdg_automata.search.sharded`).

    Parameters
    ----------
    blob:
        The step tables (:class:`~sdg_automata.search.compiled.tables.StepTables`, with
        their automaton), cloudpickled by the driver (the same bits on every shard): what
        the driver learned walking the first states alone, so that every shard knows those
        steps, and their parts by the same ids, from the start.
    index, shards:
        This shard's number and how many there are.
    head:
        A: the nonterminal whose values are recorded.
    constraint:
        ``(initial, rows, final)`` of the constraint, or ``None``
        (:meth:`~sdg_automata.search.request.Search.constraint_arrays`).
    token:
        The run's identity: every call must carry it.
    store:
        Where the shard keeps its states: ``"packed"`` (keys of one word), or
        ``"records"`` where the ids outgrow a key
        (:data:`~sdg_automata.search.shard_stores.STORES`).
    """

    def __init__(self, blob: bytes, index: int, shards: int, head: str,
                 constraint: Any, token: str, store: str = "packed") -> None:
        import numpy as np

        #: the worker holding this actor (None outside a Dask worker)
        self.worker: Any = None
        try:
            from distributed import get_worker

            self.worker = get_worker()
        except (ImportError, ValueError):  # not on a worker: never abandoned
            pass
        else:  # before the first kernel is loaded: the driver shows what it compiles
            self.worker.metrics[COMPILING] = kernels_compiling
            self.worker.handlers.setdefault(CHANNEL_OP, _take_batches(self.worker))
        from .compiled.tables import StepTables

        self.tables = pickle.loads(blob)  # noqa: S301 -- the driver's own tables
        if not isinstance(self.tables, StepTables):
            raise SdgBug(f"a shard takes step tables, not {type(self.tables).__name__}")
        # the parts of the tables as the driver sent them have the same ids on every shard:
        # never sent, read as they are
        known = self.tables.part_counts
        self.index, self.shards, self.head, self.token = index, shards, head, token
        self.crows, self.cfinal, self.wc, start = _start(self.tables, constraint)
        self.groups = self.tables.groups
        self.width = self.groups + self.wc
        self.letters = len(self.tables.alphabet)
        fixed = [int(self.crows.shape[1])] if self.wc else []
        self.store: ShardStore = STORES[store](self.tables.part_counts, fixed, self.letters)
        self.codes = Growing(np.int64, (), 1 << 12, huge=False)
        self.gids = Growing(np.int64, (), 1 << 12, huge=False)
        self.keys = np.zeros((self.groups, 16), dtype=np.uint64)
        self.keyed = [0] * self.groups
        self._refresh_keys()
        self.peers: list[Any] = []
        #: parts of each group sent to each shard so far
        self.shipped = [list(known) for _ in range(shards)]
        #: per sender and group: the sender's part id -> ours
        self.trans = [[np.arange(c, dtype=np.int32) for c in known] for _ in range(shards)]
        #: the steps this shard learned (its kernel's misses)
        self.lessons = 0
        #: per level expanded (its depth): the batches received, in arrival order
        self.inbox: dict[int, list[tuple[int, Any, Any, Any]]] = {}
        #: per depth: each other shard's word on the level, sent with its last batch (its
        #: summary, and its codes of the level where it is numbered late: :meth:`levels`)
        self.told: dict[int, dict[int, tuple[dict[str, Any], Any]]] = {}
        #: the depth of the level this shard expands next (q₀'s is 0); another shard may
        #: already send the next level's batches while this one merges (:meth:`levels`)
        self.depth = 0
        #: per other shard: how a batch goes to it (:meth:`connect`), a future back
        self.links: list[Callable[..., Any] | None] = []
        self.channels: list[_Channel] = []
        #: per other shard on this machine: its arenas, which its batches lie in
        #: (:meth:`_share`, :mod:`~sdg_automata.search.arena`)
        self.sources: dict[int, Source] = {}
        #: the other shards whose channel to this one closed (:meth:`_peer_gone`)
        self.gone: set[int] = set()
        #: what the last merge says of its level (:meth:`_merge`): q₀'s level first
        self.summary: dict[str, Any] = {"new": 0, "first": {}, "bytes": 0}
        #: our own successors of the level so far: rows 0 … own − 1 of the kept streams
        self.own = 0
        #: memory kept from level to level (:meth:`_kept`)
        self.kept: dict[str, Growing] = {}
        #: the owners' buffers of :meth:`_expand` (:meth:`_buffers`)
        self.buffers: tuple[Any, Any] | None = None
        self.ended = threading.Condition()
        self.aborted = False
        self.round = 0  # the calls of the run so far: a recreated actor would not know it
        self.n = 0
        self.lo = self.hi = 0  # the frontier: states lo … hi − 1
        self.level = (0, 0)  # the states formed by the last merge: q₀'s level first
        self.sent = self.received = self.generated = 0
        self.placed = 0  # the states received that lay in the sender's arena
        self.waited = 0.0
        #: wall seconds of this shard's work by phase (:data:`PHASES`), for benchmarks
        self.seconds = dict.fromkeys(PHASES, 0.0)
        from ..kernels import protocol
        from ..kernels import sharded_native as kernel  # numba's dispatchers if not native

        self.closed = False
        self.key = shard_key(token, index)
        self.kernel = kernel
        self.protocol = protocol  # the kernels' status codes and cursor slots
        owner = self._owner_of(start)
        if owner == index:
            self.store.add_first(start)
            self.codes.array[0] = -1
            self.gids.array[0] = 0
            self.n = self.hi = 1
            self.level = (0, 1)
            self.summary["new"] = 1
        #: what the shard's end lets go (:func:`_let_go`): at its close, or once Dask
        #: dropped it and it is collected (an idle shard whose driver died is not closed)
        self.finalizer: weakref.finalize[Any, Any] | None = None
        if self.worker is not None:
            _hold_heap()
            self.finalizer = weakref.finalize(self, _let_go, self.channels, self.sources)
            self.finalizer.atexit = False  # a worker that exits frees it all anyway

    # -- bookkeeping -------------------------------------------------------------------

    def _abandoned(self) -> bool:
        """Whether the worker no longer holds this actor: the scheduler released its key
        (the driver's client is gone, or it cancelled the run), so no answer is read."""
        return self.worker is not None and self.key not in self.worker.state.actors

    def _stop_if_unwanted(self) -> None:
        if self.aborted or self._abandoned():
            raise _Stopped

    def _run(self, token: str, round_: int, body: Callable[[], _T]) -> _T | None:
        """``body()``, the work of the driver's call ``round_`` of run ``token``.

        Its answer; ``None`` when nobody wants it any more (:class:`_Stopped`: no error
        either, which could keep the shard's frames alive wherever Dask keeps it).  The
        shard's memory is freed unless the call succeeds: a failed call ends the run."""
        self._check(token, round_)
        done = False
        try:
            result = body()
            done = True
            return result
        except _Stopped:
            return None
        except Exception:
            if self.aborted or self._abandoned():  # a peer dropped under us, say: nobody
                return None  # reads the error, and whoever kept it would keep our frames
            raise
        finally:
            if not done:  # also while an error propagates: its frames' views of the
                self.close()  # stores free their maps when the error goes

    def _check(self, token: str, round_: int) -> None:
        """Refuse a call of another run, or one this actor cannot answer (it was made
        anew and lost the shard, or freed it: a wrong answer is never an option)."""
        if self.closed:
            raise ResourceError(f"shard {self.index} of run {self.token} was stopped and "
                                "freed its memory")
        if token != self.token or round_ != self.round:
            raise ResourceError(f"shard {self.index} lost its state (call {round_} of "
                                f"run {token}, shard at call {self.round} of run {self.token})")
        self.round += 1

    def _refresh_keys(self) -> None:
        """Keys of the parts interned since the last call (learning interns parts)."""
        import numpy as np

        counts = self.tables.part_counts
        need = max(counts)
        if need > self.keys.shape[1]:
            grown = np.zeros((self.groups, max(need, 2 * self.keys.shape[1])), np.uint64)
            grown[:, :self.keys.shape[1]] = self.keys
            self.keys = grown
        for g, parts in enumerate(self.tables.parts):
            for pid in range(self.keyed[g], len(parts)):
                self.keys[g, pid] = _part_key(g, parts[pid])
            self.keyed[g] = len(parts)

    def _owner_of(self, record: Any) -> int:
        import numpy as np

        block = np.asarray(record, dtype=np.int32).reshape(1, -1)
        owners = np.zeros(1, dtype=np.uint64)
        self.kernel.owner(self.keys, block, self.groups, self.wc, self.shards, owners)
        return int(owners[0])

    def _room(self, n: int, keep: int, cursor: Any) -> None:
        """Room for a block of new states after n (the states from ``keep`` on kept)."""
        self.store.room(n, keep, cursor)
        if n + BATCH + 1 >= self.codes.capacity:
            for g in (self.codes, self.gids):
                g.grow(2 * g.capacity)

    # -- the calls ---------------------------------------------------------------------

    def connect(self, token: str, round_: int, peers: list[Any],
                addresses: list[str] | None = None) -> int | None:
        """The other shards' actors (``peers[w]`` is shard w) and their workers'
        ``addresses``: on a Dask worker, batches go to each over a comm of its own
        (:class:`_Channel`); elsewhere (``None``, or not on a worker) as calls of its
        :meth:`receive`.  Returns this shard's index (``None``: see :meth:`_run`)."""
        def body() -> int:
            self.peers = peers
            self.links = [None] * self.shards
            for w, peer in enumerate(peers):
                if w == self.index:
                    continue
                if addresses is None or self.worker is None:
                    self.links[w] = functools.partial(_by_call, peer)
                else:
                    self.channels.append(_Channel(self.worker, addresses[w], w, self.index,
                                                  shard_key(self.token, w)))
                    self.links[w] = self.channels[-1].send
            return self.index

        return self._run(token, round_, body)

    async def abort(self) -> None:
        """Stop waiting for others (an async method: it runs while a call is busy)."""
        self.aborted = True

    async def receive(self, sender: int, depth: int, parts: list[list[int]], rows: Any,
                      codes: Any, word: tuple[dict[str, Any], Any] | None = None) -> None:
        """A batch of the level at ``depth`` from shard ``sender``: states in its ids, with
        the parts it had not sent us yet (it waits for our answer before it sends the
        next, so they come in order).  ``word``: its last batch of the level, with what it
        says of the level (:meth:`levels`)."""
        self._take(sender, depth, parts, rows, codes, word)

    def _peer_gone(self, w: int) -> None:
        """Shard ``w``'s channel to this one closed (:func:`_take_batches`): it stopped, or
        its worker died, so a level waiting for its last batch fails now
        (:meth:`_all_sent`), not after :data:`SEND_TIMEOUT`."""
        with self.ended:
            self.gone.add(w)
            self.ended.notify_all()

    def _share(self, sender: int, source: Source) -> bool:
        """Shard ``sender``'s batches will lie in its arenas, which ``source`` maps
        (:func:`_take_batches`); ``False`` if this shard is closed."""
        with self.ended:
            if self.closed or sender in self.sources:
                return False
            self.sources[sender] = source
            return True

    def _take(self, sender: int, depth: int, parts: list[list[int]], rows: Any, codes: Any,
              word: tuple[dict[str, Any], Any] | None) -> None:
        """A batch received (:meth:`receive`, or from a :class:`_Channel`)."""
        with self.ended:  # on the event loop
            if self.closed:
                raise PeerStopped(f"shard {self.index} was stopped: it takes no batch")
            # empty, it may still bring parts
            self.inbox.setdefault(depth, []).append((sender, parts, rows, codes))
            self.received += len(codes)
            if isinstance(codes, Placed):
                self.placed += len(codes)
            if word is not None:
                self.told.setdefault(depth, {})[sender] = word
                self.ended.notify_all()

    async def level_codes(self) -> tuple[int, Any]:
        """The codes of the last merge's new states, as they travel (:meth:`_wire_codes`)."""
        if self.closed:
            raise PeerStopped(f"shard {self.index} was stopped: it has no codes")
        return self._wire_codes(*self.level)

    def levels(self, token: str, round_: int, offset: int | None, found: list[int],
               settle: int, cap: int, seconds: float) -> dict[str, Any] | None:
        """Walk levels until the search ends or ``seconds`` have passed: one call of the
        driver for many levels (issue 36, item 6).

        Each level, every shard steps its part of the level (the successors go to their
        owners) and sends, with its last batch to every other shard, what it says of the
        level (its count of states, each value's first code, its bytes, whether its
        ``seconds`` are up) and its codes of the level.  Once all have come every shard
        knows the same of the level and decides the same: the walk ends when the level is
        empty, when its first state of a value ≥ ``settle`` not in ``found`` settles the
        question (its successors are dropped), or when the states numbered would pass
        ``cap`` (−1: none); else the shard numbers its states (:meth:`_number`), merges
        its successors (:meth:`_merge`) and goes on, until a shard's ``seconds`` are up.
        ``offset``: the first number of the level expanded first (``None``: q₀'s level,
        whose values are not asked).

        The level is numbered *late*: its successors leave with a code made from their
        parent's code (parent's code × letters + letter: ordered as the parents' numbers
        are, for codes are numbered in their order), and the merge turns them into
        parent's number × letters + letter once every shard's codes of the level are in:
        numbering costs no message.  Past :data:`LATE_LIMIT` (int64 codes) a level is
        numbered first, fetching the other shards' codes (:meth:`level_codes`), one
        level a call, so that every shard has merged it.

        A call also ends before a level that could pass ``cap`` (``"near"``): the driver
        decides on it first (:meth:`_pause`).  Returns ``{"levels": per level numbered,
        {"new": its states, "bytes": the shards' bytes then, "firsts": the number of each
        value's first state}, "end": "empty", "settled", "cap", "time" or "near"}``, the
        same on every shard, and ``"pending"``: what this shard says of the level merged
        and not stepped (``None``: see :meth:`_run`)."""
        return self._run(token, round_, lambda: self._levels(offset, set(found), settle,
                                                             cap, seconds))

    def number_level(self, token: str, round_: int, offset: int) -> dict[int, int] | None:
        """Number the last merge's new states from ``offset`` on without stepping them
        (the level settles the question), the other shards' codes fetched
        (:meth:`level_codes`): the number of each value's first state here (``None``:
        see :meth:`_run`)."""
        def body() -> dict[int, int]:
            ranks = self._fetch()
            self._number(offset, ranks)
            return self._numbered(ranks, self.summary["first"], offset)

        return self._run(token, round_, body)

    def _late(self, base: int) -> bool:
        """Whether the level whose first number is ``base`` is numbered late."""
        return (base + 1) * self.letters ** 2 < LATE_LIMIT

    def _levels(self, offset: int | None, found: set[int], settle: int, cap: int,
                seconds: float) -> dict[str, Any]:
        """:meth:`levels`."""
        until = time.monotonic() + seconds
        out: list[dict[str, Any]] = []
        base = offset
        while True:
            late = self._late(0 if base is None else base)
            self.lo, self.hi = self.level
            ranks = None
            if not late and base is not None:  # every shard merged it: the call's first
                ranks = self._fetch()
                self._number(base, ranks)
            # a level numbered first is the call's only one
            over = time.monotonic() >= until or not late
            # our codes of the level, as they go with our last batches (late): ranked too
            mine = self._wire_codes(self.lo, self.hi) if late and self.shards > 1 else None
            self._expand(late, {**self.summary, "over": over}, mine)
            told = self._all_sent()
            if late:
                ranks = self._ranks([codes for _, codes in told.values()], mine)
            if base is None or ranks is None:  # q₀'s level: numbered, its value not asked
                self._merge((0, ranks) if ranks is not None else None)
                base = 1
                end = self._pause(over, told, base, 1, cap)
                if end is not None:
                    return {"levels": out, "end": end, "pending": self.summary}
                continue
            words = [self.summary, *(word for word, _ in told.values())]
            total = sum(w["new"] for w in words)
            firsts: dict[int, int] = {}
            for w in words:
                for v, code in w["first"].items():
                    firsts[v] = min(code, firsts.get(v, code))
            numbered = self._numbered(ranks, firsts, base)
            out.append({"new": total, "bytes": sum(w["bytes"] for w in words),
                        "firsts": numbered})
            if late:  # (a settling level's states too: the witnesses are read from them)
                self._number(base, ranks)
            settles = any(v >= settle and v not in found for v in firsts)
            if total == 0 or settles or 0 <= cap < base + total:
                self.inbox.pop(self.depth, None)  # the successors, not merged
                end = "empty" if total == 0 else "settled" if settles else "cap"
                return {"levels": out, "end": end}
            found.update(firsts)
            self._merge((base, ranks) if late else None)
            base += total
            end = self._pause(over, told, base, total, cap)
            if end is not None:
                return {"levels": out, "end": end, "pending": self.summary}

    def _pause(self, over: bool, told: dict[int, tuple[dict[str, Any], Any]], base: int,
               total: int, cap: int) -> str | None:
        """Whether the call ends with the level just merged (from number ``base``, its
        parents ``total``) still to expand: ``"time"`` when a shard's seconds are up (or
        the level is to be numbered first: :data:`LATE_LIMIT`), ``"near"`` when its states,
        at most letters × its parents, could pass ``cap``: the driver then decides on the
        level from every shard's word (``"pending"``) before any successor of it is made,
        as a call a level did; else ``None``, the same on every shard."""
        if over or any(word["over"] for word, _ in told.values()) or not self._late(base):
            return "time"
        if 0 <= cap < base + self.letters * total:
            return "near"
        return None

    def _numbered(self, ranks: _Ranks, firsts: dict[int, int], base: int) -> dict[int, int]:
        """The number of each value's first state of a level (``firsts``: its code): its
        rank among the level's codes (``ranks``, :meth:`_ranks`) from ``base``, the
        level's first number; one pass for them all."""
        import numpy as np

        values = sorted(firsts, key=firsts.__getitem__)
        keys = np.array([firsts[v] for v in values], dtype=np.int64)
        out = np.zeros(len(keys), dtype=np.int64)
        ranks.number(self.kernel, keys, 0, len(keys), 1, base, out)
        return {v: int(n) for v, n in zip(values, out.tolist(), strict=True)}

    def _expand(self, late: bool, summary: dict[str, Any], mine: tuple[int, Any] | None
                ) -> None:
        """Step every state of the frontier; send each successor to its owner: the kernel
        writes it into its owner's buffer (:func:`~sdg_automata.kernels.sharded.expand`),
        and a buffer that could not take another block of them goes out as one batch
        (FULL); the last to every other shard, with
        ``summary`` and ``mine``: where ``late`` (the frontier not numbered yet, so a
        successor's code is made from its parent's code), the frontier's codes as they
        travel (:meth:`_wire_codes`, :meth:`levels`), else ``None``."""
        import numpy as np

        kernel, protocol = self.kernel, self.protocol
        out, codes = self._buffers()
        room = out.shape[1]
        fill = np.zeros(self.shards, dtype=np.int64)
        # a block of successors, their codes, their owners' sums (the kernel's scratch)
        scratch = (np.empty((BATCH, self.width), dtype=np.int32),
                   np.empty(BATCH, dtype=np.int64), np.empty(BATCH, dtype=np.uint64))
        cursor = np.zeros(8, dtype=np.int64)
        cursor[protocol.SID] = self.lo
        flying: list[Any] = [None] * self.shards
        misses = Misses()
        clock = time.perf_counter
        # a successor's code: the parent's key × letters + letter, its key its code (late)
        # or its number
        keys = self.codes.array if late else self.gids.array
        word = (summary, mine)

        def call() -> int:
            started = clock()
            status = self.store.expand(kernel, self.tables, keys, self.hi,
                                       self.crows, self.wc, self.keys, self.shards, scratch,
                                       out, codes, fill, cursor, 1 << 22)
            self.seconds["step"] += clock() - started
            return int(status)

        def miss() -> None:
            nonlocal out
            started = clock()
            sid, k = int(cursor[protocol.SID]), int(cursor[protocol.LETTER])
            misses.seen((sid, k, int(fill.sum())))
            self.tables.learn(self.store.ids(sid)[:self.groups], k)
            self.lessons += 1
            self._refresh_keys()
            if out.dtype != self._wire():  # an id outgrew 16 bits: so do the buffers
                out = out.astype(self._wire())
                self.buffers = (out, codes)
            self.seconds["learn"] += clock() - started

        def pause() -> None:
            misses.forget()
            self._stop_if_unwanted()

        def route(done: bool) -> bool:  # the buffers a block could overfill (at the end:
            # all) to their owners
            started, waited = clock(), self.waited
            for w in range(self.shards):
                f = int(fill[w])
                full = f + BATCH > room  # the kernel makes a block of successors at a time
                if w == self.index and f and (full or done):
                    self.generated += f
                    self._keep_own(out[w, :f], codes[w, :f])
                    fill[w] = 0
                elif w != self.index and (full or done):  # the last: to every peer
                    self.generated += f
                    self._send(w, out[w, :f], codes[w, :f], flying, word if done else None)
                    fill[w] = 0
            self.seconds["route"] += clock() - started - (self.waited - waited)
            return done

        dispatch(call, {protocol.MISS: miss, protocol.PAUSE: pause,
                        protocol.FULL: lambda: route(False), protocol.DONE: lambda: route(True)})
        for future in flying:
            self._wait(future)

    def _buffers(self) -> tuple[Any, Any]:
        """The owners' buffers (rows, codes), made once and kept from level to level: a
        level's successors pass through the same pages (new buffers each level would be
        faulted in again wherever the C heap had given their memory back or mapped it
        anew)."""
        import numpy as np

        if self.buffers is None or self.buffers[0].dtype != self._wire():
            room = max(MIN_BUFFER_ROWS, BATCH + 1, min(BATCH_STATES, BUFFER_ROWS // self.shards))
            self.buffers = (np.empty((self.shards, room, self.width), dtype=self._wire()),
                            np.empty((self.shards, room), dtype=np.int64))
        return self.buffers

    def _wire(self) -> Any:
        """The type of this shard's ids in a batch it sends and in the level's streams it
        merges (:meth:`_streams`): 16 bits while every id of its own fits them (half the
        bytes on the wire and in the inbox), else 32."""
        import numpy as np

        narrow = max(self.tables.part_counts) <= NARROW and self.crows.shape[1] <= NARROW
        return np.uint16 if narrow else np.int32

    def _keep_own(self, rows: Any, codes: Any) -> None:
        """Our own successors (a full buffer's rows, codes): appended to the level's own
        stream, which leads the memory the merge reads (:meth:`_streams`), so they are
        copied once, into pages kept from level to level (a copy per batch, then into the
        merged rows, had the kernel fault in and zero some 450 MB a run of 1.27·10⁷ states,
        issue 36)."""
        import numpy as np

        n = self.own
        self.sent += len(codes)
        self._kept("raw", rows.dtype, (self.width,), n + len(codes), keep=n)[n:] = rows
        self._kept("rcodes", np.int64, (), n + len(codes), keep=n)[n:] = codes
        self.own = n + len(codes)

    def _send(self, w: int, rows: Any, codes: Any, flying: list[Any],
              word: tuple[dict[str, Any], Any] | None) -> None:
        """Send a batch to shard ``w``, once the batch before it has arrived or, in the
        arena, is held (:meth:`_Channel.send`; ``word``: the last of the level's, see
        :meth:`receive`)."""
        self.sent += len(codes)
        parts = []
        for g, have in enumerate(self.tables.parts):
            parts.append(have[self.shipped[w][g]:])
            self.shipped[w][g] = len(have)
        self._wait(flying[w])
        link = self.links[w]
        assert link is not None
        flying[w] = link(self.index, self.depth, parts, rows, codes, word)

    def _wait(self, future: Any) -> Any:
        """The answer of another shard, waited for in slices (the driver may say stop)."""
        if future is None:
            return None
        started = time.perf_counter()
        try:
            self._wait_for(future)
            return future.result()  # its error, if it failed: a batch it did not take
        finally:  # counted as sending, out of the phase that waits
            waited = time.perf_counter() - started
            self.seconds["send"] += waited
            self.waited += waited

    def _wait_for(self, future: Any) -> None:
        deadline = time.monotonic() + SEND_TIMEOUT
        while not answered(future, 1.0):
            self._stop_if_unwanted()
            if time.monotonic() > deadline:
                raise ResourceError(f"shard {self.index}: another shard took no batch or "
                                    f"ended no level "
                                    f"for {SEND_TIMEOUT:g} s")

    def _streams(self) -> tuple[Any, Any, Any, Any]:
        """The batches received, as :func:`~sdg_automata.kernels.sharded.absorb` reads them:
        one stream per sender (rows, codes, heads, ends), each in arrival order, so sorted
        by code, and in this shard's part ids: each sender's parts are interned in the
        order they were sent, and its batches translated as they are copied in
        (:func:`~sdg_automata.kernels.sharded.translate`); each stream's sentinel after
        it."""
        import numpy as np

        inbox: list[Any] = self.inbox.pop(self.depth, [])
        batches: dict[int, list[int]] = {}
        for i, (sender, parts, _, _) in enumerate(inbox):
            batches.setdefault(sender, []).append(i)
            known = self.trans[sender]
            for g, new in enumerate(parts):
                if new:
                    ids = np.array([self.tables.part_id(g, p) for p in new], dtype=np.int32)
                    known[g] = np.concatenate([known[g], ids])
        self._refresh_keys()
        own, self.own = self.own, 0
        senders = ([self.index] if own else []) + sorted(batches)
        # a row after each stream: its sentinel, the largest code (absorb's merge then
        # needs no test of a stream's end)
        total = own + sum(len(codes) for _, _, _, codes in inbox) + len(senders)
        # our own stream is rows 0 … own − 1 already (:meth:`_keep_own`); the others follow,
        # in our ids, which the wire type of our tables holds
        raw = self._kept("raw", self._wire(), (self.width,), total, keep=own)
        rcodes = self._kept("rcodes", np.int64, (), total, keep=own)
        heads = np.zeros(len(senders), dtype=np.int64)
        ends = np.zeros(len(senders), dtype=np.int64)
        offsets = np.full(self.width, -1, dtype=np.int64)  # (the constraint's: as it is)
        at = 0
        for s, who in enumerate(senders):
            heads[s] = at
            if who == self.index:  # in place already
                at = own
            else:
                tables = self.trans[who]
                offsets[:self.groups] = np.cumsum([0, *(len(t) for t in tables[:-1])])
                table = np.concatenate(tables)
                self._map_arenas(who, [inbox[i] for i in batches[who]])
                for i in batches[who]:
                    _, _, rows, codes = inbox[i]
                    if isinstance(rows, Placed):  # in the sender's arena: read in place
                        rows, codes = self.sources[who].view(rows), self.sources[who].view(codes)
                    self.kernel.translate(rows, table, offsets, raw[at:at + len(codes)])
                    rcodes[at:at + len(codes)] = codes
                    at += len(codes)
                    inbox[i] = None  # the received batch goes as soon as it is copied
            ends[s] = at
            rcodes[at] = _NO_CODE
            at += 1
        return raw, rcodes, heads, ends

    def _map_arenas(self, sender: int, batches: list[Any]) -> None:
        """Map shard ``sender``'s arenas as far as ``batches`` (inbox entries) lie in
        them, before any is read."""
        ends: dict[int, int] = {}
        for _, _, rows, codes in batches:
            if isinstance(rows, Placed):
                ends[rows.parity] = max(ends.get(rows.parity, 0), rows.end, codes.end)
        for parity, end in ends.items():
            self.sources[sender].ensure(parity, end)

    def _kept(self, name: str, dtype: Any, tail: tuple[int, ...], rows: int, *,
              keep: int = 0) -> Any:
        """An array of ``rows`` rows in memory kept from level to level, its first ``keep``
        rows as they were (as ``dtype``; the rest undefined): a level's states are copied
        into pages faulted in once, not into new arrays each level (whose pages the kernel
        zeroes on first touch: 16% of a shard's samples, issue 36 item 6).  Given back at
        the end of a level that used a quarter of it (:meth:`_trim_kept`)."""
        import numpy as np

        have = self.kept.get(name)
        if have is not None and (have.dtype != np.dtype(dtype) or have.tail != tail):
            kept = have.array[:keep].astype(dtype)  # ids widened mid-level: rare
            have.close()
            have = self.kept[name] = Growing(dtype, tail, max(rows, 1 << 12), huge=False)
            have.array[:keep] = kept
        elif have is None:
            have = self.kept[name] = Growing(dtype, tail, max(rows, 1 << 12), huge=False)
        elif rows > have.capacity:
            have.grow(max(rows, have.capacity + have.capacity // 2))
        return have.array[:rows]

    def _trim_kept(self, used: int, names: tuple[str, ...]) -> None:
        """Give back the kept memory ``names`` (:meth:`_kept`) when this level used a
        quarter of it (``used`` rows)."""
        for name in names:
            have = self.kept.get(name)
            if have is not None and 4 * used < have.capacity and have.capacity > 1 << 16:
                have.close()
                del self.kept[name]

    def _all_sent(self) -> dict[int, tuple[dict[str, Any], Any]]:
        """Wait until every other shard has sent its last batch of the level, in slices
        (the driver may say stop); :data:`SEND_TIMEOUT` without one is a lost shard.
        Returns what each said of the level (:meth:`receive`)."""
        started = time.perf_counter()
        deadline = time.monotonic() + SEND_TIMEOUT
        with self.ended:
            while len(self.told.get(self.depth, ())) < self.shards - 1:
                silent = self.gone - set(self.told.get(self.depth, ()))
                if silent:
                    raise PeerStopped(f"shard {min(silent)} stopped: it ends no level")
                self.ended.wait(1.0)
                if len(self.told.get(self.depth, ())) < self.shards - 1:
                    self._stop_if_unwanted()
                    if time.monotonic() > deadline:
                        raise ResourceError(f"shard {self.index}: another shard ended no "
                                            f"level for {SEND_TIMEOUT:g} s")
            told = self.told.pop(self.depth, {})
        waited = time.perf_counter() - started
        self.seconds["send"] += waited
        self.waited += waited
        return told

    def _merge(self, late: tuple[int, _Ranks] | None) -> None:
        """Dedupe the batches received against the shard: the new states become the next
        level, in code order.  ``late``: the frontier's first number and every shard's
        codes of it (:meth:`_ranks`), to turn the new states' codes, made from their
        parents' codes, into their parents' numbers × letters + letter
        (:meth:`levels`).  What this shard says of its new level (:attr:`summary`):
        their count, each value's first code among them (A's value, where the
        constraint accepts) and the shard's bytes."""
        import numpy as np

        kernel, protocol = self.kernel, self.protocol
        clock = time.perf_counter
        started = clock()
        fresh = self.n
        cursor = np.zeros(8, dtype=np.int64)
        cursor[protocol.N] = fresh
        streams = raw, _, _, _ = self._streams()
        self.store.fit(self.tables, fresh)  # the ids interned may need wider fields
        cursor[protocol.SID] = fresh  # the first state the store must keep ids of
        # each value's first new state, noted as the merge meets it: A's values, read after
        # the parts received are interned (the table grows with them)
        group, values = self.tables.values(self.head)
        first = np.full(int(values.max(initial=-1)) + 1, -1, dtype=np.int64)
        firsts = (values, group, self.wc, self.cfinal, first)

        def call() -> int:  # the store's arrays are read anew: a growth replaces them
            return self.store.absorb(kernel, self.codes.array, streams, firsts, cursor)

        dispatch(call, {protocol.FULL: lambda: self._room(int(cursor[protocol.N]), fresh,
                                                          cursor),
                        protocol.DONE: stop})
        self.seconds["absorb"] += clock() - started
        n = self.n = int(cursor[protocol.N])
        if late is not None:
            started = clock()
            base, ranks = late
            codes = self.codes.array
            ranks.number(kernel, codes, fresh, n, self.letters, base, codes)
            self.seconds["number"] += clock() - started
        self._trim_kept(len(raw), ("raw", "rcodes"))
        self.level = (fresh, n)
        self.depth += 1
        codes_of = self.codes.array
        self.summary = {"new": n - fresh,
                        "first": {v: int(codes_of[r]) for v, r in enumerate(first.tolist())
                                  if r >= 0},
                        "bytes": self.store.nbytes(n) + 16 * n + self.keys.nbytes
                        + sum(c.arena.nbytes for c in self.channels if c.arena is not None)}

    def _fetch(self) -> _Ranks:
        """Every shard's codes of the last merge's new states (:meth:`_ranks`), the other
        shards' asked for (:meth:`level_codes`)."""
        started, waited = time.perf_counter(), self.waited
        asked = [peer.level_codes() for w, peer in enumerate(self.peers) if w != self.index]
        theirs = [self._wait(future) for future in asked]
        self.seconds["number"] += time.perf_counter() - started - (self.waited - waited)
        return self._ranks(theirs)

    def _wire_codes(self, lo: int, hi: int) -> tuple[int, Any]:
        """Codes ``lo`` … ``hi`` − 1 (increasing) as they go to the other shards:
        ``(w, bits)``, their bitmap from word w on (uint64:
        :func:`~sdg_automata.kernels.sharded.mark`, from code 64w), or ``(0, codes)``
        (int64) where the codes take no more bytes: a word a code or more (many letters,
        a shard among many, a level much smaller than the one before).  A level's codes
        lie within letters × the level before's states (parent's number × letters +
        letter), so on the binary 1.27·10⁷-state instance a bitmap takes under 2 bits a
        state, where the codes took 64."""
        import numpy as np

        codes = self.codes.array
        if hi == lo:
            return 0, np.zeros(0, dtype=np.int64)
        first, end = _words(codes[lo:hi])
        if end - first >= hi - lo:
            return 0, codes[lo:hi].copy()
        bits = np.zeros(end - first, dtype=np.uint64)
        self.kernel.mark(codes, lo, hi, first * 64, bits)
        return first, bits

    def _ranks(self, theirs: list[tuple[int, Any]], mine: tuple[int, Any] | None = None
               ) -> _Ranks:
        """Every shard's codes of the last merge's new states, ours and ``theirs`` (the
        other shards', :meth:`_wire_codes`), as :class:`_Ranks`: one bitmap where its
        words are no more than the codes (memory at most their 8 bytes each, as every
        shard's codes sorted would take), else the codes sorted.  ``mine``: ours as they
        went to the others, if they did: a bitmap of them is or-ed in, not made again."""
        import numpy as np

        started = time.perf_counter()
        lo, hi = self.level
        codes = self.codes.array
        count = hi - lo
        spans = [_words(codes[lo:hi])] if hi > lo else []
        for at, got in theirs:
            if len(got) and got.dtype == np.uint64:
                spans.append((at, at + len(got)))
                count += int(np.bitwise_count(got).sum())
            elif len(got):
                spans.append(_words(got))
                count += len(got)
        first = min((a for a, _ in spans), default=0)
        end = max((b for _, b in spans), default=first + 1)
        if end - first > max(count, 1):  # sparse: the codes take fewer bytes
            self._trim_kept(0, ("ranks",))
            every = [codes[lo:hi], *(got if got.dtype == np.int64 else _unmark(at, got)
                                     for at, got in theirs)]
            ranks = _Ranks(codes=np.sort(np.concatenate(every)))
        else:
            self._trim_kept(end - first, ("ranks",))
            bits = self._kept("ranks", np.uint64, (), end - first)
            bits[:] = 0
            if mine is not None and mine[1].dtype == np.uint64:
                theirs = [*theirs, mine]
            else:
                self.kernel.mark(codes, lo, hi, 64 * first, bits)
            for at, got in theirs:
                if got.dtype == np.uint64:
                    bits[at - first:at - first + len(got)] |= got
                else:
                    self.kernel.mark(got, 0, len(got), 64 * first, bits)
            ranks = _Ranks(bits=bits, origin=64 * first)
        self.seconds["number"] += time.perf_counter() - started
        return ranks

    def _number(self, offset: int, ranks: _Ranks) -> None:
        """Number the last merge's new states from ``offset`` on, as one process would
        (their rank among every shard's codes: ``ranks``, :meth:`_ranks`)."""
        started = time.perf_counter()
        lo, hi = self.level
        ranks.number(self.kernel, self.codes.array, lo, hi, 1, offset, self.gids.array)
        self.seconds["number"] += time.perf_counter() - started

    def trace(self, token: str, round_: int, wanted: list[int]
              ) -> dict[int, tuple[list[int], int]] | None:
        """For each state number in ``wanted`` stored here: the letters read to reach it,
        last first, as far back as the tree stays in this shard, and the number reached
        (0: q₀; ``None``: see :meth:`_run`)."""
        return self._run(token, round_, lambda: self._trace(wanted))

    def _trace(self, wanted: list[int]) -> dict[int, tuple[list[int], int]]:
        import numpy as np

        gids = self.gids.array[:self.n]
        codes = self.codes.array
        out: dict[int, tuple[list[int], int]] = {}
        for start in wanted:
            g, read = start, []
            while g > 0:
                i = int(np.searchsorted(gids, g))
                if i >= self.n or gids[i] != g:
                    break
                g, letter = divmod(int(codes[i]), self.letters)
                read.append(letter)
            if read:
                out[start] = (read, g)
        return out

    def usage(self, token: str, round_: int) -> dict[str, float]:
        """This worker process's CPU seconds (user + system) and peak RSS bytes so far, the
        successors this shard generated, sent (to itself too) and received (``"placed"``:
        those it read in the sender's arena, :mod:`~sdg_automata.search.arena`), the steps it
        learned (``"lessons"``), and the wall seconds of its work by phase
        (:data:`PHASES`; waits for other shards are ``"send"``)."""
        import resource

        self._check(token, round_)  # reads only: nothing to free if it failed
        r = resource.getrusage(resource.RUSAGE_SELF)
        return {"cpu": r.ru_utime + r.ru_stime, "peak": float(r.ru_maxrss * 1024),
                "generated": self.generated, "sent": self.sent, "received": self.received,
                "placed": self.placed, "lessons": self.lessons,
                **self.seconds}

    def close(self) -> None:
        """Give the shard's memory back now: its stores, the batches received, the step
        tables; every later call is refused."""
        with self.ended:  # a batch is taken under it (see :meth:`_take`)
            if self.closed:
                return
            self.closed = True
        self.store.close()
        for growing in (self.codes, self.gids, *self.kept.values()):
            growing.close()
        self.kept = {}
        self.inbox, self.told, self.peers, self.trans, self.buffers = {}, {}, [], [], None
        self.links, self.channels = [], []
        del self.tables, self.keys
        if self.finalizer is not None:
            self.finalizer()  # the channels closed, the heap let go
        else:
            _trim_heap()
