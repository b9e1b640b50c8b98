"""A shard's batches to another shard on the same machine, through shared memory.

Between two worker processes of one machine a batch went through a socket: pickled,
written, read into a fresh frame and unpickled, each end in its event loop (Dask's comm
took 0.26–0.38 CPU s to move 2.9·10⁸ bytes in batches of 10⁵ states, 2.2 MB, where
copying them takes 0.02–0.05 s; two workers move that much in a search of 1.27·10⁷
states, issue 36 item 6).  Here the sender copies a batch into memory its peer maps
(:class:`Arena`: a ``memfd``, Linux), and only where it lies goes over the comm
(:class:`Placed`); the peer reads it in place when it merges the level (:class:`Source`).
Where the peer cannot open it (another machine, no ``/proc``, a system without
``memfd_create``, too few file descriptors left) or the memory cannot be had, the batch
goes over the socket as before: the same batches either way.

Each pair of shards has two arenas, one for the levels of even depth and one for the
odd.  A shard writes level d + 2 only after it merged level d + 1, which waits for its
peer's last batch of d + 1, which the peer sends after it merged level d: so the peer
has read level d before its arena is written again, with no message more.  An arena is
reset (its room reused) at the first batch of a level and grows to what the level puts
there; at the reset after a level that used under a quarter of it, it shrinks to twice
that (1 MiB at least).  Its pages are the
sender's memory (the shard counts them in its bytes); the peer maps them read-only, so
they count in both processes' resident sizes while mapped, though they are one copy.

``SDG_AUTOMATA_SHARED_BATCHES=0`` (in the workers' environment) sends every batch over the
socket.
"""

from __future__ import annotations

import mmap
import os
import secrets
import stat
from dataclasses import dataclass
from typing import Any

from ..errors import SdgBug

__all__ = ["Arena", "Placed", "Source", "available"]

#: the bytes before the first batch: the arena's token, which its peer checks
_HEADER = 64
#: an arena's least size
_FIRST = 1 << 20
#: the environment variable that turns shared batches off where it is ``0``
_SWITCH = "SDG_AUTOMATA_SHARED_BATCHES"
#: the file descriptors a pair of shards takes on each side (two files, two maps), and
#: the share of the process's limit shared batches may take at most
_DESCRIPTORS, _SHARE_OF_LIMIT = 4, 0.5


