"""Checkpoints of a long octal run: the values computed so far, kept in a file and resumed.

A checkpoint is the value file of :mod:`sdg_automata.games.octal.valuefile` with the
schema ``octal-checkpoint/1``: the values 𝒢(0), …, 𝒢(n − 1) and the engine's state
(its method, sparse space and next detection), written atomically every
:data:`CHECKPOINT_SECONDS` or so, so that a stopped run resumes with the same values
(``docs/octal.md`` §8).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from ...errors import InputError
from . import valuefile as octal_file
from .space import SparseSpace
from .values import _Engine

__all__ = ["CHECKPOINT_SECONDS"]

#: seconds between two checkpoints at least (more when writing one takes over 1/10 of it)
CHECKPOINT_SECONDS = 60.0


class _Checkpoint:
    """The values of ``run`` kept in the file ``path`` (an ``octal-checkpoint/1`` file)."""

    def __init__(self, path: str, run: _Engine) -> None:
        self.path, self.run = path, run
        self.interval = CHECKPOINT_SECONDS
        self.saved_at = time.monotonic()
        if os.path.exists(path):
            self._load()

    def _load(self) -> None:
        file = octal_file.read(self.path, schema=octal_file.CHECKPOINT)
        head, game = file.header, self.run.game
        if head.get("code") != game.code:
            raise InputError(f"the checkpoint {self.path!r} is of {head.get('code')!r}, "
                             f"not {game.code}")
        space = head.get("space")
        try:
            sparse = None if space is None else SparseSpace(**space)
            self.run.load(file.values, sparse, int(head["next_detect"]))
        except (TypeError, KeyError, ValueError):
            raise InputError(f"the checkpoint {self.path!r} has a malformed header") from None

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
