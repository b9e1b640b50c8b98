"""Files written atomically: a temporary file beside the target, then one rename.

Every file the package writes for a user (``-o FILE``, ``--plot``, certificates,
checkpoints) goes through :func:`replacing`: the bytes go to a temporary file in the
target's folder, are flushed to the disk (``fsync``), and the temporary file is renamed
over the target (``os.replace``, atomic on POSIX).  A failure or Ctrl-C leaves the old
file whole and removes the temporary one.

A ``SIGKILL`` (or a power cut) cannot be caught: it leaves the temporary file behind.
Its name says whose it is, ``.sdg-<pid>-<host>-<random>.tmp``, so the next write into
the same folder removes those of this host whose process is gone
(:func:`remove_stale`).  Nothing else is touched: not the temporaries of a live
process (a run still writing), nor those of another host sharing the folder (its
process ids mean nothing here), nor files named otherwise (the ``.sdg-<random>.tmp`` of
earlier versions included: whose they were cannot be told).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import stat
import zlib
from collections.abc import Iterator
from typing import IO

__all__ = ["PREFIX", "SUFFIX", "remove_stale", "replacing"]

#: the temporary files' names: PREFIX + "<pid>-<host>-" + random + SUFFIX
PREFIX = ".sdg-"
SUFFIX = ".tmp"
#: this host, as 8 hex digits (a host name may hold any character)
_HOST = f"{zlib.crc32(socket.gethostname().encode('utf-8', 'replace')):08x}"
_OURS = re.compile(re.escape(PREFIX) + r"(\d+)-([0-9a-f]{8})-[^/]*" + re.escape(SUFFIX) + r"\Z")


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this host (one of another user counts)."""
    if pid <= 0:
        return True  # not a process id: not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, and is someone else's
        return True
    return True


def remove_stale(folder: str) -> list[str]:
    """Remove from ``folder`` the temporary files a killed writer left behind; their names.

    A file is removed only when its name is one :func:`replacing` gives, made on this
    host, by a process that no longer runs, and it is a regular file (not a link).
    Failures (a folder that cannot be listed, a file removed meanwhile) are ignored:
    cleaning is a courtesy, never a reason to fail a write.
    """
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return removed
    me = os.getpid()
    for entry in entries:
        m = _OURS.match(entry.name)
        if m is None or m.group(2) != _HOST:
            continue
        pid = int(m.group(1))
        if pid == me or _alive(pid):
            continue
        with contextlib.suppress(OSError):
            if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str) -> Iterator[IO[bytes]]:
    """A binary file to write that replaces ``path`` when the block ends without error.

    A symbolic link is followed (its target is replaced, the link stays).  The new file
    keeps the old one's permissions, or gets those of a new file (``0o666`` less the
    umask; ``mkstemp`` alone would give ``0o600``).  Stale temporary files in the folder
    are removed first (:func:`remove_stale`).

    Raises
    ------
    OSError
        The folder cannot be written, the disk is full, ...: the old file is untouched.
    """
    import tempfile  # here: tempfile loads random, shutil and more, for commands that write

    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    remove_stale(folder)
    try:
        mode: int | None = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f"{PREFIX}{os.getpid()}-{_HOST}-", suffix=SUFFIX,
                               dir=folder)
    try:
        with os.fdopen(fd, "w+b") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