def available() -> bool:
    """Whether this process may share batches with one more peer: ``memfd_create``, not
    switched off, and file descriptors to spare (a peer takes four on each side; past
    half the process's limit, batches go over the comm)."""
    if not hasattr(os, "memfd_create") or os.environ.get(_SWITCH, "1") == "0":
        return False
    import resource

    try:
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        used = len(os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        return False
    return limit == resource.RLIM_INFINITY or used + _DESCRIPTORS <= limit * _SHARE_OF_LIMIT


@dataclass(frozen=True)
class Placed:
    """Where an array of a batch lies in its sender's arena of ``parity``: ``shape``,
    numpy type ``dtype`` (its ``str``), from byte ``at``."""

    parity: int
    at: int
    shape: tuple[int, ...]
    dtype: str

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def end(self) -> int:
        """The byte after the array."""
        import numpy as np

        return self.at + int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize


class Arena:
    """The sender's side: two growing ``memfd`` maps (by the level's parity) that one peer
    reads (:class:`Source`).  :meth:`offer` says where they are; :meth:`place` copies a
    batch's arrays in."""

    def __init__(self) -> None:
        self.fds: list[int] = []
        self.maps: list[mmap.mmap] = []
        self.tokens = [secrets.token_bytes(16) for _ in range(2)]
        self.used = [_HEADER, _HEADER]
        self.depth = [-1, -1]  # the level each holds
        try:
            for token in self.tokens:
                fd = os.memfd_create("sdg-automata-batches", os.MFD_CLOEXEC)
                self.fds.append(fd)
                os.posix_fallocate(fd, 0, _FIRST)
                self.maps.append(mmap.mmap(fd, _FIRST))
                self.maps[-1][:len(token)] = token
        except BaseException:
            self.close()
            raise

    @property
    def nbytes(self) -> int:
        """The memory the arenas take."""
        return sum(len(m) for m in self.maps)

    def offer(self) -> dict[str, Any]:
        """What a peer needs to map the arenas (:meth:`Source.open`)."""
        return {"pid": os.getpid(), "fds": list(self.fds), "tokens": list(self.tokens)}

    def place(self, depth: int, *arrays: Any) -> list[Placed] | None:
        """Copy ``arrays`` (C-contiguous) into the arena of ``depth``'s parity, after what
        the level put there so far (a new level starts it afresh): where each lies, or
        ``None`` if the arena could not have the memory (the batch then goes over the
        socket)."""
        parity = depth & 1
        m = self.maps[parity]
        if self.depth[parity] != depth:  # the peer has read the level before (module doc)
            if len(m) > max(4 * self.used[parity], _FIRST):
                self._resize(parity, max(2 * self.used[parity], _FIRST))
                m = self.maps[parity]
            self.depth[parity], self.used[parity] = depth, _HEADER
        at = self.used[parity]
        out = []
        for a in arrays:
            at = -(-at // 64) * 64  # each array on a cache line of its own
            out.append(Placed(parity, at, tuple(a.shape), a.dtype.str))
            at += a.nbytes
        if at > len(m) and not self._resize(parity, max(at, len(m) + len(m) // 2)):
            return None
        for a, p in zip(arrays, out, strict=True):
            if a.nbytes:  # (a memoryview of no byte cannot be cast)
                m[p.at:p.at + a.nbytes] = memoryview(a).cast("B")
        self.used[parity] = at
        return out

    def _resize(self, parity: int, size: int) -> bool:
        """Make the arena of ``parity`` ``size`` bytes, its pages taken now: whether it
        could (a page of a ``memfd`` is charged when first written, and one the system
        cannot give is a SIGBUS there; ``posix_fallocate`` says so as an error)."""
        m, fd = self.maps[parity], self.fds[parity]
        try:
            if size > len(m):
                os.posix_fallocate(fd, len(m), size - len(m))
            m.resize(size)  # ftruncate and mremap: no view of the map is ever kept here
        except (OSError, ValueError):
            return False
        return True

    def close(self) -> None:
        """Unmap and close (a peer's maps keep the memory until they go)."""
        maps, fds, self.maps, self.fds = self.maps, self.fds, [], []
        for m in maps:
            m.close()
        for fd in fds:
            os.close(fd)


class Source:
    """The receiver's side of one peer's :class:`Arena`: its two files, opened through
    ``/proc`` (the peer's process and ours run as the same user on this machine), mapped
    read-only once a level's batches are all in."""

    def __init__(self, fds: list[int]) -> None:
        self.fds = fds
        self.maps: list[mmap.mmap | None] = [None, None]

    @classmethod
    def open(cls, offer: dict[str, Any]) -> Source | None:
        """The peer's arenas (:meth:`Arena.offer`), or ``None`` where this process cannot
        open them or they are not the peer's (another machine: its ``pid`` here is
        another process, or none; opened without blocking, in case it is a pipe)."""
        fds: list[int] = []
        try:
            if not available():
                return None
            for fd, token in zip(offer["fds"], offer["tokens"], strict=True):
                fds.append(os.open(f"/proc/{int(offer['pid'])}/fd/{int(fd)}",
                                   os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC))
                if (not stat.S_ISREG(os.fstat(fds[-1]).st_mode)
                        or os.pread(fds[-1], len(token), 0) != token):
                    raise OSError("not the peer's arena")
        except (OSError, KeyError, TypeError, ValueError):
            for fd in fds:
                os.close(fd)
            return None
        return cls(fds)

    def ensure(self, parity: int, end: int) -> None:
        """Map the arena of ``parity`` at least to byte ``end`` (no array of it may be
        alive: :meth:`view`'s arrays are a level's, gone by the next level's merge)."""
        m = self.maps[parity]
        if m is not None and len(m) >= end:
            return
        size = os.fstat(self.fds[parity]).st_size
        if size < end:
            raise SdgBug(f"a batch ends at byte {end} of an arena of {size}")
        if m is not None:
            try:
                m.close()
            except BufferError as e:  # an array of an earlier level is still alive
                raise SdgBug(f"an arena remapped under its arrays: {e}") from None
        self.maps[parity] = mmap.mmap(self.fds[parity], size, access=mmap.ACCESS_READ)

    def view(self, placed: Placed) -> Any:
        """The array ``placed`` describes, in place, read-only (:meth:`ensure` first)."""
        import numpy as np

        m = self.maps[placed.parity]
        if m is None:
            raise SdgBug("an arena read before it was mapped")
        return np.frombuffer(m, dtype=np.dtype(placed.dtype), count=int(np.prod(placed.shape)),
                             offset=placed.at).reshape(placed.shape)

    def close(self) -> None:
        """Unmap and close: the peer's memory is let go once it closes its side too."""
        maps, fds, self.maps, self.fds = self.maps, self.fds, [None, None], []
        for m in maps:
            if m is not None:
                try:
                    m.close()
                except BufferError:  # an array still alive: the map goes with it
                    pass
        for fd in fds:
            os.close(fd)
