"""The octal value file: one format for certificates and checkpoints, its writer and reader.

A file holds an octal game's values 𝒢(0), …, 𝒢(N − 1) and a header saying
what they are::

    sdg-automata octal values\n            (the magic line)
    {"schema": "octal-certificate/1", …}\n   (the header: one line of JSON)
    <payload>                               (the values, zlib-compressed)

The payload is the values as little-endian ``uint8`` (while every value
fits in 8 bits), ``uint16`` or ``uint32``, compressed by zlib; the header
gives their ``count``, ``dtype``, the compressed size ``payload_bytes`` and
the SHA-256 of the uncompressed values.  The header's fields are documented
in ``docs/octal.md`` and its JSON Schema is
``sdg_automata/schemas/octal-certificate.json``.

This module is the only code the solver (:mod:`sdg_automata.games.octal`) and the
checker (:mod:`sdg_automata.games.octal.verify`) share.  :func:`read` refuses a
file that is not one (:class:`~sdg_automata.errors.InputError`) and one
whose values do not match their header — truncated, too long or a bad hash —
(:class:`~sdg_automata.errors.InvalidCertificate`); it never judges whether
the values are right.  :func:`write` is atomic: the old file stays whole
until the new one is complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ...errors import BudgetExceeded, InputError, InvalidCertificate
from ...runtime.atomic import replacing
from ...runtime.budget import available_bytes
from ...runtime.files import open_regular

__all__ = ["CERTIFICATE", "CHECKPOINT", "MAGIC", "ValueFile", "read", "write"]

#: the first line of every file
MAGIC = b"sdg-automata octal values\n"
#: the header's schema for a certificate and for a checkpoint
CERTIFICATE = "octal-certificate/1"
CHECKPOINT = "octal-checkpoint/1"
#: the types of the stored values, narrowest first
DTYPES: dict[str, np.dtype[Any]] = {"uint8": np.dtype("<u1"), "uint16": np.dtype("<u2"),
                                    "uint32": np.dtype("<u4")}
#: the longest header line read (a header lists at most a few thousand rare heaps)
MAX_HEADER = 1 << 24
#: the most zlib's deflate can expand (its limit is 1032:1)
_INFLATE = 1032
#: bytes compressed or decompressed at a time (the temporaries stay small)
_CHUNK = 1 << 24
#: payload bytes read at a time (between two calls of :func:`read`'s ``check``)
_READ = 1 << 22


@dataclass(frozen=True, kw_only=True)
class ValueFile:
    """A file's header (without the fields of the payload) and its values."""

    header: dict[str, Any]
    values: npt.NDArray[np.integer[Any]]


def _narrowest(values: npt.NDArray[np.integer[Any]]) -> str:
    top = 0
    for i in range(0, len(values), _CHUNK):
        top = max(top, int(values[i:i + _CHUNK].max()))
    return "uint8" if top < 1 << 8 else "uint16" if top < 1 << 16 else "uint32"


def _payload(values: npt.NDArray[np.integer[Any]], dtype: str,
             level: int) -> Iterator[tuple[bytes, bytes]]:
    """(raw bytes, compressed bytes) chunk by chunk."""
    z = zlib.compressobj(level)
    for i in range(0, len(values), _CHUNK):
        raw = np.ascontiguousarray(values[i:i + _CHUNK], dtype=DTYPES[dtype]).tobytes()
        yield raw, z.compress(raw)
    yield b"", z.flush()


def _seal(header: dict[str, Any]) -> str:
    """The SHA-256 of the header's canonical JSON (keys sorted, no spaces), its ``seal``
    left out: any change to any field changes it."""
    fields = {k: v for k, v in header.items() if k != "seal"}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def write(path: str, header: dict[str, Any], values: npt.NDArray[np.integer[Any]], *,
          level: int = 6) -> int:
    """Write ``header`` (which must name its ``schema``) and ``values`` to ``path``,
    atomically (:func:`~sdg_automata.runtime.atomic.replacing`); the file's size in bytes.

    ``count``, ``dtype``, ``compression``, ``payload_bytes`` and ``sha256`` are
    added to the header, then its ``seal`` (the SHA-256 of all the others).  zlib
    ``level`` 1 writes about 5× faster than 6 for files about 1.3× larger (checkpoints
    use 1).
    """
    dtype = _narrowest(values)
    folder = os.path.dirname(os.path.realpath(path)) or "."
    with replacing(path) as f:
        digest, size = hashlib.sha256(), 0
        # the payload goes to a scratch file first: the header, written before it,
        # gives its size and hash
        with tempfile.TemporaryFile(dir=folder) as body:
            for raw, packed in _payload(values, dtype, level):
                digest.update(raw)
                body.write(packed)
                size += len(packed)
            full = {**header, "count": len(values), "dtype": dtype, "compression": "zlib",
                    "payload_bytes": size, "sha256": digest.hexdigest()}
            full["seal"] = _seal(full)
            f.write(MAGIC + json.dumps(full, separators=(", ", ": ")).encode() + b"\n")
            body.seek(0)
            while block := body.read(_CHUNK):
                f.write(block)
        total = f.tell()
    return total


