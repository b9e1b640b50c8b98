"""Resuming a sweep into its output file, and keeping a second sweep off it (issue 12).

:func:`resume` reads an output file before a sweep appends to it: the keys it
holds are skipped, and a torn last line (a sweep killed mid-write, SIGKILL
included) is detected and cut off, so a killed sweep loses at most the rows in
flight and never duplicates or corrupts one.  :func:`locked` keeps a second sweep
from appending to the same file at the same time.  An output that is not a
regular file -- a FIFO, a device, a directory -- is refused (issue 21 §6).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import stat
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import InputError
from ..runtime.files import read_capped
from .sinks import Format

__all__ = ["Resumed", "locked", "resume"]


@dataclass(frozen=True, kw_only=True)
class Resumed:
    """What :func:`resume` found in an output file."""

    done: frozenset[str]  # keys not to run again
    torn_bytes: int  # bytes of a torn last line that were cut off (0: none)
    header: bool  # whether the file already has its header (CSV)
    retried: int = 0  # keys whose last row has a status to retry


def _regular(path: str) -> bool:
    """Whether ``path`` exists; :class:`~sdg_automata.errors.InputError` when it is not a
    regular file (or a link to one): a sweep rereads its ``--out`` to resume, and a device
    such as /dev/full reads forever, a FIFO blocks the open (issue 21 §6)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as e:
        raise InputError(f"cannot write {path!r}: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"cannot write {path!r}: it is a directory")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device")
        raise InputError(f"--out {path!r} is {kind}, not a regular file: a sweep appends its "
                         f"rows to a file it can read again to resume")
    return True


def resume(path: str | os.PathLike[str], fmt: Format, columns: Sequence[str], *,
           retry: Container[str] = frozenset()) -> Resumed:
    """Read the keys already in ``path`` and cut off a torn last line.

    A key is done unless the status of its last row is in ``retry``
    (``{"error"}`` for ``--retry-errors``): that job runs again, and its new
    row, appended, is the one that counts.

    A line is *torn* when it is the last and does not end with a newline (a
    writer killed in the middle of a row: a row is one write ending with its
    newline, which nothing inside a JSON row or a CSV field at its end can
    be).  Every other line must be a row of this sweep (it has every field of
    ``columns``) or blank, else :class:`~sdg_automata.errors.InputError` (the
    file is someone else's, or was edited, and appending to it would mix
    sweeps); a complete last line is no exception.
    """
    if fmt == "table":
        raise InputError("--out takes jsonl or csv; the table format is for the terminal")
    p = Path(path)
    if not _regular(str(p)):
        return Resumed(done=frozenset(), torn_bytes=0, header=False)
    # a regular file, read no further than a sweep output's cap (runtime.files.CAPS)
    data = read_capped(p, what="sweep output")
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]]  # after the last \n: torn
    _torn_tail(data[sum(map(len, lines)):], fmt, bool(lines), columns, str(p))
    read = _read_jsonl if fmt == "jsonl" else _read_csv
    status, keep = read(lines, tuple(columns), str(p))
    header = fmt == "csv" and keep > 0
    if keep < len(data):
        with open(p, "r+b") as f:
            f.truncate(keep)
    done = frozenset(k for k, s in status.items() if s not in retry)
    return Resumed(done=done, torn_bytes=len(data) - keep, header=header,
                   retried=len(status) - len(done))


def _torn_tail(tail: bytes, fmt: Format, after_lines: bool, columns: Sequence[str],
               path: str) -> None:
    """Refuse bytes after the last newline that cannot be the start of a row: cutting
    them would delete what some other program wrote (a file of zeros, a text without
    newline).  A JSON row starts with ``{``; a CSV file starts with its header."""
    if not tail:
        return
    header = ",".join(columns).encode()
    if fmt == "jsonl":
        fits = tail.startswith(b"{")
    else:
        fits = after_lines or header.startswith(tail) or tail.startswith(header)
    if not fits:
        raise InputError("its last line is neither a row of this sweep nor the start of one; "
                         "refusing to append to it", source=path)


