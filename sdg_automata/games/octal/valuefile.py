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

import contextlib
import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ...errors import InputError, InvalidCertificate

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


def write(path: str, header: dict[str, Any], values: npt.NDArray[np.integer[Any]], *,
          level: int = 6) -> int:
    """Write ``header`` (which must name its ``schema``) and ``values`` to ``path``,
    atomically; the file's size in bytes.

    ``count``, ``dtype``, ``compression``, ``payload_bytes`` and ``sha256`` are
    added to the header.  zlib ``level`` 1 writes about 5× faster than 6 for
    files about 1.3× larger (checkpoints use 1).
    """
    dtype = _narrowest(values)
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=".sdg-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w+b") as f:
            digest, size = hashlib.sha256(), 0
            # the payload goes to a scratch file first: the header, written before it,
            # gives its size and hash
            body = tempfile.TemporaryFile(dir=folder)
            with body:
                for raw, packed in _payload(values, dtype, level):
                    digest.update(raw)
                    body.write(packed)
                    size += len(packed)
                full = {**header, "count": len(values), "dtype": dtype, "compression": "zlib",
                        "payload_bytes": size, "sha256": digest.hexdigest()}
                f.write(MAGIC + json.dumps(full, separators=(", ", ": ")).encode() + b"\n")
                body.seek(0)
                while block := body.read(_CHUNK):
                    f.write(block)
            f.flush()
            os.fsync(f.fileno())
            total = f.tell()
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return total


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read(path: str, *, schema: str) -> ValueFile:
    """The header and values of the file ``path``, which must be a ``schema`` file.

    Raises
    ------
    InputError
        The file cannot be read, or is not such a file (magic line, header).
    InvalidCertificate
        The values do not match the header: a truncated or overlong payload,
        or a bad SHA-256.
    """
    try:
        with open(path, "rb") as f:
            return _read(f, path, schema)
    except OSError as e:
        raise InputError(f"cannot read {path!r}: {e.strerror or e}") from None


def _read(f: IO[bytes], path: str, schema: str) -> ValueFile:
    if f.read(len(MAGIC)) != MAGIC:
        raise InputError(f"{path!r} is not an sdg-automata octal file (no "
                         f"{MAGIC.decode().strip()!r} line)")
    line = f.readline(MAX_HEADER)
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        raise InputError(f"{path!r}: the header line is not JSON") from None
    if not isinstance(header, dict) or header.get("schema") != schema:
        found = header.get("schema") if isinstance(header, dict) else None
        raise InputError(f"{path!r} is not an {schema} file (its schema is {found!r})")
    count, dtype = header.get("count"), header.get("dtype")
    size, digest = header.get("payload_bytes"), header.get("sha256")
    if (not _natural(count) or dtype not in DTYPES or header.get("compression") != "zlib"
            or not _natural(size) or not isinstance(digest, str)):
        raise InputError(f"{path!r}: the header's count, dtype, compression, payload_bytes "
                         f"or sha256 is missing or malformed")
    assert isinstance(count, int) and isinstance(dtype, str) and isinstance(size, int)
    if count * DTYPES[dtype].itemsize > _INFLATE * size + (1 << 10):
        # zlib never inflates more than about 1032 times: refuse before allocating
        raise InvalidCertificate(f"{path!r}: {size} compressed bytes cannot hold the {count} "
                                 f"values its header says")
    values = np.zeros(count, dtype=DTYPES[dtype])
    raw = values.view(np.uint8)
    z, got, at, read_bytes = zlib.decompressobj(), hashlib.sha256(), 0, 0
    try:
        while block := f.read(_CHUNK):
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
    if at < len(raw) or not z.eof:
        state = "is truncated" if read_bytes < size else "is damaged (its payload is whole)"
        raise InvalidCertificate(
            f"{path!r} {state}: {at // values.itemsize} values of the {count} its header "
            f"says ({read_bytes} payload bytes of {size})")
    if read_bytes != size:
        raise InvalidCertificate(f"{path!r}: the payload has {read_bytes} bytes, its header "
                                 f"says {size}")
    if got.hexdigest() != digest:
        raise InvalidCertificate(f"{path!r}: the values' SHA-256 is not the header's (the "
                                 f"values were changed)")
    for key in ("count", "dtype", "compression", "payload_bytes", "sha256"):
        del header[key]
    return ValueFile(header=header, values=values)


def _natural(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0