def read(path: str, *, schema: str, check: Callable[[int], object] | None = None) -> ValueFile:
    """The header and values of the file ``path``, which must be a ``schema`` file.

    Only a regular file is read (:func:`~sdg_automata.runtime.files.open_regular`: a FIFO
    or a device is refused before a byte is read), and no more of it than its header
    says: a header line of at most :data:`MAX_HEADER` bytes, then ``payload_bytes`` (a
    file longer than that is refused before its payload is read).  ``check(n)``, when
    given, is called between chunks with the payload bytes read so far (a budget's
    meter stops a long read there).

    Raises
    ------
    InputError
        The file cannot be read, or is not such a file (magic line, header).
    InvalidCertificate
        The file does not hold what its header says: a broken seal (a field of the
        header changed after it was written; a checkpoint must have a seal), a
        truncated or overlong payload, or a bad SHA-256.
    """
    what = "checkpoint" if schema == CHECKPOINT else "certificate"
    try:
        with open_regular(path, what=what) as f:
            return _read(f, path, schema, check)
    except OSError as e:
        raise InputError(f"cannot read {path!r}: {e.strerror or e}") from None


def _header(f: IO[bytes], path: str, schema: str) -> tuple[dict[str, Any], int, str, int, str]:
    """The header after the magic line, checked: (header, count, dtype, payload bytes,
    sha256)."""
    if f.read(len(MAGIC)) != MAGIC:
        raise InputError(f"{path!r} is not an sdg-automata octal file (no "
                         f"{MAGIC.decode().strip()!r} line)")
    line = f.readline(MAX_HEADER + 1)
    if not line.endswith(b"\n"):
        raise InputError(f"{path!r}: the header line is longer than {MAX_HEADER:,} bytes"
                         if len(line) > MAX_HEADER else
                         f"{path!r}: the header line has no end (the file is truncated)")
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        raise InputError(f"{path!r}: the header line is not JSON") from None
    if not isinstance(header, dict) or header.get("schema") != schema:
        found = header.get("schema") if isinstance(header, dict) else None
        raise InputError(f"{path!r} is not an {schema} file (its schema is {found!r})")
    seal = header.get("seal")
    if seal is None and schema == CHECKPOINT:
        raise InvalidCertificate(f"{path!r} has no seal (a checkpoint of an earlier version, "
                                 "or an edited one): its header cannot be trusted")
    if seal is not None and seal != _seal(header):
        raise InvalidCertificate(f"{path!r}: the header's seal is broken (a field was changed "
                                 "after the file was written)")
    count, dtype = header.get("count"), header.get("dtype")
    size, digest = header.get("payload_bytes"), header.get("sha256")
    if (not _natural(count) or dtype not in DTYPES or header.get("compression") != "zlib"
            or not _natural(size) or not isinstance(digest, str)):
        raise InputError(f"{path!r}: the header's count, dtype, compression, payload_bytes "
                         f"or sha256 is missing or malformed")
    assert isinstance(count, int) and isinstance(dtype, str) and isinstance(size, int)
    return header, count, dtype, size, digest


def _read(f: IO[bytes], path: str, schema: str,
          check: Callable[[int], object] | None) -> ValueFile:
    header, count, dtype, size, digest = _header(f, path, schema)
    if count * DTYPES[dtype].itemsize > _INFLATE * size + (1 << 10):
        # zlib never inflates more than about 1032 times: refuse before allocating
        raise InvalidCertificate(f"{path!r}: {size} compressed bytes cannot hold the {count} "
                                 f"values its header says")
    beyond = os.fstat(f.fileno()).st_size - f.tell() - size
    if beyond > 0:  # refused before reading: a valid file followed by a gigabyte of zeros
        raise InvalidCertificate(f"{path!r} has {beyond:,} bytes after the {size:,} of its "
                                 "payload")
    need, left = count * DTYPES[dtype].itemsize, available_bytes()
    if left is not None and need > left:
        raise BudgetExceeded(f"{path!r} holds {count:,} values, {need >> 20:,} MB, more than "
                             f"the {left >> 20:,} MB this process can allocate", explored=0)
    values = np.zeros(count, dtype=DTYPES[dtype])
    raw = values.view(np.uint8)
    z, got, at, read_bytes = zlib.decompressobj(), hashlib.sha256(), 0, 0
    try:
        # never more than the header's payload_bytes, and one byte to see that there is more
        while read_bytes <= size and (block := f.read(min(_READ, size + 1 - read_bytes))):
            if check is not None:
                check(read_bytes)
            read_bytes += len(block)
            out = z.decompress(block, len(raw) - at + 1)
            while out:
                if at + len(out) > len(raw):
                    raise InvalidCertificate(f"{path!r} holds more than the {count} values its "
                                             f"header says")
                raw[at:at + len(out)] = np.frombuffer(out, dtype=np.uint8)
                got.update(out)
                at += len(out)
                out = z.decompress(z.unconsumed_tail, len(raw) - at + 1) \
                    if z.unconsumed_tail else b""
    except zlib.error as e:
        raise InvalidCertificate(f"{path!r}: the values do not decompress ({e})") from None
    if read_bytes > size:
        raise InvalidCertificate(f"{path!r}: the payload has more than the {size} bytes its "
                                 "header says")
    if at < len(raw) or not z.eof:
        state = "is truncated" if read_bytes < size else "is damaged (its payload is whole)"
        raise InvalidCertificate(
            f"{path!r} {state}: {at // values.itemsize} values of the {count} its header "
            f"says ({read_bytes} payload bytes of {size})")
    if got.hexdigest() != digest:
        raise InvalidCertificate(f"{path!r}: the values' SHA-256 is not the header's (the "
                                 f"values were changed)")
    for key in ("count", "dtype", "compression", "payload_bytes", "sha256", "seal"):
        header.pop(key, None)
    return ValueFile(header=header, values=values)


def _natural(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0
