"""The ``dask`` engine: one breadth-first search sharded over a Dask cluster.

The visited set of one huge instance is split among the workers' memories: the
driver and the shards' actors are :mod:`sdg_automata.search.sharded` and
:mod:`sdg_automata.search.shard` (whose docstrings give the design), and the
verdict is one process's (the same maximum, witnesses and state count).  It runs the
bfs strategy only, on the compiled kernels (on the workers), by name only:
``max_grundy(..., engine="dask", options={"scheduler": "tcp://HOST:PORT"})``,
``max ... --engine dask --scheduler tcp://HOST:PORT``.  An automaton the kernels
cannot take is searched in this process, on the ``compiled`` engine or below
(:data:`~sdg_automata.search.engines.base.SearchEngine.fallback`).

This module is the engine's entry: it imports nothing of Dask until it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ...runtime.lazy import lazy_names
from ..options import Argument
from .base import SearchEngine
from .compiled import MAX_GROUPS, one_group

if TYPE_CHECKING:
    from ...runtime.budget import Budget
    from ..request import Search, SearchResult

__all__ = ["CONNECT_TIMEOUT", "ENGINE"]

#: seconds the engine waits for the scheduler and a first worker by default
CONNECT_TIMEOUT = 20.0

#: its options (:class:`~sdg_automata.search.engines.dask_options.DaskOptions`) are defined
#: when first needed, and importable from here too; that module reads CONNECT_TIMEOUT from
#: this one, so this one names them only at run time (no import circles, even for mypy)
__getattr__, __dir__ = lazy_names(__name__, {"DaskOptions": "dask_options"}, base=__package__)

#: its command-line arguments
ARGUMENTS = (
    Argument(flag="--scheduler", field="scheduler", metavar="ADDR",
             help="--engine dask: tcp://HOST:PORT of a running dask scheduler (every worker "
                  "holds a shard of the visited set), or 'local'"),
    Argument(flag="--connect-timeout", field="connect_timeout", kind="duration", metavar="S",
             help=f"--engine dask: seconds to wait for the scheduler and a first worker "
                  f"(default: {CONNECT_TIMEOUT:g})"),
)


def _check(options: Any, budget: Budget) -> None:
    if options.scheduler is None:
        raise InputError("the dask engine needs a scheduler: tcp://HOST:PORT of a running "
                         "dask scheduler, or 'local' (--scheduler ADDR; "
                         "options={'scheduler': ADDR})")


def _available() -> str | None:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        return "needs Dask: pip install 'sdg_automata[cluster]'"
    return None


def _bfs(search: Search, budget: Budget) -> SearchResult:
    """bfs sharded over the cluster: :func:`sdg_automata.search.sharded.sharded_bfs`."""
    from ..sharded import sharded_bfs

    options = search.engine_options
    assert options.scheduler is not None
    return sharded_bfs(search, budget, scheduler=options.scheduler,
                       timeout=options.connect_timeout, usage=options.usage)


#: the registry's entry
ENGINE = SearchEngine(
    name="dask",
    describe="bfs sharded over the workers of a Dask cluster (the cluster extra; --scheduler): "
             "the same verdict as one process",
    implements={"bfs": _bfs}, groups=MAX_GROUPS, fits=one_group, requires=("distributed",),
    available=_available, fallback="compiled",
    options="sdg_automata.search.engines.dask_options:DaskOptions", arguments=ARGUMENTS,
    check=_check)
