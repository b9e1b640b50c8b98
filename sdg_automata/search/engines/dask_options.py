"""The options of the ``dask`` engine (:mod:`sdg_automata.search.engines.dask`): the
scheduler, how long to wait for it, and a report of the workers' usage.

It is a module of its own, imported when the options are first needed (an option given,
or the engine running): the engine's entry names this class
(:attr:`~sdg_automata.search.options.Configurable.options`), is loaded whenever the
command line lists the engines, and a dataclass costs start-up to define (issue 33 §4).
:class:`DaskOptions` is importable from the engine's module too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .dask import CONNECT_TIMEOUT

__all__ = ["DaskOptions"]


@dataclass(frozen=True)
class DaskOptions:
    """The dask engine's options.

    Attributes
    ----------
    scheduler:
        ``tcp://HOST:PORT`` of a running ``dask scheduler`` (every worker then holds a
        shard), or ``"local"`` (a :class:`distributed.LocalCluster`, for trying it).
    connect_timeout:
        Seconds to wait for the scheduler and a first worker.
    usage:
        Called, when the walk ends, with each shard's worker process's CPU seconds
        and peak RSS (``{"cpu": s, "peak": bytes, ...}``; for benchmarks).
    """

    scheduler: str | None = None
    connect_timeout: float = CONNECT_TIMEOUT
    usage: Callable[[list[dict[str, float]]], None] | None = None
