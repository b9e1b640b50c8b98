"""Input files opened as data to verify, not to trust: regular files only, read with a cap.

Every file the package reads that a user or another program hands it (grammars, game
graphs, octal value files and certificates, what an external solver writes) may be a
FIFO that never ends, ``/dev/zero``, a symbolic link to either, or a valid file followed
by a gigabyte of garbage.  :func:`open_regular` opens without blocking and refuses
anything but a regular file before a byte is read; :func:`read_capped` then reads at most
``cap`` bytes, in chunks, asking ``check`` (a budget's meter, say) between chunks, so no
read outlasts its budget or its memory.  Standard input (``"-"``) is the one stream
read as it comes (a pipe is what a user means by it), still with the cap.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from typing import IO

from ..errors import InputError

__all__ = ["CAPS", "CHUNK", "DEFAULT_CAP", "open_regular", "read_capped"]

#: bytes read between two calls of the ``check`` of :func:`read_capped`
CHUNK = 1 << 20

#: the most bytes each kind of input file of ours may have, far above any real one (a
#: larger file is refused by its size before a byte is read; the table in docs/cli.md).  A
#: grammar of 10⁵ rules is a few MB; a DFA or game graph of 10⁶ states or positions,
#: some 100 MB; a sweep's output of 10⁷ rows, about 2 GB.  The octal value files
#: (certificates, checkpoints) are read no further than their own header says
#: (:mod:`sdg_automata.games.octal.valuefile`).
CAPS: dict[str, int] = {
    "grammar file": 64 << 20,
    "word list": 256 << 20,
    "DFA file": 1 << 30,
    "game graph file": 1 << 30,
    "sweep output": 4 << 30,
}
#: the cap of any other kind
DEFAULT_CAP = 64 << 20


def open_regular(path: str | os.PathLike[str], *, what: str = "file") -> IO[bytes]:
    """``path`` opened for reading in binary, if it is a regular file.

    The file is opened with ``O_NONBLOCK`` (a FIFO with no writer would block a plain
    ``open`` forever), then checked with ``fstat`` on the descriptor itself (no race with
    a rename), and the flag is cleared for the reads.

    Raises
    ------
    InputError
        Saying which file and why: an empty name, missing, a directory, a FIFO, a device
        or socket, unreadable.
    """
    name = os.fspath(path)
    if not name:
        raise InputError(f"the {what} name is empty")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"cannot read {name!r}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name!r} is a directory, not a {what}") from None
    except OSError as e:
        raise InputError(f"cannot read {name!r}: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{name!r} is a directory, not a {what}")
        if not stat.S_ISREG(mode):
            kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode)
                    or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "not a regular file")
            raise InputError(f"{name!r} is {kind}, not a {what}: only regular files are read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str | os.PathLike[str], *, cap: int | None = None, what: str = "file",
                check: Callable[[int], object] | None = None) -> bytes:
    """The bytes of the regular file ``path`` (``"-"``: standard input), at most ``cap``
    (default: :data:`CAPS` of ``what``, else :data:`DEFAULT_CAP`).

    ``check(n)``, when given, is called before each chunk of :data:`CHUNK` bytes with the
    bytes read so far: a budget's meter raises there when time runs out.

    Raises
    ------
    InputError
        As :func:`open_regular` says, or the file holds more than ``cap`` bytes (its
        size is refused before anything is read, and a file that grows while read is
        refused at the cap).
    """
    name = os.fspath(path)
    cap = CAPS.get(what, DEFAULT_CAP) if cap is None else cap
    if name == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise InputError("cannot read standard input: it is closed or not binary")
        return _read(stream, "standard input", cap, what, check)
    with open_regular(name, what=what) as f:
        size = os.fstat(f.fileno()).st_size
        if size > cap:
            raise InputError(f"{name!r} has {size:,} bytes, more than the {cap:,} a {what} "
                             f"may have")
        return _read(f, repr(name), cap, what, check)


def _read(f: IO[bytes], name: str, cap: int, what: str,
          check: Callable[[int], object] | None) -> bytes:
    parts: list[bytes] = []
    got = 0
    while True:
        if check is not None:
            check(got)
        block = f.read(min(CHUNK, cap + 1 - got))
        if not block:
            return b"".join(parts)
        parts.append(block)
        got += len(block)
        if got > cap:
            raise InputError(f"{name} holds more than the {cap:,} bytes a {what} may have")
