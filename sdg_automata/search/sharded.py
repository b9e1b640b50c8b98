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
  (:func:`~sdg_automata.kernels.automaton.expand`'s ``_owner``) independent of the hash
  the shard's own open-addressing table uses, so that a shard's table is not filled by
  keys that all share a residue.
* **Encodings agree across workers.**  Each shard learns its compiled step
  (:class:`~sdg_automata.search.compiled.tables.StepTables`) lazily, as one process does, so
  the part ids of two shards differ.  What is canonical is the part itself (a bitset of
  items of the automaton the driver built and shipped whole, by cloudpickle: the
  automaton's item order depends on the string hash seed, so no worker rebuilds it).  So
  (i) the owner hash reads, per part, a key computed from its bitset
  (:func:`~sdg_automata.search.shard._part_key`), the same on every shard; (ii) a batch
  of states goes out in the sender's ids with the parts the receiver has not been sent
  yet (the sender appends parts, never renumbers: a count per receiver says which are
  new), and the receiver interns them once and translates whole columns by one numpy
  take per group.  Parts are few (thousands) where states are many (millions): the
  translation costs next to nothing and states travel as a few 16-bit ids.
* **A level at a time, with the one-process order.**  One process numbers states
  in discovery order: level by level, and within a level by (number of the
  parent, letter) of the first edge reaching them; its witness for a value is the
  tree path to the value's first state.  Here a successor travels with its code
  ``parent's number × letters + letter``; its owner keeps the least code it is
  reached by (:func:`~sdg_automata.kernels.automaton.absorb`), sorts its new
  states by code (:func:`~sdg_automata.kernels.automaton.renumber`), and numbers
  them by their rank among all shards' codes (each shard fetches the others' sorted
  codes from them and counts by binary search): the numbers one process would give.
  A state's code is also its tree edge, so witnesses are read back from the shards
  (:meth:`Shard.trace`), and the walk stops exactly where one process stops: at the
  first state (by number) whose value settles the question, counting the states
  numbered before it.
* **The driver only holds barriers**, two per level: ``advance`` (each shard
  numbers its new states, then steps them in a kernel, sorts the successors by
  owner in a kernel, and sends them straight to their owners, actor to actor, in
  batches of at least :data:`BATCH_STATES` states, one batch in flight per receiver
  while it computes the next) and ``merge`` (dedupe against the shard, order the
  new states, report each value's first code).  Codes are in the order of the
  numbers, so after ``merge`` the driver knows whether the level settles the
  question or passes the state budget, and then only numbers it.  Between levels
  it serves the budget (states exactly, seconds, progress) and Ctrl-C.  A level
  costs two round trips (measured here: 6–9 ms each on two workers), so the
  search pays off on wide levels; a one-letter walk (a lasso: one state per
  level) belongs to ``strategy="lasso"``.
* **Failure is loud and harmless.**  Every wait is bounded: the driver polls its
  calls and checks that the shards' workers are alive; a lost worker (or a shard
  that no longer has the state it should have: an actor recreated elsewhere) ends
  the run with :class:`~sdg_automata.errors.ResourceError` (exit 3, one ``error:``
  line).  No partial result is ever returned: a run is restartable by running it
  again.  Shards still busy are told to abort and their memory goes with them.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, ResourceError, SdgBug, SdgError
from ..runtime.budget import Budget
from .request import SearchResult, read_witness
from .shard import Shard, answered

if TYPE_CHECKING:
    from ..grammar.words import Word
    from .request import Search

__all__ = ["sharded_bfs"]

#: seconds between two looks at the workers' health while the driver waits
POLL = 0.5
#: seconds the driver gives the scheduler to notice a lost worker when a shard fails
LOSS_GRACE = 10.0
#: a shard's worker that has sent the scheduler no heartbeat for this long (workers beat
#: every few seconds whatever their actor computes) is frozen or unreachable: lost, even
#: though the scheduler keeps listing it until its worker-ttl (5 minutes by default)
SILENT_SECONDS = 60.0


class _Cluster:
    """The driver's side: the shards' actors, and bounded waits on their calls."""

    def __init__(self, client: Any, search: Search, token: str) -> None:
        #: per worker: the scheduler's last_seen when it last changed, and our clock then
        self._beats: dict[str, tuple[Any, float]] = {}
        import cloudpickle  # type: ignore[import-untyped]  # dask's dependency

        info = client.scheduler_info(n_workers=-1)
        self.client = client
        self.addresses = sorted(info["workers"])
        if not self.addresses:
            raise InputError("the Dask cluster has no workers")
        self.token = token
        self.round = 0
        blob = cloudpickle.dumps(search.automaton)
        constraint = search.constraint_arrays()
        self.futures = [
            client.submit(Shard, blob, i, len(self.addresses), search.head, constraint, token,
                          actor=True, workers=[address], allow_other_workers=False,
                          pure=False, retries=0, key=f"sdg-shard-{token}-{i}")
            for i, address in enumerate(self.addresses)]
        self.actors: list[Any] = []
        self.actors = [self._result(f, f"starting shard {i}")
                       for i, f in enumerate(self.futures)]
        self.call("connect", self.actors)

    @property
    def size(self) -> int:
        return len(self.addresses)

    def lost(self) -> list[str]:
        """The shards' workers the scheduler no longer has, or that have been silent for
        :data:`SILENT_SECONDS` (a heartbeat's time is the scheduler's ``last_seen``, whose
        changes are timed on our clock: the two clocks need not agree)."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
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
                gone = self.lost()
                if gone:
                    raise self._lost(gone, what)
            return future.result()
        except (KeyboardInterrupt, SdgError):
            raise
        except Exception as e:  # a shard's failure, or its worker gone under the call
            gone = self._settled_loss()
            if gone:
                raise self._lost(gone, what) from None
            raise ResourceError(f"{what} failed on the Dask cluster: "
                                f"{type(e).__name__}: {e}") from None

    def _settled_loss(self) -> list[str]:
        """:meth:`lost`, after giving the scheduler :data:`LOSS_GRACE` seconds to notice: a
        shard that could not reach a dead one may fail before the scheduler knows."""
        deadline = time.monotonic() + LOSS_GRACE
        while True:
            gone = self.lost()
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
        futures = [getattr(actor, method)(self.token, round_, *(each[i] if each else args))
                   for i, actor in enumerate(self.actors)]
        return [self._result(f, what or method) for f in futures]

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
def _shards(client: Any, search: Search) -> Iterator[_Cluster]:
    cluster: _Cluster | None = None
    token = uuid.uuid4().hex
    try:
        cluster = _Cluster(client, search, token)
        yield cluster
    finally:
        if cluster is not None:
            cluster.close()
        else:  # the actors that did start
            with contextlib.suppress(Exception):
                client.cancel([f for f in client.futures.values()
                               if str(f.key).startswith(f"sdg-shard-{token}")], force=True)


def _walk(cluster: _Cluster, search: Search, budget: Budget,
          usage: Callable[[list[dict[str, float]]], None] | None
          ) -> tuple[dict[int, str | Word], int, bool, int]:
    """The levels; then the witnesses.  Returns (found, states, complete, peak bytes)."""
    meter = budget.start("search", unit="states")
    cap = -1 if budget.max_states is None else budget.max_states
    settle = search.settle
    found: dict[int, int] = {}
    offset = 1  # the next state's number (q₀ is 0)
    complete = True
    peak = 0
    level = 0
    try:
        cluster.call("advance", None, True, what="expanding level 0")
        while True:
            level += 1
            where = f"expanding level {level - 1}"
            merged = cluster.call("merge", what=where)
            total = sum(m["new"] for m in merged)
            peak = max(peak, sum(m["bytes"] for m in merged))
            if total == 0:
                break
            # codes are in the order of the numbers: whether the level settles is known now
            settles = any(v >= settle for m in merged for v in m["first"] if v not in found)
            if not settles and 0 <= cap < offset + total:
                raise meter.exceeded(cap, f"{budget.max_states} states")
            if not settles:
                meter.check(offset + total)
            numbered = cluster.call("advance", offset, not settles,
                                    what=f"expanding level {level}")
            firsts: dict[int, int] = {}
            for number in numbered:
                for v, g in number.items():
                    if v not in found and g < firsts.get(v, g + 1):
                        firsts[v] = g
            if settles:
                last = min(g for v, g in firsts.items() if v >= settle)
                if 0 <= cap <= last:
                    raise meter.exceeded(cap, f"{budget.max_states} states")
                found.update({v: g for v, g in firsts.items() if g <= last})
                offset = last + 1
                complete = False
                break
            found.update(firsts)
            offset += total
        if usage is not None:
            usage(cluster.call("usage"))
        witnesses = _witnesses(cluster, search, found)
    except KeyboardInterrupt:
        raise meter.interrupted(offset) from None
    return witnesses, offset, complete, peak


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
        As :func:`~sdg_automata.search.decide.max_grundy` takes it; checked between
        levels, so seconds may run over by one level's time.
    scheduler:
        ``tcp://HOST:PORT`` of a running ``dask scheduler`` (every worker then holds
        a shard), or ``"local"`` (a :class:`distributed.LocalCluster`, for trying it).
    timeout:
        Seconds to wait for the scheduler and a first worker.
    usage:
        Called, when the walk ends, with each shard's worker process's CPU seconds
        and peak RSS (``{"cpu": s, "peak": bytes}``; for benchmarks).

    Returns
    -------
    SearchResult
        As one process's; ``peak_bytes`` sums the shards' stores at their largest
        level, ``workers`` counts the shards.

    Raises
    ------
    InputError
        For a scheduler that cannot be reached, or workers that run another sdg_automata.
    ResourceError
        When a worker is lost during the search (nothing is concluded; run it again).
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

    with dask_client(scheduler, timeout=timeout) as client:
        check_workers(client, timeout=timeout)
        with _shards(client, search) as cluster:
            found, states, complete, peak = _walk(cluster, search, budget, usage)
            workers = cluster.size
    return SearchResult(found=found, explored=states, complete=complete, peak_bytes=peak,
                        store="table", workers=workers)
