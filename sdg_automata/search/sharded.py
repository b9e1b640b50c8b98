"""One breadth-first search sharded over a Dask cluster: the visited set of one huge
instance split among the workers' memories (issue 27, item 3).

:func:`sharded_bfs` answers what ``max_grundy(..., strategy="bfs")`` answers,
with the same maximum, witnesses and state count, while each worker holds only its
shard of the visited set: it is the ``dask`` search engine
(:mod:`sdg_automata.search.engines.dask`), ``max_grundy(..., engine="dask",
options={"scheduler": "tcp://HOST:PORT"})``, on the command line ``max GRAMMAR A
--engine dask --scheduler tcp://HOST:PORT``.

Design
------
* **One actor per worker** (:class:`~sdg_automata.search.shard.Shard`, in
  :mod:`sdg_automata.search.shard`: ``client.submit(..., actor=True)`` pinned to its
  worker) owns the states whose *owner hash* falls on it: a salted hash
  (:func:`~sdg_automata.kernels.sharded.owner`) independent of the hash
  the shard's own open-addressing table uses, so that a shard's table is not filled by
  keys that all share a residue.
* **Encodings agree across workers.**  Each shard learns its compiled step
  (:class:`~sdg_automata.search.compiled.tables.StepTables`) lazily, as one process does, so
  the part ids of two shards differ past those of the tables the driver sent.  What is
  canonical is the part itself (a bitset of items of the automaton the driver built and
  shipped whole with its tables, by cloudpickle: the automaton's item order depends on
  the string hash seed, so no worker rebuilds it).  So
  (i) the owner hash adds up, per part, a key computed from its group and bitset
  (:func:`~sdg_automata.search.shard._part_key`), the same on every shard; (ii) a batch
  of states goes out in the sender's ids (16 bits while they fit) with the parts the
  receiver has not been sent yet (the sender appends parts, never renumbers: a count per
  receiver says which are new), and the receiver interns them once and translates each
  id as it copies the batch into the level's streams, which it does anyway
  (:func:`~sdg_automata.kernels.sharded.translate`: a lookup in a table of thousands, in
  cache; inside the merge, a branch per id on the row's sender cost 0.1–0.5 s more of the
  shards' CPU on 1.27·10⁷ states).
* **The first levels' steps are learned once, by the driver.**  Before the shards
  start, the driver walks the first :data:`LESSON_STATES` states alone, as one process
  would (:func:`_lessons`), and ships the step tables it learned (with their automaton):
  the shards' states are random halves of the same levels, so each shard learned nearly
  every step one process learns, and paid for it in Python; now those parts also have the
  same ids on every shard, and are never sent.
* **A shard keeps packed keys.**  Its states are keys of one word in the ordered table of
  the one-process walk's table store
  (:class:`~sdg_automata.search.compiled.packed.PackedStore`): a lookup compares one
  word; the frontier is its ring of keys (:mod:`sdg_automata.search.shard_stores`).
  Ids that outgrow a key (:class:`~sdg_automata.search.compiled.stores.KeyTooWide`)
  send the whole search again on records, as one process does.
* **A level at a time, with the one-process order.**  One process numbers states in
  discovery order: level by level, and within a level by (number of the parent, letter)
  of the first edge reaching them; its witness for a value is the tree path to the
  value's first state.  Here a successor travels with its code ``parent's number ×
  letters + letter``; each sender's batches come in code order, so the owner reads them
  as one stream per sender merged by code
  (:func:`~sdg_automata.kernels.sharded.absorb`): the first time it meets a state is by
  its least code, and its new states come out in code order, with no sort.  It numbers
  them by their rank among all shards' codes (the set bits below theirs in one bitmap
  of the level's codes: :func:`~sdg_automata.kernels.sharded.number`): the numbers one
  process would give.  The codes need not wait for the numbers: a level is expanded
  before it is numbered, its successors' codes made from their parents' *codes*
  (ordered as the numbers are), each shard's codes of the level sent along with its
  last batch to every other (as a bitmap where that is smaller: they lie within letters ×
  the level before's states, :meth:`Shard._wire_codes`), and the
  merged successors' codes turned into parent's number × letters + letter once they are
  all in (:meth:`Shard.levels`), so numbering costs no message.  A state's code is
  also its tree edge, so witnesses are read back from the shards (:meth:`Shard.trace`),
  and the walk stops exactly where one process stops: at the first state (by number)
  whose value settles the question, counting the states numbered before it.
* **The shards walk the levels; the driver calls them a slice at a time.**  A call
  (:meth:`Shard.levels`, :data:`SLICE` seconds of levels) runs level after level: each
  shard steps its part of the level in a kernel that writes each successor into its
  owner's buffer, sends the full buffers straight to their owners, each shard to each
  over a Dask comm of their own (``distributed.comm``; a message a batch, acked once
  taken but for a level's last: an actor call, a round trip through the actors'
  machinery, cost 3× the CPU; between workers of one machine the batches lie in memory
  both map, :mod:`~sdg_automata.search.arena`, and one message a level says where), in
  batches of up to
  :data:`~sdg_automata.search.shard.BATCH_STATES` states, at most two in flight per
  receiver while it computes the next, and the last of the level to every
  other shard with what it says of the level (its count of states, each value's first
  code, its bytes, whether its slice is up) and its codes of the level: one message each
  way between two shards.  Once all have come every shard knows the same of the level
  and decides the same: the walk ends at an empty level, at the level whose first state
  of a value settles the question, or at the level that would pass the state budget;
  else each numbers its states, dedupes what it received and goes on, until a shard's
  slice is up, or until the next level's states could pass the state budget (at most
  letters × this level's: the driver decides on that level before anyone steps it, so
  the budget bounds memory as one level a call did).  A level that settles the question
  is known once stepped: within a call its successors are made and dropped (one level's
  work more than one process); at a call's end the driver decides first
  (:func:`_settled`).  A level thus costs one message each way between every two shards and
  none of the driver's, where a call of the driver a level cost as much again.  The
  driver replays each level's answer as its loop of one level a call did (the same
  budget checks in the same order; codes are in the order of the numbers, so a level's
  first states are known when it is merged), and between calls serves the budget
  (states exactly, seconds, progress) and Ctrl-C; while it waits, the seconds, the
  workers' health and what they compile (a fresh cluster compiles the kernels first:
  the progress display says so while the count stands still).  The search pays off on
  wide levels only.  A one-letter walk (one state per level) is never sharded: it runs
  here with ``strategy="lasso"``; and once, :data:`PROBE_SECONDS` after the first
  level, levels narrower than :data:`MIN_WIDTH` send the search to this process
  (:class:`_Probe`), each with an :class:`~sdg_automata.errors.EngineNotice`.
* **Failure is loud and harmless.**  Every wait is bounded: the driver polls its
  calls and checks that the shards' workers are alive; a lost worker (or a shard
  that no longer has the state it should have: an actor recreated elsewhere) ends
  the run with :class:`~sdg_automata.errors.ResourceError` (exit 3, one ``error:``
  line).  No partial result is ever returned: a run is restartable by running it
  again.  Shards still busy are told to abort and their memory goes with them.
* **A run's shards go with its driver.**  Dask drops an actor once no client holds
  its future: a driver killed, or cut off from the scheduler, takes its shards with
  it, and a shard busy in a level notices within a second and frees its memory (see
  :mod:`sdg_automata.search.shard`).  Nothing else holds them: no published dataset,
  no worker-side global, no future kept by a worker.  A driver cut off but alive
  learns it at its next wait: "the scheduler released this search's shards", exit 3.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceeded, InputError, Interrupted, ResourceError, SdgBug, SdgError
from ..kernels import sharded_native
from ..kernels.native import prepare
from ..runtime.budget import Budget, Meter
from ..runtime.engines import Unfit
from .compiled.stores import KeyTooWide
from .constraint import one_letter
from .request import SearchResult, read_witness
from .shard import COMPILING, PeerStopped, Shard, answered, shard_key
from .shard_stores import STORES

if TYPE_CHECKING:
    from ..grammar.words import Word
    from .compiled.tables import StepTables
    from .request import Search

__all__ = ["sharded_bfs"]

#: seconds between two looks at the workers' health while the driver waits
POLL = 0.5
#: seconds of levels a call of the driver asks of the shards (:meth:`Shard.levels`):
#: between two calls the driver shows the progress and checks the budget (the seconds
#: also while it waits, every :data:`POLL`)
SLICE = 0.5
#: seconds the driver gives the scheduler to notice a lost worker when a shard fails
LOSS_GRACE = 10.0
#: a shard's worker that has sent the scheduler no heartbeat for this long (workers beat
#: every few seconds whatever their actor computes) is frozen or unreachable: lost, even
#: though the scheduler keeps listing it until its worker-ttl (5 minutes by default)
SILENT_SECONDS = 60.0
#: seconds of levels (from the end of the first call's, past the kernels' compilation)
#: after which the driver judges, once, whether the levels are wide enough to shard
PROBE_SECONDS = 5.0
#: the fewest states a level must hold, on average and the latest, to be worth its round
#: trips: at 6–46 ms per level (measured on two workers, idle to loaded, with two driver
#: round trips a level; since issue 36 none, and a message each way between two shards:
#: cheaper, not measured again) a level of 1,000 states runs at 20–170 k states/s, a
#: tenth or less of one process's ~1.15 M/s
MIN_WIDTH = 1000
#: the states the driver walks alone first, to learn the steps of the first levels once
#: (:func:`_lessons`): on the binary 1.27·10⁷-state instance each of two shards learned
#: about 3,870 steps, nearly all of one process's 3,882, 89% of them within the first
#: 2.5·10⁵ states (the walk past them costs the driver about 0.03 s)
LESSON_STATES = 1 << 18


class _Narrow(Exception):
    """The levels are too narrow to shard (:data:`MIN_WIDTH`): the search goes to one
    process.  Carries what was measured, for the note."""

    def __init__(self, levels: int, states: int, seconds: float) -> None:
        super().__init__(levels, states, seconds)
        self.levels, self.states, self.seconds = levels, states, seconds


class _Probe:
    """The levels' width, judged once :data:`PROBE_SECONDS` after the first call's levels
    came back (before, the workers may still be compiling; the driver learns the levels
    of a call when it ends, :data:`SLICE`): :class:`_Narrow` when the levels since
    held fewer than :data:`MIN_WIDTH` states on average and the latest did too.  Judged
    once only, so a wide search's thin last levels never send it elsewhere."""

    def __init__(self) -> None:
        self.start: tuple[float, int, int] | None = None  # clock, level, states then
        self.judged = False

    def level(self, level: int, states: int, width: int) -> None:
        """Level ``level`` ended, holding ``width`` states, ``states`` numbered in all."""
        now = time.perf_counter()
        if self.start is None:
            self.start = (now, level, states)
            return
        since, first, before = self.start
        if self.judged or now - since < PROBE_SECONDS:
            return
        self.judged = True
        levels = level - first
        if width < MIN_WIDTH and states - before < MIN_WIDTH * levels:
            raise _Narrow(levels, states - before, now - since)