def _read_jsonl(lines: list[bytes], columns: tuple[str, ...], path: str
                ) -> tuple[dict[str, str], int]:
    """The status of each key (its last row's) in a JSON Lines file's complete lines, and
    their bytes (all of them)."""
    keys: dict[str, str] = {}
    keep = 0
    for i, line in enumerate(lines, start=1):
        keep += len(line)
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError("not a JSON row: the file does not hold rows of this sweep; "
                             "refusing to append to it", source=path, line=i) from None
        missing = [c for c in columns if c not in row] if isinstance(row, dict) else ["key"]
        if missing:
            raise InputError(f"no field {missing[0]!r}: the file does not hold rows of this "
                             f"sweep; refusing to append to it", source=path, line=i)
        keys[str(row["key"])] = str(row["status"])
    return keys, keep


def _read_csv(lines: list[bytes], columns: tuple[str, ...], path: str
              ) -> tuple[dict[str, str], int]:
    """The status of each key (its last row's) in a CSV file, and the bytes to keep (a
    torn last record dropped).

    Records may span lines (a grammar's text is quoted with its newlines), so
    the reader is fed line by line and the bytes of each record are counted; a
    record cut inside such a field (an open quote at the end) is torn.
    """
    consumed = [0]

    def feed() -> Iterator[str]:
        for line in lines:
            consumed[0] += len(line)
            yield line.decode("utf-8", errors="replace")

    reader = csv.reader(feed(), strict=True)
    whole = b"".join(lines)
    keys: dict[str, str] = {}
    keep = 0
    k, st = columns.index("key"), columns.index("status")
    first = True
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return keys, keep
        except csv.Error as e:
            if consumed[0] == len(whole) and whole[keep:].count(b'"') % 2:
                return keys, keep  # a quoted field still open at the end: torn
            raise InputError(f"not CSV ({e}); refusing to append to it", source=path,
                             line=reader.line_num) from None
        if first and tuple(record) != columns:
            raise InputError(f"its header is not this sweep's columns ({','.join(columns)}); "
                             f"refusing to append to it", source=path)
        if len(record) != len(columns):  # a complete record: the file was not written so
            raise InputError(f"{len(record)} fields, not {len(columns)}; refusing to append "
                             f"to it", source=path, line=reader.line_num)
        if not first:
            keys[record[k]] = record[st]
        first = False
        keep = consumed[0]


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Open ``path`` for appending, holding an exclusive lock while the sweep writes.

    ``path`` must be a regular file or not exist (:func:`_regular`); it is
    opened without blocking, so a FIFO put in its place meanwhile is refused
    too.  A second sweep on the same file fails at once with
    :class:`~sdg_automata.errors.InputError` instead of interleaving rows.  A
    file this call created is removed again when the sweep fails before
    writing a byte to it: a refused start leaves nothing behind.
    """
    name = os.fspath(path)
    if not name:
        raise InputError("--out needs a file name")
    existed = _regular(name)
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(name, flags, 0o666)
    except OSError as e:
        raise InputError(f"cannot write {name!r}: {e.strerror or e}") from None
    f = os.fdopen(fd, "a", encoding="utf-8", newline="")
    with f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # put there since _regular looked
            raise InputError(f"--out {name!r} is not a regular file")
        os.set_blocking(fd, True)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            raise InputError(f"{name!r} is being written by another sweep") from None
        try:
            yield f
        except BaseException:
            if not existed:
                _remove_if_empty(name, fd)
            with contextlib.suppress(OSError):  # a row cut by a full disk is torn: resume
                f.close()                        # cuts it, and flushing it again would fail
            raise


def _remove_if_empty(name: str, fd: int) -> None:
    """Remove the file ``fd`` (created at ``name``) if nothing was written to it."""
    with contextlib.suppress(OSError):
        real = os.path.realpath(name)
        mine = os.fstat(fd)
        if mine.st_size == 0 and os.path.samestat(os.stat(real), mine):
            os.unlink(real)
