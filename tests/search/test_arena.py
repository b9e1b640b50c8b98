"""The shared memory a shard's batches go through to a peer on the same machine
(:mod:`sdg_automata.search.arena`), read by another process as a peer reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from sdg_automata.search import arena as module

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd here")

#: a peer's side in a process of its own: maps the offer, prints each placed array
_PEER = """
import json, sys
import numpy as np
from sdg_automata.search.arena import Placed, Source
offer, batches = json.loads(sys.argv[1]), json.loads(sys.argv[2])
offer["tokens"] = [bytes.fromhex(t) for t in offer["tokens"]]
source = Source.open(offer)
if source is None:
    print(json.dumps(None)); sys.exit()
placed = [Placed(p, at, tuple(shape), dtype) for p, at, shape, dtype in batches]
for p in placed:
    source.ensure(p.parity, p.end)
print(json.dumps([source.view(p).tolist() for p in placed]))
source.close()
"""


def _read_in_another_process(offer: dict[str, Any], placed: list[module.Placed]) -> Any:
    batches = [[p.parity, p.at, list(p.shape), p.dtype] for p in placed]
    offer = {**offer, "tokens": [t.hex() for t in offer["tokens"]]}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", _PEER, json.dumps(offer), json.dumps(batches)],
                          capture_output=True, text=True, timeout=120, env=env, check=True)
    return json.loads(done.stdout)


def test_another_process_reads_the_batches_as_they_were_placed() -> None:
    """Should give a process that maps the arena the arrays placed, at any size (past the
    first map: it grows), empty ones too, each level's from the start of its parity's
    arena and the other parity's left as it was."""
    rng = np.random.default_rng(36)
    sent = module.Arena()
    try:
        big = rng.integers(0, 1 << 16, size=(200_000, 7)).astype(np.uint16)  # 2.8 MB
        level0 = [big, np.arange(200_000, dtype=np.int64), np.zeros((0, 7), np.uint16),
                  np.zeros(0, np.int64)]
        placed0 = [q for a, b in zip(level0[::2], level0[1::2], strict=True)
                   for q in sent.place(0, a, b) or []]
        level1 = [rng.integers(0, 1 << 31, size=(5, 3)).astype(np.int32),
                  np.array([7, 9, 11, 13, 15], np.int64)]
        placed1 = sent.place(1, *level1)
        assert placed1 is not None and len(placed0) == 4
        level2 = [np.array([[1, 2, 3]], np.int32), np.array([42], np.int64)]
        placed2 = sent.place(2, *level2)
        assert placed2 is not None
        assert placed2[0].at == placed0[0].at  # level 2 reuses level 0's arena
        assert [len(p) for p in placed0] == [200_000, 200_000, 0, 0]
        got = _read_in_another_process(sent.offer(), [*placed2, *placed1])
        assert got is not None
        expected = [a.tolist() for a in (*level2, *level1)]
        assert got == expected
    finally:
        sent.close()


def test_an_arena_that_cannot_have_the_memory_says_so_and_one_level_s_room_shrinks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should answer ``None`` (the batch then goes over the comm) where the pages cannot be
    had, placing nothing, the next batch placed where it would have been; and shrink an
    arena that a level used a quarter of when the next level of its parity resets it."""
    sent = module.Arena()
    try:
        big = np.ones(1 << 20, np.int64)  # 8 MB: past the first map
        assert sent.place(0, big) is not None and sent.nbytes >= 8 << 20

        def refuse(*_: Any) -> None:
            raise OSError(28, "No space left on device")

        with monkeypatch.context() as m:
            m.setattr(module.os, "posix_fallocate", refuse)
            assert sent.place(1, np.ones(1 << 18, np.int64)) is None  # 2 MB: must grow
        small = [np.arange(10, dtype=np.int64)]
        placed = sent.place(1, *small)
        assert placed is not None and placed[0].at == 64  # the refused batch took no room
        placed2 = sent.place(2, np.arange(7, dtype=np.int64))  # level 0's arena, reset
        assert placed2 is not None and len(sent.maps[0]) >= 8 << 20  # as level 0 left it
        got = _read_in_another_process(sent.offer(), [*placed, *placed2])
        assert got == [list(range(10)), list(range(7))]
        # level 2 used a sliver of it: level 4 finds it shrunk to the least, and placed
        placed4 = sent.place(4, np.arange(5, dtype=np.int64))
        assert placed4 is not None and len(sent.maps[0]) == 1 << 20
        assert _read_in_another_process(sent.offer(), placed4) == [list(range(5))]
    finally:
        sent.close()


def test_a_process_that_cannot_open_the_arena_says_so() -> None:
    """Should answer ``None`` (the batches then go over the comm) where the offer's
    process has no such file or the file is not the peer's arena (another machine's
    process id, a token that differs)."""
    sent = module.Arena()
    try:
        offer = sent.offer()
        wrong = {**offer, "tokens": [bytes(16), bytes(16)]}
        assert module.Source.open(wrong) is None
        assert module.Source.open({**offer, "pid": 2 ** 22 + 1}) is None
        assert module.Source.open({"pid": offer["pid"]}) is None
        source = module.Source.open(offer)
        assert source is not None
        source.close()
    finally:
        sent.close()


def test_the_switch_turns_shared_batches_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should offer no arena where ``SDG_AUTOMATA_SHARED_BATCHES=0``."""
    monkeypatch.setenv("SDG_AUTOMATA_SHARED_BATCHES", "0")
    assert not module.available()
    monkeypatch.setenv("SDG_AUTOMATA_SHARED_BATCHES", "1")
    assert module.available()