class _Cluster:
    """The driver's side: the shards' actors, and bounded waits on their calls."""

    def __init__(self, client: Any, search: Search, token: str, meter: Meter,
                 store: str, tables: StepTables) -> None:
        #: per worker: the scheduler's last_seen when it last changed, and our clock then
        self._beats: dict[str, tuple[Any, float]] = {}
        #: the workers as the scheduler last described them (:meth:`lost`)
        self._workers: dict[str, Any] = {}
        self.meter = meter
        #: whether the progress display says that workers compile (:meth:`_watch`)
        self.compiling = False
        import cloudpickle  # type: ignore[import-untyped]  # dask's dependency

        info = client.scheduler_info(n_workers=-1)
        self.client = client
        self.addresses = sorted(info["workers"])
        if not self.addresses:
            raise InputError("the Dask cluster has no workers")
        self.token = token
        self.round = 0
        self.futures: list[Any] = []
        self.actors: list[Any] = []
        try:  # the shards started so far go if any fails to start
            blob = cloudpickle.dumps(tables)
            constraint = search.constraint_arrays()
            self.futures = [
                client.submit(Shard, blob, i, len(self.addresses), search.head, constraint,
                              token, store, actor=True, workers=[address],
                              allow_other_workers=False, pure=False, retries=0,
                              key=shard_key(token, i))
                for i, address in enumerate(self.addresses)]
            self.actors = [self._result(f, f"starting shard {i}")
                           for i, f in enumerate(self.futures)]
            self.call("connect", self.actors, self.addresses)
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        return len(self.addresses)

    def lost(self, what: str = "searching") -> list[str]:
        """The shards' workers the scheduler no longer has, or that have been silent for
        :data:`SILENT_SECONDS` (a heartbeat's time is the scheduler's ``last_seen``, whose
        changes are timed on our clock: the two clocks need not agree).

        Asked of the scheduler each time: ``Client.scheduler_info`` answers from a cache
        when it cannot ask, and the cache lists no worker while the client reconnects
        (every worker then looked lost).  A client that cannot ask any more ends the run
        (:meth:`_disconnected`)."""
        scheduler = self.client.scheduler  # None once the client gave up reconnecting
        if scheduler is None:
            raise self._disconnected(what, ConnectionError("the client closed its connection"))
        try:
            info = self.client.sync(scheduler.identity, n_workers=-1)
        except (OSError, RuntimeError) as e:  # RuntimeError: the client's pool is closed
            raise self._disconnected(what, e) from None
        workers = self._workers = info["workers"]
        now = time.monotonic()
        gone = []
        for a in self.addresses:
            if a not in workers:
                gone.append(a)
                continue
            seen = workers[a].get("last_seen")
            if self._beats.get(a, (None, 0.0))[0] != seen:
                self._beats[a] = (seen, now)
            elif now - self._beats[a][1] > SILENT_SECONDS:
                gone.append(f"{a} (no heartbeat for {SILENT_SECONDS:g} s)")
        return gone

    def _result(self, future: Any, what: str) -> Any:
        """``future``'s result, waited for in slices of :data:`POLL` seconds, checking that
        every shard's worker is still there between them."""
        try:
            while not answered(future, POLL):
                self._watch(what)
            return future.result()
        except (KeyboardInterrupt, SdgError, KeyTooWide):  # KeyTooWide: sharded_bfs's
            raise
        except Exception as e:  # a shard's failure, or its worker gone under the call
            raise self._failure(e, what) from None

    def _watch(self, what: str) -> None:
        """Between two looks at a call: the shards' workers are all there (:meth:`lost`),
        the deadline has not passed, and the progress display says so while workers
        compile the kernels (the count stands still meanwhile: the first levels on a fresh
        cluster; :func:`~sdg_automata.search.shard.kernels_compiling`).  A run the
        scheduler released (the client's futures cancelled when it reconnects) ends here
        too, whether or not a call in flight ever answers."""
        if self._cancelled():
            raise self._released(what)
        gone = self.lost(what)
        if gone:
            raise self._lost(gone, what)
        meter = self.meter
        if time.perf_counter() > meter.deadline:
            raise meter.exceeded(meter.count, f"{meter.budget.max_seconds:g} s")
        busy = sum(1 for a in self.addresses
                   if (self._workers.get(a, {}).get("metrics") or {}).get(COMPILING, 0) > 0)
        if busy:
            of = f"{busy} of {self.size}" if busy < self.size else f"{busy}"
            meter.describe(f"compiling the kernels on {of} worker{'s' if of != '1' else ''}…")
            self.compiling = True

    def counting(self) -> None:
        """A level is done: the progress display counts states again."""
        if self.compiling:
            self.meter.describe(None)
            self.compiling = False

    def _failure(self, e: Exception, what: str) -> ResourceError:
        """The error for a call that failed with ``e``: a lost worker's, if one was lost."""
        if self._cancelled():
            return self._released(what)
        gone = self._settled_loss(what)
        if gone:
            return self._lost(gone, what)
        return ResourceError(f"{what} failed on the Dask cluster: {type(e).__name__}: {e}")

    def _settled_loss(self, what: str) -> list[str]:
        """:meth:`lost`, after giving the scheduler :data:`LOSS_GRACE` seconds to notice: a
        shard that could not reach a dead one may fail before the scheduler knows."""
        deadline = time.monotonic() + LOSS_GRACE
        while True:
            gone = self.lost(what)
            if gone or time.monotonic() > deadline:
                return gone
            time.sleep(0.1)

    def _lost(self, gone: list[str], what: str) -> ResourceError:
        return ResourceError(f"Dask worker {', '.join(gone)} was lost while {what}: "
                             "nothing was concluded; run the search again")

    def call(self, method: str, *args: Any, what: str | None = None,
             each: Sequence[tuple[Any, ...]] | None = None) -> list[Any]:
        """``method(token, round, *args)`` on every shard at once (``each[i]``: shard i's
        own arguments instead); their answers, once all have answered: a barrier."""
        round_ = self.round
        self.round += 1
        try:
            futures = [getattr(actor, method)(self.token, round_, *(each[i] if each else args))
                       for i, actor in enumerate(self.actors)]
        except Exception as e:  # Dask refuses to call an actor whose future was lost
            raise self._failure(e, what or method) from None
        try:
            answers = [self._result(f, what or method) for f in futures]
        except PeerStopped as e:  # the consequence of another shard's stop: say that one's
            raise self._cause(futures, e, what or method) from None
        if any(a is None for a in answers):  # a shard whose worker no longer holds it
            raise self._released(what or method)
        return answers

    def _cause(self, futures: list[Any], stopped: PeerStopped, what: str) -> SdgError:
        """Why a shard stopped, which made another's call fail with ``stopped``: its own
        call's error, or the scheduler's release of it (it answers nothing), as far as
        the calls tell within :data:`LOSS_GRACE` seconds; else a lost worker's (its shard
        answers nothing either), or ``stopped``."""
        deadline = time.monotonic() + LOSS_GRACE
        while time.monotonic() < deadline:
            for future in futures:
                if not future.done():
                    continue
                try:
                    answer = self._result(future, what)
                except PeerStopped:
                    continue
                except SdgError as e:
                    return e
                if answer is None:
                    return self._released(what)
            gone = self.lost(what)  # a dead worker's shard answers nothing: its comm
            if gone:  # closed, which stopped the others
                return self._lost(gone, what)
            if all(f.done() for f in futures):
                break
            time.sleep(0.05)
        # the scheduler may take longer to see a worker die than its peer took to feel it
        # (in one CI run a killed worker was still listed 10 s after its peer stopped)
        gone = self._settled_loss(what)
        return self._lost(gone, what) if gone else stopped

    def _disconnected(self, what: str, e: Exception) -> ResourceError:
        """The error when the client can no longer ask the scheduler (``e``): the
        scheduler's release of the run (:meth:`_released`), if the client learns of it
        within :data:`LOSS_GRACE` seconds (a scheduler that drops a client's connection
        releases what it held), else the lost connection's."""
        deadline = time.monotonic() + LOSS_GRACE
        while time.monotonic() < deadline:
            if self._cancelled():
                return self._released(what)
            time.sleep(0.1)
        return ResourceError(f"lost the connection to the Dask scheduler while {what} "
                             f"({type(e).__name__}: {e}): nothing was concluded; run the "
                             "search again")

    def _cancelled(self) -> bool:
        """Whether the scheduler released the run: the client cancelled its shards'
        futures (it does so when it reconnects)."""
        return any(f.status == "cancelled" for f in self.futures)

    def _released(self, what: str) -> ResourceError:
        return ResourceError(f"the Dask scheduler released this search's shards while {what} "
                             "(it does so when it loses this client's connection): nothing "
                             "was concluded; run the search again")

    def close(self) -> None:
        """Stop the shards (an async call each, answered even by a busy shard) and let the
        actors go."""
        told = []
        for actor in self.actors:  # a dead shard's actor refuses at once (RuntimeError)
            with contextlib.suppress(Exception):
                told.append(actor.abort())
        for future in told:  # answered from the shard's event loop, so it comes at once; and
            answered(future, 2.0)  # the client must not close before the message is out
        for actor in self.actors:
            with contextlib.suppress(Exception):
                answered(actor.close(), 2.0)
        with contextlib.suppress(Exception):
            self.client.cancel(self.futures, force=True)


