"""Checkpoints of a long octal run: the values computed so far, kept in a file and resumed.

A checkpoint is the value file of :mod:`sdg_automata.games.octal.valuefile` with the
schema ``octal-checkpoint/1``: the values 𝒢(0), …, 𝒢(n − 1) and the engine's state
(its method, sparse space and next detection), written atomically every
:data:`CHECKPOINT_SECONDS` or so, so that a stopped run resumes with the same values
(``docs/octal.md`` §8).

A checkpoint is data to verify, not to trust (``docs/octal.md`` §8).  Its header is
sealed (:mod:`~sdg_automata.games.octal.valuefile`: a flipped bit anywhere in it is
refused), every field the run reads is checked against its range and the game (a
sparse space the lemma does not hold for, a mask of 2⁷⁰, a value above its heap's
number of options: each one :class:`~sdg_automata.errors.InputError` naming the file),
and the values themselves, which a seal cannot vouch for (anyone can re-seal an
edited file), are re-derived by the independent checker before any claim rests on
them (:func:`sdg_automata.games.octal.period.recheck`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, get_args

import numpy as np

from ...errors import InputError, InvalidCertificate
from . import valuefile as octal_file
from .space import SparseSpace
from .values import Method, _Engine
from .verify import options_bound

__all__ = ["CHECKPOINT_SECONDS"]

#: seconds between two checkpoints at least (more when writing one takes over 1/10 of it)
CHECKPOINT_SECONDS = 60.0
#: the largest ``next_detect`` a header may hold (a run never reaches 2⁶² values)
_FURTHEST = 1 << 62
#: the masks a sparse space may have: values are below 2³¹ (the engine's widest type)
_MASKS = 1 << 31
#: the methods a run that keeps a checkpoint may have (a period is never sought "naive")
_METHODS = tuple(m for m in get_args(Method) if m != "naive")


class _Checkpoint:
    """The values of ``run`` kept in the file ``path`` (an ``octal-checkpoint/1`` file).

    ``resumed`` is how many values came from the file (0 for a new one): values this
    run did not compute, to be re-derived before anything is claimed of them.
    """

    def __init__(self, path: str, run: _Engine) -> None:
        self.path, self.run = path, run
        self.interval = CHECKPOINT_SECONDS
        self.saved_at = time.monotonic()
        self.resumed = 0
        if os.path.exists(path):
            self._load()

    def damaged(self, why: str) -> InputError:
        """The error for a checkpoint that cannot be resumed (exit 2), saying why."""
        return InputError(f"the checkpoint {self.path!r} cannot be resumed: {why} (it was "
                          "damaged or edited after it was written; delete it to start afresh)")

    def _load(self) -> None:
        try:
            file = octal_file.read(self.path, schema=octal_file.CHECKPOINT)
        except InvalidCertificate as e:
            raise self.damaged(str(e)) from None
        head, game = file.header, self.run.game
        if head.get("code") != game.code:
            raise InputError(f"the checkpoint {self.path!r} is of {head.get('code')!r}, "
                             f"not {game.code}")
        if head.get("method") not in _METHODS:
            raise self.damaged(f"its method {head.get('method')!r} is none of "
                               f"{', '.join(_METHODS)}")
        space = self._space(head.get("space"))
        nxt = head.get("next_detect")
        if not isinstance(nxt, int) or isinstance(nxt, bool) or not -1 <= nxt <= _FURTHEST:
            raise self.damaged(f"its next_detect {nxt!r} is not an integer from -1 to 2**62")
        values = file.values
        self._bounded(values)
        self.run.load(values, space, nxt)
        self.resumed = len(values)

    def _space(self, space: Any) -> SparseSpace | None:
        """The header's sparse space, refused unless the sparse-space lemma holds for it
        (``docs/octal.md`` §4): a mask 1 ≤ m < 2³¹, ρ ∈ {0, 1}, and the heap's parity in
        the class only when every splitting removal has the parity ρ."""
        if space is None:
            return None
        keys = {"mask", "positional", "rare_parity", "rare"}
        if not isinstance(space, dict) or set(space) != keys:
            raise self.damaged(f"its space is not an object of exactly {sorted(keys)}")
        mask, positional, rho, rare = (space[k] for k in ("mask", "positional",
                                                           "rare_parity", "rare"))
        if not (_integer(mask) and 1 <= mask < _MASKS and isinstance(positional, bool)
                and _integer(rho) and rho in (0, 1) and _integer(rare) and rare >= 0):
            raise self.damaged(f"its space {space!r} is out of range (mask from 1 to 2**31 - 1, "
                               "positional true or false, rare_parity 0 or 1, rare ≥ 0)")
        splits = self.run.two
        if (rho and not positional) or (positional and {k & 1 for k in splits} != {rho}):
            raise self.damaged(f"its space {space!r} is not one the sparse-space lemma holds "
                               f"for (the heap's parity joins the class only when every "
                               f"splitting removal has the parity rare_parity)")
        return SparseSpace(mask=mask, positional=positional, rare_parity=rho, rare=rare)

    def _bounded(self, values: np.ndarray[Any, Any]) -> None:
        """No value above its heap's number of options (checked before the engine sizes
        its arrays by the largest value)."""
        step = 1 << 22
        for start in range(0, len(values), step):
            heaps = np.arange(start, min(len(values), start + step), dtype=np.int64)
            over = np.flatnonzero(values[start:start + step] > options_bound(
                self.run.game.code, heaps))
            if len(over):
                h = start + int(over[0])
                raise self.damaged(f"its 𝒢({h}) = {values[h]} is more than heap {h}'s "
                                   "number of options")

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


def _integer(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)
