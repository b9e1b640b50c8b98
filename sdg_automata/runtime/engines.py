"""The engine registry: which implementation runs a hot loop (``engine=``, ``--engine``).

The hot loops of the package (the exploration of the Step 1–5 automaton and the
on-the-fly Max-Grundy search of SPEC §4, octal values) exist twice: as the
pure-Python reference and as numba kernels (:mod:`sdg_automata.kernels`), which
the tests hold equal to it.  This module is the one place that says which runs:

* ``"python"`` — the reference, always available.
* ``"compiled"`` — the kernels; an :class:`~sdg_automata.errors.InputError` names
  what is missing when numba cannot be imported.
* ``"auto"`` (the default everywhere) — **the Python reference up to a threshold
  of work, the compiled kernels beyond, when numba imports.**  Where the work is
  known in advance (a count of values), :func:`use_compiled` compares it with
  the threshold.  Where it is not (a walk, which learns its size by walking),
  :func:`run_engine` runs the reference capped at the threshold and, if the walk
  needs more, restarts it compiled, its clock counted from the start: as in
  ski rental, no run then costs much more than twice what the better engine
  alone would have cost.  Either way a run below its threshold never imports
  numba (~0.5–1 s of loading).

Every threshold is an entry of :data:`THRESHOLDS`, with the reason for its value.

Why a registry, and not an import.  The layers of ``docs/architecture.md`` put
the automaton (the reference) below the kernels and the walks that drive them,
so :meth:`GrundyAutomaton.explore
<sdg_automata.automaton.construction.GrundyAutomaton.explore>` — whose
``engine=`` is public — may not import them.  As a networkx function reaches
its backends by name, the automaton asks this registry for the implementation
named in :data:`COMPILED`, which imports its module only once the policy has
chosen it: the automaton stays pure Python, ``import sdg_automata`` loads no
kernel, and the kernels may still import the automaton's types.  The numba
probe (:func:`numba_missing`) is reached the same way, since loading numba is
the kernels' business.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeVar, cast, get_args

from ..errors import BudgetExceeded, EngineNotice, InputError, SdgBug

if TYPE_CHECKING:
    from .budget import Budget

__all__ = ["COMPILED", "ENGINES", "NATIVE", "NATIVE_GAIN", "THRESHOLDS", "Engine", "Stage", "Unfit",
           "check_engine", "compiled", "native_first", "native_ready", "numba_missing",
           "run_engine", "ski_rental", "use_compiled"]

#: which implementation runs a kernel (``engine=``; the command line's ``--engine``)
Engine = Literal["auto", "compiled", "python"]
#: the engines, in the order the command line lists them
ENGINES: tuple[str, ...] = get_args(Engine)

#: the work (states, values) from which ``"auto"`` runs the compiled kernels
THRESHOLDS: dict[str, int] = {
    # walks of the automaton (explore, the on-the-fly search), in states: measured
    # (python -m benchmarks bench_search), the reference walks 150–400k states per CPU
    # second and the compiled engine's fixed cost (importing numba, loading the cached
    # kernels; numba also imports scipy when installed) is 0.7–1.2 CPU s, about what
    # the reference spends on 2^18 states: the ski-rental switch point
    "walk states": 1 << 18,
    # the exploration (explore's rows and tree), when its kernels' native library is
    # cached (NATIVE["explore"]): measured whole-process, the reference crawls ~450k
    # states per CPU second (2.2 µs a state; 26,532 states in 0.10 s) and the library's
    # run costs ~0.2 s more than its walk (numpy, llvmlite's link, the driver's calls),
    # about what the crawl spends on 2^16 states; NATIVE_GAIN's 2^14 made a 26,532-state
    # exploration 3× slower than the reference alone
    "explore states, native": 1 << 16,
    # octal values asked for: loading numba and the cached kernels costs ~0.5 s, what
    # the Python path needs for ~50k values (Kayles needs 168); verifying a certificate
    # of so many values pays the same way
    "octal values": 1 << 14,
    # octal values in a period search, which does not know how many it will need: a
    # period not proven by 2^12 values (0.05–0.1 s in Python) usually needs many more
    # (docs/octal.md certifies at hundreds or hundreds of thousands of values)
    "octal period values": 1 << 12,
}

#: how much less loading the compiled engine costs when its kernels are cached as native
#: code (sdg_automata.kernels.native: llvmlite links them in ~0.04 CPU s, numba's import
#: and cache cost ~0.9): ``"auto"`` then switches at a threshold this many times lower,
#: the same ski-rental point for a sixteenth of the fixed cost
NATIVE_GAIN = 16

#: the parts of the compiled engine, by name: ``"module:attribute"``, imported only when
#: the policy has chosen that engine (see the module docstring)
COMPILED: dict[str, str] = {
    # why numba cannot be used (a phrase), or None: kernels/__init__ loads numba
    "numba": "sdg_automata.kernels:numba_missing",
    # whether a native library of kernels built here is cached and links: (library) ->
    # bool, no numba imported (sdg_automata.kernels.native)
    "native": "sdg_automata.kernels.native:cached",
    # GrundyAutomaton.explore's compiled twin: (automaton, budget, what=) -> Crawl
    "explore": "sdg_automata.search.compiled.explore:crawl_compiled",
}
#: the native library (:mod:`sdg_automata.kernels.native`) of each part of :data:`COMPILED`
#: that has one: where it is cached, :func:`run_engine` loads no numba
NATIVE: dict[str, str] = {"explore": "records_native"}

R = TypeVar("R")


class Unfit(Exception):
    """Raised by a compiled implementation, before it starts, for an input the kernels
    cannot take; the message says why, and :func:`run_engine` runs the reference."""


def check_engine(engine: object) -> Engine:
    """``engine`` if it names an engine, else :class:`InputError` listing them."""
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    return cast(Engine, engine)


def compiled(name: str) -> Callable[..., Any]:
    """The compiled implementation :data:`COMPILED` names (importing its module)."""
    module, _, attribute = COMPILED[name].partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
    return found


def numba_missing() -> str | None:
    """Why numba cannot be used here (a phrase), or ``None`` when it can.

    Imports numba on the first call (about half a second), so call it only once a
    run has chosen to consider the compiled engine.
    """
    missing: str | None = compiled("numba")()
    return missing


def _needs_numba() -> None:
    """Raise :class:`InputError` when the compiled engine, asked for by name, cannot run."""
    reason = numba_missing()
    if reason is not None:
        raise InputError(f"the compiled engine needs numba: {reason} "
                         "(pip install numba, or --engine python)")


def use_compiled(engine: Engine, *, work: int, threshold: int,
                 library: str | None = None) -> bool:
    """Whether a run of ``work`` units (states, values), known in advance, should use
    the compiled kernels: the auto policy of the module docstring.

    ``threshold`` is an entry of :data:`THRESHOLDS`: ``"auto"`` chooses the kernels
    from so many units on, when numba imports; below it the Python reference
    finishes before numba would have loaded.  ``library`` names the native library
    the kernels come from, if any (:mod:`sdg_automata.kernels.native`): where it is
    cached, the kernels load without numba, so numba is not asked for, and the
    threshold is :data:`NATIVE_GAIN` times lower.

    Raises
    ------
    InputError
        For an unknown engine, or ``"compiled"`` without numba.
    """
    check_engine(engine)
    if engine == "python" or engine == "auto" and work < threshold // NATIVE_GAIN:
        return False
    if library is not None and compiled("native")(library):
        return True
    if engine == "auto" and work < threshold:
        return False
    if engine == "compiled":
        _needs_numba()
        return True
    return numba_missing() is None


class Stage(NamedTuple, Generic[R]):
    """One engine of a walk under ``"auto"``: :func:`ski_rental` runs the stages in order.

    A named tuple, not a dataclass: a private record made per walk, and a dataclass's
    generated methods cost start-up.

    Attributes
    ----------
    name:
        The engine's name.
    run:
        ``run(budget) -> (result, name of the engine that ran)`` (an engine that falls
        back says so by the name).
    cap:
        The states this stage may reach before the next one restarts the walk (an entry
        of :data:`THRESHOLDS`); ``None``: no cap (the last stage).
    present:
        Whether the engine is installed at all: cheap (``importlib.util.find_spec``),
        asked before anything runs.
    ready:
        Why the engine cannot run here, or ``None``: may load it (numba: half a second),
        so it is asked only once the walk has outgrown the stages before.
    """

    name: str
    run: Callable[[Budget], tuple[R, str]]
    cap: int | None = None
    present: Callable[[], bool] = lambda: True
    ready: Callable[[], str | None] = lambda: None


def ski_rental(stages: Sequence[Stage[R]], budget: Budget, *, what: str) -> tuple[R, str]:
    """Run a walk whose size is not known in advance on the first of ``stages`` that
    finishes it within its cap: the auto policy of the module docstring, written once
    for every walk (:func:`run_engine`; the search engines' ``auto``,
    :func:`sdg_automata.search.engines.run`).

    Each stage but the last runs with at most ``cap`` states; a walk that needs
    more restarts on the next stage that is ready, with the seconds counted from the
    start and the progress never going back.  When no later stage is ready (numba
    found but broken), the walk restarts on the stage that outgrew its cap, without a
    cap.  A state budget at or below a stage's cap makes that stage the last.  A
    Ctrl-C while a stage loads (numba) is :class:`~sdg_automata.errors.Interrupted`
    with the states reached so far.
    """
    stages = [s for s in stages if s.present()]
    if not stages:
        raise SdgBug(f"no engine is installed for the {what}")
    if budget.since is None:  # one clock for every stage
        budget = dataclasses.replace(budget, since=time.perf_counter())
    shown = budget.progress
    current = budget
    reached = 0  # states the walk has reached, for a Ctrl-C while an engine loads
    i = 0
    while True:
        stage = stages[i]
        cap = stage.cap if i + 1 < len(stages) else None
        if cap is not None and budget.max_states is not None and budget.max_states <= cap:
            cap = None  # the budget stops the walk before the next stage would start
        try:
            if cap is None:
                return stage.run(current)
            try:
                return stage.run(dataclasses.replace(current, max_states=cap))
            except BudgetExceeded as e:
                if e.explored != cap:
                    raise
        except KeyboardInterrupt:  # while an engine loads: the walks say their own count
            raise budget.start(what).interrupted(reached) from None
        reached = cap
        for j in range(i + 1, len(stages)):
            try:
                missing = stages[j].ready()
            except KeyboardInterrupt:
                raise budget.start(what).interrupted(reached) from None
            if missing is None:
                break
        else:  # found but broken: this stage again, from the start, without a cap
            stages = stages[:i + 1]
            continue
        if shown is not None:  # the restart counts from 0 again: progress never goes back
            current = dataclasses.replace(budget, progress=_at_least(shown, reached))
        i = j


def _at_least(shown: Callable[[int], None], floor: int) -> Callable[[int], None]:
    """``shown`` never told less than ``floor``."""
    return lambda n: shown(max(n, floor))


def native_ready(library: str) -> str | None:
    """Why the native library ``library`` cannot load here (a phrase), or ``None`` when it
    is cached and links: no numba imported."""
    return None if compiled("native")(library) else f"the {library} library is not cached"


def native_first(stages: Sequence[Stage[R]], natives: Sequence[tuple[str, int] | None]
                 ) -> list[Stage[R]]:
    """``stages`` with, before each stage whose kernels come from a native library
    (``natives[i]``: the library, :mod:`sdg_automata.kernels.native`, and a cap), that
    stage once more, ready only when the library is cached, after the stage before it
    capped at that cap: linked instead of loaded by numba, the kernels pay off sooner
    (the ski-rental point of their smaller fixed cost), and a run that would load numba
    still waits as long as it did.  Whether the library is cached is asked only once the
    walk outgrows the shorter cap (the question links it); when it is not (a machine's
    first run, ``SDG_AUTOMATA_NATIVE=0``), the walk restarts on the stage before with its
    own cap, having spent that shorter cap's work twice (the exploration's 2¹⁶ states:
    ~0.14 s, in a run of at least 0.7 s more)."""
    found = list(stages)
    for i in range(len(found) - 1, 0, -1):
        native, before = natives[i], found[i - 1]
        if native is not None and before.cap is not None:
            library, cap = native
            found[i - 1:i - 1] = [before._replace(cap=min(cap, before.cap)),
                                  found[i]._replace(ready=partial(native_ready, library))]
    return found


def run_engine(engine: str, budget: Budget, python: Callable[[Budget], R],
               compiled: Callable[[Budget], R], *, reason: str | None = None, what: str,
               threshold: int | None = None, native: tuple[str, int] | None = None
               ) -> tuple[R, str]:
    """Run a walk, whose size is not known in advance, on the engine ``engine`` chooses;
    returns (result, engine that ran): the auto policy of the module docstring.

    ``"python"`` runs ``python(budget)``; ``"compiled"`` runs ``compiled(budget)``
    (an :class:`~sdg_automata.errors.InputError` when numba cannot be imported);
    ``"auto"`` runs ``python`` for at most ``threshold`` states (default: the
    table's ``"walk states"``, read at the call) and, if the walk needs more,
    restarts it with ``compiled``, its seconds counted from the start
    (:func:`ski_rental`).  ``native``: the native library of the compiled kernels and
    the states from which ``auto`` runs them where it is cached (:func:`native_first`),
    numba not loaded then.
    When the input does not fit the kernels (``reason``, or :class:`Unfit` raised
    by ``compiled``) or a table outgrows its ids (``OverflowError``), a run that
    would be compiled runs in Python after one
    :class:`~sdg_automata.errors.EngineNotice`.
    """
    check_engine(engine)
    if engine == "python":
        return python(budget), "python"

    def reference(limits: Budget) -> tuple[R, str]:
        return python(limits), "python"

    def kernels(limits: Budget) -> tuple[R, str]:
        try:
            if reason is not None:
                raise Unfit(reason)
            return compiled(limits), "compiled"
        except (Unfit, OverflowError) as e:
            warnings.warn(f"the {what} runs in Python: {e}", EngineNotice, stacklevel=4)
            return python(limits), "python"

    if engine == "compiled":
        try:
            if native is None or native_ready(native[0]) is not None:
                _needs_numba()
        except KeyboardInterrupt:
            raise budget.start(what).interrupted(0) from None
        return ski_rental([Stage(name="compiled", run=kernels)], budget, what=what)
    if threshold is None:
        threshold = THRESHOLDS["walk states"]
    return ski_rental(native_first([
        Stage(name="python", run=reference, cap=threshold),
        Stage(name="compiled", run=kernels, present=lambda: importlib.util.find_spec(
            "numba") is not None, ready=numba_missing)],
        [None, native]), budget, what=what)