@contextlib.contextmanager
def _shards(client: Any, search: Search, meter: Meter, store: str, tables: StepTables
            ) -> Iterator[_Cluster]:
    cluster = _Cluster(client, search, uuid.uuid4().hex, meter, store, tables)
    try:
        yield cluster
    finally:
        cluster.close()


def _walk(cluster: _Cluster, search: Search, usage: Callable[[list[dict[str, float]]], None] | None
          ) -> tuple[dict[int, str | Word], int, bool, int]:
    """The levels, :data:`SLICE` seconds of them a call (:meth:`Shard.levels`); then the
    witnesses.  Returns (found, states, complete, peak bytes)."""
    meter, budget = cluster.meter, cluster.meter.budget
    cap = -1 if budget.max_states is None else budget.max_states
    settle = search.settle
    found: dict[int, int] = {}
    offset = 1  # the next state's number (q₀ is 0)
    complete = True
    peak = 0
    level = 0
    probe = _Probe()
    try:
        at: int | None = None  # q₀'s level first
        while True:
            answers = cluster.call("levels", at, sorted(found), settle, cap, SLICE,
                                   what=f"expanding level {level + (at is not None)} or "
                                        "one after it")
            said = [{k: v for k, v in a.items() if k != "pending"} for a in answers]
            if any(a != said[0] for a in said):
                raise SdgBug("sharded search: the shards disagree on the levels walked")
            cluster.counting()
            for walked in answers[0]["levels"]:  # each as one level a call would be
                level += 1
                total = walked["new"]
                peak = max(peak, walked["bytes"])
                if total == 0:
                    break
                probe.level(level, offset + total, total)
                firsts = {v: g for v, g in walked["firsts"].items() if v not in found}
                if any(v >= settle for v in firsts):
                    offset, found = _settle_at(firsts, found, settle, cap, meter)
                    complete = False
                    break
                if 0 <= cap < offset + total:
                    raise meter.exceeded(cap, f"{budget.max_states} states")
                meter.check(offset + total)
                found.update(firsts)
                offset += total
            if answers[0]["end"] not in ("time", "near"):
                break
            # the level merged and not stepped: settled, or past the cap, before it is
            pending = [a["pending"] for a in answers]
            values = {v for p in pending for v in p["first"] if v not in found}
            total = sum(p["new"] for p in pending)
            if total and any(v >= settle for v in values):
                level += 1
                peak = max(peak, sum(p["bytes"] for p in pending))
                probe.level(level, offset + total, total)
                offset, found = _settled(cluster, offset, found, settle, cap, meter)
                complete = False
                break
            if 0 <= cap < offset + total:
                raise meter.exceeded(cap, f"{budget.max_states} states")
            at = offset
        if usage is not None:
            usage(cluster.call("usage"))
        witnesses = _witnesses(cluster, search, found)
    except KeyboardInterrupt:
        raise meter.interrupted(offset) from None
    return witnesses, offset, complete, peak


def _settled(cluster: _Cluster, offset: int, found: dict[int, int], settle: int, cap: int,
             meter: Meter) -> tuple[int, dict[int, int]]:
    """The level merged from number ``offset`` on settles the question: number it without
    stepping it (:meth:`Shard.number_level`); the states counted (to its first settling
    state) and ``found`` with its values' first states."""
    firsts: dict[int, int] = {}
    for answer in cluster.call("number_level", offset, what="numbering the last level"):
        for v, g in answer.items():
            if v not in found and g < firsts.get(v, g + 1):
                firsts[v] = g
    return _settle_at(firsts, found, settle, cap, meter)


def _settle_at(firsts: dict[int, int], found: dict[int, int], settle: int, cap: int,
               meter: Meter) -> tuple[int, dict[int, int]]:
    """A level settles the question, its values' first states ``firsts`` (numbers, of the
    values not in ``found``): the states counted, to its first settling state (the state
    budget passed before it raises), and ``found`` with the first states before it."""
    last = min(g for v, g in firsts.items() if v >= settle)
    if 0 <= cap <= last:
        raise meter.exceeded(cap, f"{meter.budget.max_states} states")
    return last + 1, found | {v: g for v, g in firsts.items() if g <= last}


def _lessons(search: Search, meter: Meter) -> StepTables:
    """The step tables the shards start with: those the driver learned walking the first
    :data:`LESSON_STATES` states alone (at most the budget's ``max_states``), the
    one-process walk's (:func:`~sdg_automata.search.compiled.drive.breadth_first`, under
    the search's deadline; what it found is dropped).

    Every shard learns the steps its states take, and the shards' states are random halves
    (thirds, …) of the same levels: each learned nearly every step one process learns
    (a lesson: the step by the Steps 3–4 computation in Python, and the kernel called
    again), so shards paid the lessons as many times as there are shards.  Learned here,
    they are paid once; their parts then have the same ids on every shard, so they are
    never sent (:class:`~sdg_automata.search.shard.Shard`).

    The progress display says what the driver does meanwhile (its count stands still; on
    a first run the walk's kernels are also built here).  The search's deadline, memory
    running out and Ctrl-C end the search as they would later, with 0 states numbered; a
    table over the kernels' limit (``OverflowError``) is known here, before any shard
    starts, and sends the search to the engine's fallback, as one process's would."""
    from dataclasses import replace

    from .compiled.drive import breadth_first

    tables = search.tables()
    limit = meter.budget.max_states
    cap = LESSON_STATES if limit is None else min(LESSON_STATES, limit)
    budget = replace(meter.shared(), max_states=cap, progress=None)
    meter.describe("learning the first levels' steps")
    try:
        breadth_first(tables, budget, what="the first levels",
                      constraint=search.constraint_arrays())
    except BudgetExceeded:  # the walk's cap; or the search's deadline, or memory, ran out
        if time.perf_counter() > meter.deadline:  # (the progress is told of no state yet)
            raise meter.exceeded(0, f"{meter.budget.max_seconds:g} s") from None
        meter.check_memory(0)
    except Interrupted:
        raise meter.interrupted(0) from None
    finally:
        meter.describe(None)
    return tables


def _witnesses(cluster: _Cluster, search: Search, found: dict[int, int]
               ) -> dict[int, str | Word]:
    """Each value's word, read back along the tree edges the shards hold."""
    read: dict[int, list[int]] = {v: [] for v in found}
    at = dict(found)
    while any(at.values()):
        wanted = sorted({g for g in at.values() if g})
        answers: dict[int, tuple[list[int], int]] = {}
        for part in cluster.call("trace", wanted, what="reading the witnesses"):
            answers.update(part)
        if not any(g in answers for g in wanted):
            raise SdgBug("sharded search: no shard holds a state of a witness")
        for v, g in at.items():
            if g in answers:
                letters, at[v] = answers[g]
                read[v] += letters
    return {v: read_witness(search.automaton, letters[::-1]) for v, letters in read.items()}


def sharded_bfs(search: Search, budget: Budget, *, scheduler: str, timeout: float = 20.0,
                usage: Callable[[list[dict[str, float]]], None] | None = None
                ) -> SearchResult:
    """The bfs strategy's walk of ``search`` with the visited set sharded over the workers
    of a Dask cluster: one process's result (maximum, witnesses, states).  The ``dask``
    engine's run function (:mod:`sdg_automata.search.engines.dask`).

    Parameters
    ----------
    search:
        The question (:class:`~sdg_automata.search.request.Search`); its automaton must
        fit the kernels (the engine's scope says so before it runs).
    budget:
        As :func:`~sdg_automata.search.decide.max_grundy` takes it: states between
        levels (exactly), seconds also while the driver waits for the shards (every
        :data:`POLL` s) and while it learns the first levels' steps alone
        (:func:`_lessons`, at most ``max_states`` states of its own).  A progress
        callable with a ``describe(text)`` method (the command line's bar) is also told
        while the driver learns them and while the workers compile the kernels
        (:meth:`~sdg_automata.runtime.budget.Meter.describe`).
    scheduler:
        ``tcp://HOST:PORT`` of a running ``dask scheduler`` (every worker then holds
        a shard), or ``"local"`` (a :class:`distributed.LocalCluster`, for trying it).
    timeout:
        Seconds to wait for the scheduler and a first worker.
    usage:
        Called, when the walk ends, with each shard's :meth:`Shard.usage
        <sdg_automata.search.shard.Shard.usage>`: its worker process's CPU seconds and
        peak RSS (``"cpu"``, ``"peak"``), the steps it learned (``"lessons"``), its
        successors and phases (for benchmarks).

    Returns
    -------
    SearchResult
        As one process's; ``peak_bytes`` sums the shards' stores at their largest
        level, ``workers`` counts the shards.

    Raises
    ------
    InputError
        For a malformed scheduler address, or workers that run another sdg_automata.
    Unfit
        For a search that one process runs better, once the cluster answered: every word
        reads one letter (each level holds one state), or the levels measured are too
        narrow (:data:`MIN_WIDTH`); the engine registry then runs it on the ``compiled``
        engine with a notice saying why, under the rest of the budget.
    OverflowError
        When a step table outgrows the kernels' limit during the driver's first walk
        (:func:`_lessons`): the engine registry then runs the search on the fallback,
        with a notice.
    ResourceError
        When the scheduler cannot be reached, or a worker is lost during the search, or
        the scheduler releases the shards (nothing is concluded; run it again).
    BudgetExceeded, Interrupted
        Saying how many states were numbered.

    Examples
    --------
    On a :class:`distributed.LocalCluster` (``"local"``; a real cluster is
    ``"tcp://HOST:PORT"``), through the facade: the verdict of
    ``max_grundy(g, g.start, strategy="bfs")``:

    >>> from sdg_automata.generators.families import intersection_grammar, random_family
    >>> from sdg_automata.search.decide import max_grundy
    >>> g = intersection_grammar(random_family(3, 6, seed=0))
    >>> v = max_grundy(g, g.start, engine="dask", options={"scheduler": "local"})
    >>> v.maximum, v.witness, v.states, v.engine.name
    (3, 'abbbaaba', 157, 'dask')
    """
    from ..runtime.cluster import check_workers, dask_client

    if scheduler == "local-threads":  # dask_client's in-process cluster, for the sweeps' tests
        # (an actor calls a peer in its own process directly: an async method then returns
        # a coroutine, not a future, and the shards cannot send each other their batches)
        raise InputError(f"the sharded search cannot run on {scheduler!r}: its workers are "
                         "threads of this process, where the shards cannot send each other "
                         "their states; use 'local' (worker processes) or tcp://HOST:PORT")
    one = one_letter(search.automaton.alphabet, search.constraint,
                     letters=search.automaton.grammar.letters_of(search.head))
    with dask_client(scheduler, timeout=timeout) as client:  # the address is checked anyway
        check_workers(client, timeout=timeout)
        if one is not None:
            raise Unfit("every word searched reads one letter, so each breadth-first level "
                        "holds one state and would cost the cluster its round trips: "
                        "searched in this process (the same maximum, witnesses and states)")
        meter = budget.start("search", unit="states")
        try:
            # a first run's build of the shards' kernels, here under the budget (not linked:
            # the driver runs none); workers on this machine link it, others build their own
            prepare(sharded_native.LIBRARY.build, meter, "the sharded search's kernels")
            tables = _lessons(search, meter)
            for store in STORES:  # packed keys; records once the ids outgrow a key
                try:
                    with _shards(client, search, meter, store, tables) as cluster:
                        found, states, complete, peak = _walk(cluster, search, usage)
                        workers = cluster.size
                    break
                except KeyTooWide:  # walked again on records, as one process does
                    if store == "records":
                        raise SdgBug("sharded search: records said their keys are too wide") \
                            from None
        except KeyboardInterrupt:  # while the shards start (_walk says how far it got)
            raise meter.interrupted(0) from None
        except _Narrow as e:  # the fallback runs under the rest of the budget's clock
            meter.describe(None)
            raise Unfit(f"the breadth-first levels are too narrow to shard: {e.states:,} "
                        f"states in {e.levels:,} levels in {e.seconds:.1f} s, fewer than "
                        f"{MIN_WIDTH:,} a level, and each level costs the cluster its round "
                        "trips: searched again in this process (breadth-first: the same "
                        "verdict)") from None
    return SearchResult(found=found, explored=states, complete=complete, peak_bytes=peak,
                        store="table", workers=workers)
