"""Kernels compiled once to native code, and loaded in later processes without numba.

Importing numba and loading its cached kernels costs about a second of CPU and
120 MB in every process (issue 36: ``octal 0.16 --json`` spent 1.0 of its 1.5 s
there, against 0.24 s for the whole run of tczajka's C++ solver).  A
:class:`Library` removes that cost from every run but the first:

* its entry points (:class:`Entry`: a kernel of a module for given argument
  types) are wrapped by numba as C functions (``numba.cfunc``, arrays passed as
  pointer and shape, :func:`numba.carray` inside), compiled once, linked into
  one object file by llvmlite and written to the cache (:func:`cache_dir`);
* later processes link that object in memory with llvmlite's ORC JIT (a
  linker, not a compiler: about 0.03 s) and call it through :mod:`ctypes`, the
  GIL released as numba's ``nogil`` kernels do.  numba itself is not imported:
  the few helpers its code may call on an error path (taking the GIL, writing an
  exception) are taken from numba's two C extension modules, loaded as files.

This is the machine code numba's JIT would run, for the same functions: what
the ahead-of-time compilers of numba (``numba.pycc``) and of the fast solvers
do, without a C compiler.  The object is specific to this machine and these
versions: its file is named by a key of the library's entries, every kernel
source (:func:`~sdg_automata.kernels.cachekey.sources_key`), the versions of
Python, numba and llvmlite, the processor and numba's code-generation settings,
and is checked against a SHA-256 of its contents before it is linked.  A missing
file is built by the first process that needs it (it imports numba then, as
before), under a lock on the cache directory, so that processes started together
build it once (the others wait, then link it); a damaged one is said in one
:class:`~sdg_automata.errors.KernelCacheWarning` and built again; a machine
where the object cannot be built or linked keeps numba's dispatchers, and a
marker file keeps later runs from trying again (not after a shortage of memory
or disk, or a numba that cannot be imported: those may pass).  A library cached
in a directory that is no longer writable (a read-only install) is still linked;
where no directory is writable, numba's dispatchers run.  Whatever the fault,
the answers are the same: numba's dispatchers run the same kernels.

The build runs in a child process (``python -c``: the same interpreter, environment
and package) that this one waits for.  numba's compiler, once started, cannot be cut
without leaving numba broken for the rest of its process
(:func:`~sdg_automata.runtime.stopping.held_signals`), so a build in this process held
a ``--max-seconds`` budget and Ctrl-C for its ~10 s.  A caller under a budget asks for
the library through :func:`prepare`, whose alarm stops the wait: the child builds on
and writes the library (atomically, at its end) for the next run; Ctrl-C kills it.

``SDG_AUTOMATA_NATIVE=0`` keeps numba's dispatchers (so does
``SDG_AUTOMATA_NUMBA_CACHE=0``, and ``NUMBA_DISABLE_JIT=1``, under which the
kernels run as Python).  Entry points must not raise (a kernel of this package
never does: it returns a status) and must not allocate: their arrays come from
the caller, who checks nothing more than numba's dispatcher would have (types,
contiguity).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import BudgetExceeded, Interrupted, SdgBug

if TYPE_CHECKING:
    from ..runtime.budget import Meter

__all__ = ["ENV", "Entry", "Library", "building", "cache_dir", "cached", "dtype_name", "enabled",
           "prepare"]

_T = TypeVar("_T")

#: ``"0"`` keeps numba's dispatchers (no native library is built or loaded)
ENV = "SDG_AUTOMATA_NATIVE"
#: the format of a library's file (its first line, JSON)
_FORMAT = 1
#: the largest library file read (the octal library is about 100 kB)
_CAP = 64 << 20
#: seconds a process waits for another one's build of a library (~10 CPU s, a minute on a
#: loaded machine) before it builds its own: a lock holder may be stuck
_WAIT = 120.0
#: failures after which a later run may well build a library: no marker is left
_PASSING = (MemoryError, OSError, ImportError)
#: the exit code of a build process that failed with one of :data:`_PASSING` (else 1)
_PASSED = 75
#: bytes of a failed build process's stderr read back (its last line says why)
_ERR_TAIL = 64 << 10
#: what a build process runs (``python -c``; its arguments: the library's name, the file,
#: the directory this package is in).  The package is imported from that directory, not
#: from the working directory (which ``-c`` puts first on the path: another checkout
#: there would build its kernels); an import that fails exits as a failure that may pass.
_CHILD = ("import sys\n"
          "sys.path[:] = [p for p in sys.path if p != '']\n"
          "if sys.argv[3] not in sys.path:\n"
          "    sys.path.insert(0, sys.argv[3])\n"
          "try:\n"
          "    from sdg_automata.kernels.native import _child\n"
          "except ImportError as e:\n"
          "    sys.stderr.write(f'\\n{type(e).__name__}: {e}\\n')\n"
          f"    sys.exit({_PASSED})\n"
          "_child(sys.argv[1], sys.argv[2])\n")
#: the environment variables of numba's code generation (they change the machine code)
_NUMBA_SETTINGS = ("NUMBA_OPT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_BOUNDSCHECK",
                   "NUMBA_FASTMATH", "NUMBA_LOOP_VECTORIZE", "NUMBA_SLP_VECTORIZE")
#: numpy types of the argument codes (1-D and 2-D C-contiguous arrays, scalars as int64)
_DTYPES = {"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "i1": "int8",
           "i2": "int16", "i4": "int32", "i8": "int64", "b1": "bool"}


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One entry point: the kernel ``function`` of its library's module, for arguments of
    the types ``args``, returning an int64 (``result``) or nothing.

    An argument type is a numba-style code: ``"i8"`` (an int) or ``"b1"`` (a bool),
    both passed as int64; ``"u1[:]"`` … ``"i8[:]"``, ``"b1[:]"`` a 1-D array and
    ``"i4[:, :]"`` a 2-D one (``"u2[:, :, :]"`` a 3-D one), C-contiguous and writable,
    passed as pointer and shape.
    """

    name: str
    function: str
    args: tuple[str, ...]
    result: bool = False


def _parse(code: str) -> tuple[str, int]:
    """(numpy type name, dimensions) of an argument code (0 dimensions: a scalar)."""
    base, _, shape = code.partition("[")
    if base not in _DTYPES or shape not in ("", ":]", ":, :]", ":, :, :]"):
        raise SdgBug(f"native entry: unknown argument type {code!r}")
    return _DTYPES[base], shape.count(":")


def enabled() -> bool:
    """Whether native libraries are used in this process (see the module docstring)."""
    off = ("", "0")
    return (os.environ.get(ENV, "1") not in off
            and os.environ.get("SDG_AUTOMATA_NUMBA_CACHE", "1") not in off
            and os.environ.get("NUMBA_DISABLE_JIT", "0") in off)


def _places() -> list[Path]:
    """Where the libraries are cached, in order (not created): ``$NUMBA_CACHE_DIR/sdg_automata``
    when set, else ``__pycache__`` beside the kernels' sources, then ``sdg_automata/native``
    in the user's cache directory (``$XDG_CACHE_HOME``, ``~/.cache``) — the places numba
    looks for its own cache."""
    from .cachekey import KERNELS

    if os.environ.get("NUMBA_CACHE_DIR"):
        return [Path(os.environ["NUMBA_CACHE_DIR"]) / "sdg_automata"]
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [KERNELS / "__pycache__", Path(user) / "sdg_automata" / "native"]


def cache_dir() -> Path | None:
    """The directory new libraries are written to: the first of the places the libraries
    are cached (see :func:`_places`) that is, or can be made, a writable directory;
    ``None`` when none is."""
    for place in _places():
        try:
            place.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if place.is_dir() and os.access(place, os.W_OK | os.X_OK):
            return place
    return None


@functools.cache
def _llvm() -> Any:
    """llvmlite's binding, with the native target ready (imported once)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def _numba_root() -> Path | None:
    """numba's package directory, found without importing it, or ``None``."""
    if sys.modules.get("numba", 0) is None:  # hidden (a test, or an embedding application)
        return None
    try:
        spec = importlib.util.find_spec("numba")
    except (ImportError, ValueError):  # a module put in its place, without a spec
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _environment() -> str:
    """What the machine code depends on besides the library: versions, processor, settings."""
    import llvmlite

    root = _numba_root()
    if root is None:
        raise SdgBug("native libraries need numba installed")
    llvm = _llvm()
    parts = [sys.version, platform.machine(), platform.system(), llvmlite.__version__,
             hashlib.sha256((root / "_version.py").read_bytes()).hexdigest(),
             llvm.get_process_triple(), llvm.get_host_cpu_name(),
             llvm.get_host_cpu_features().flatten(),
             *(f"{k}={os.environ.get(k)}" for k in _NUMBA_SETTINGS)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def cached(library: str) -> bool:
    """Whether the native library named ``library`` (:attr:`Library.name`, the basename of
    its module in this package) is usable in this process: built here for these kernel
    sources and this environment, found in the cache, and linked (now, once: about
    0.03 s, what the run would do next).  A cheap test where there is no such file: no
    numba imported, nothing linked.  Quiet: a damaged file is said, and built again, by
    :meth:`Library.functions` when the run needs it."""
    if not enabled() or _numba_root() is None:
        return False
    if library in _NATIVE:
        return True
    try:
        prefix = f"{library}-{_environment()[:16]}-"
        if not any(any(place.glob(f"{prefix}*.native")) for place in _places()
                   if place.is_dir()):
            return False
        found: Library = importlib.import_module(f"{__package__}.{library}").LIBRARY
        if found.name != library:
            raise SdgBug(f"the native library of kernels/{library}.py is named {found.name}")
        return found.linked() is not None
    except SdgBug:
        raise
    except Exception:  # llvmlite missing or broken: numba's own probe says why
        return False


@functools.cache
def _helpers() -> dict[str, int]:
    """The C helpers numba's code may call (``numba_*``, ``NRT_*``): the addresses numba
    registers with LLVM itself, read from its two C extension modules, which are loaded
    as files when numba is not imported (they import nothing of numba)."""
    root = _numba_root()
    assert root is not None
    found: dict[str, int] = {}
    for name, path, prefix in (("numba._helperlib", "", "numba_"),
                               ("numba.core.runtime._nrt_python", "core/runtime", "NRT_")):
        module = sys.modules.get(name)
        if module is None:
            base = name.rpartition(".")[2]
            (file,) = [f for f in (root / path).glob(f"{base}.*")
                       if f.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]
            loader = importlib.machinery.ExtensionFileLoader(name, str(file))
            spec = importlib.util.spec_from_file_location(name, str(file), loader=loader)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
        for key, address in module.c_helpers.items():
            found[key if key.startswith("_") else prefix + key] = int(address)
    return found


@functools.cache
def _lljit() -> Any:
    """The process's ORC JIT, which links the libraries (one for all of them)."""
    return _llvm().create_lljit_compiler()


#: build processes a budget stopped waiting for: they build on (:meth:`Library._build`)
_DETACHED: list[Any] = []
#: the linked libraries' trackers: their code lives as long as these do (the process)
_LINKED: list[Any] = []
#: the entry points of the libraries linked from the cache, by library name
_NATIVE: dict[str, dict[str, Callable[..., Any]]] = {}
_LOCK = threading.RLock()
#: the builds this process waits for now (its own, or another's it waits to link)
_BUILDING = [0]


def building() -> int:
    """How many native libraries this process waits to be built now (a Dask worker's
    shard says so to its driver, as it says what numba compiles:
    :func:`~sdg_automata.search.shard.kernels_compiling`)."""
    return _BUILDING[0]



@dataclass(frozen=True, kw_only=True)
class Library:
    """Entry points of the kernels of one module, compiled to one native object.

    Parameters
    ----------
    name:
        A name for the file (``octal``).
    module, kernels, inline:
        The module whose plain functions ``kernels`` numba compiles
        (:func:`~sdg_automata.kernels.jit_all`), those in ``inline`` inlined into
        their callers.  No ``kernels``: the entries' functions are kernels compiled by
        :func:`~sdg_automata.kernels.jit` already, of ``module`` or, named
        ``other.function``, of the module ``other`` of this package (the walks'
        kernels: :mod:`~sdg_automata.kernels.bfs_native`).
    entries:
        The entry points.
    """

    name: str
    module: str
    kernels: tuple[str, ...]
    entries: tuple[Entry, ...]
    inline: tuple[str, ...] = ()

    def functions(self) -> dict[str, Callable[..., Any]]:
        """Each entry point by name: native code when the library is cached (built now when
        it is not, by a child process: see the module docstring), else numba's dispatcher
        of its kernel (numba imported under held signals: cut half-way, it would stay
        broken)."""
        from ..runtime.stopping import held_signals

        with _LOCK:  # one build or link at a time (threads of one process)
            _reap()
            if enabled() and _numba_root() is not None:
                native = self.linked()
                place = cache_dir() if native is None else None
                if place is not None:
                    native = self._native(place)
                    if native is not None:
                        _NATIVE[self.name] = native
                if native is not None:
                    return native
            with held_signals():
                jitted = self.jitted()
            return {e.name: jitted[e.function] for e in self.entries}

    def linked(self) -> dict[str, Callable[..., Any]] | None:
        """The native entry points, linked from the first place that caches a usable file
        (a read-only one too), or ``None``; nothing is built, and nothing said."""
        with _LOCK:
            if self.name in _NATIVE:
                return _NATIVE[self.name]
            for place in _places():
                # damaged, or llvmlite broken: functions() says it
                with contextlib.suppress(Exception):
                    path = self._path(place)
                    if path.is_file():
                        _NATIVE[self.name] = self._load(path)
                        return _NATIVE[self.name]
            return None

    # -- the file -------------------------------------------------------------------------

    def _key(self) -> str:
        from .cachekey import sources_key

        spec = json.dumps([self.name, self.module, list(self.kernels), list(self.inline),
                           [[e.name, e.function, list(e.args), e.result] for e in self.entries]])
        return hashlib.sha256("\0".join([spec, sources_key(), _environment()])
                              .encode()).hexdigest()

    def _path(self, place: Path, suffix: str = ".native") -> Path:
        name = f"{self.name}-{_environment()[:16]}-{self._key()[:16]}{suffix}"
        return place / (f".{name}" if suffix == ".lock" else name)  # (not a library's)

    def build(self) -> None:
        """Build the library's file where no place caches it, without linking it here: for
        a process that runs none of its kernels but whose workers will (the sharded
        search's driver, whose workers on this machine then only link it).  Quiet where
        native libraries are off or cannot be built (the workers' numba then serves)."""
        with _LOCK:
            _reap()
            if not enabled() or _numba_root() is None:
                return
            with contextlib.suppress(Exception):  # llvmlite missing: said where it is used
                if self.name in _NATIVE or any(self._path(p).is_file() for p in _places()):
                    return
            place = cache_dir()
            if place is not None:
                self._native(place, link=False)

    def _native(self, place: Path, *, link: bool = True
                ) -> dict[str, Callable[..., Any]] | None:
        """The native entry points: loaded from ``place``, or built there first (without
        ``link``: built only, and no entry point returned)."""
        try:
            path = self._path(place)
        except Exception as e:  # llvmlite missing or broken: numba's dispatchers
            _warn(f"native kernels unavailable ({type(e).__name__}: {_one_line(e)}): "
                  "numba loads them instead")
            return None
        if self._path(place, ".failed").exists():
            return None  # this machine cannot build or link them: said once, when it failed
        if path.exists():
            try:
                return self._load(path) if link else {}
            except Exception as e:  # damaged: build it again
                _warn(f"the native kernels at {path} are not usable ({type(e).__name__}: "
                      f"{_one_line(e)}): compiling them again and replacing them")
        _BUILDING[0] += 1
        try:
            with _exclusive(self._path(place, ".lock")) as lock:
                if path.exists():  # built by another process while this one waited
                    with contextlib.suppress(Exception):
                        return self._load(path) if link else {}
                self._build(path, lock)
            return self._load(path) if link else {}
        except (BudgetExceeded, Interrupted):  # the build was stopped, not refused: no marker
            raise
        except Exception as e:
            failed = _BuildFailed.of(e)
            with_marker = (not failed.passing
                           and _write(self._path(place, ".failed"), f"{failed.why}\n".encode()))
            _warn(f"the native kernels cannot be built here ({failed.why}): numba loads them "
                  "instead" + ("" if with_marker else ", on every run"))
            return None
        finally:
            _BUILDING[0] -= 1

    def _load(self, path: Path) -> dict[str, Callable[..., Any]]:
        from ..runtime.stopping import held_signals

        with held_signals():  # LLVM's linker and the symbols' table: ~0.03 s, kept whole
            return self._link(path)

    def _link(self, path: Path) -> dict[str, Callable[..., Any]]:
        from ..runtime.files import read_capped

        data = read_capped(path, cap=_CAP, what="native kernel library")
        head, sep, obj = data.partition(b"\n")
        header = json.loads(head)
        if not sep or header.get("format") != _FORMAT or header.get("key") != self._key():
            raise ValueError("not this library's file")
        if hashlib.sha256(obj).hexdigest() != header.get("sha256"):
            raise ValueError("its contents do not match their checksum")
        symbols: dict[str, str] = header["symbols"]
        if set(symbols) != {e.name for e in self.entries}:
            raise ValueError("its entry points are not this library's")
        llvm = _llvm()
        builder = llvm.JITLibraryBuilder().add_object_img(obj).add_current_process()
        for name, address in _helpers().items():
            builder.import_symbol(name, address)
        for symbol in symbols.values():
            builder.export_symbol(symbol)
        tracker = builder.link(_lljit(), f"{path.name}#{len(_LINKED)}")
        _LINKED.append(tracker)
        return {e.name: _caller(e, tracker[symbols[e.name]]) for e in self.entries}

    # -- the build (numba imported) -------------------------------------------------------

    def jitted(self) -> dict[str, Any]:
        """numba's dispatchers of the kernels, by name (imports numba; made once)."""
        if not self.kernels:
            return _dispatchers(self.module, tuple(e.function for e in self.entries))
        return _jitted(self.module, self.kernels, self.inline)

    def _build(self, path: Path, lock: int | None = None) -> None:
        """Build the library into ``path`` in a child process (:data:`_CHILD`, which runs
        :meth:`_compile`), waiting for it; :class:`_BuildFailed` when it fails.

        A budget met while it builds (:class:`~sdg_automata.errors.BudgetExceeded`) ends
        the wait, not the build: the child goes on and writes the library for the next
        run (a sweep's next job, the next command), holding the build lock ``lock`` (the
        descriptor ``_exclusive`` locked, inherited: the lock lasts as long as either
        holds it), so that a run meanwhile waits for it instead of building its own.
        Anything else that stops the wait (Ctrl-C, SIGTERM) kills it."""
        import subprocess

        from ..runtime.stopping import held_signals
        from . import _compiling

        _compiling("first run only")  # on a terminal: the ~10 s would look like a hang
        _reap()
        package = str(Path(__file__).resolve().parents[2])  # the child imports this copy
        child: subprocess.Popen[bytes] | None = None
        # its stderr is a file, not a pipe: a child left building writes to no closed pipe
        with tempfile.TemporaryFile() as err:
            try:
                with held_signals():  # not cut inside Popen: the child would run unknown to
                    # us (a signal held is raised as this ends).  Its own session: signals to
                    # the run's process group (the terminal's Ctrl-C, kill -INT -PGID) are
                    # this process's to answer, and it kills the child when it stops; one
                    # it ignores (a background job's SIGINT) killed the build, whose
                    # disposition held_signals had changed from ignored to handled
                    child = subprocess.Popen(
                        [sys.executable, "-c", _CHILD, self.name, str(path), package],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                        pass_fds=() if lock is None else (lock,), start_new_session=True)
                child.wait()
            except BudgetExceeded:
                if child is not None:
                    _DETACHED.append(child)  # kept, not collected: it builds on
                raise
            except BaseException:
                if child is not None:
                    child.kill()
                    child.wait()
                raise
            if child.returncode != 0:
                err.seek(max(0, err.seek(0, os.SEEK_END) - _ERR_TAIL))  # its last line
                lines = err.read().decode(errors="replace").strip().splitlines()
                killed = child.returncode < 0  # by a signal: the OOM killer, say
                raise _BuildFailed(
                    lines[-1] if lines and not killed else f"exit code {child.returncode}",
                    passing=killed or child.returncode == _PASSED)

    def _compile(self, path: Path) -> None:
        """Compile every entry point (numba), link them into one object (llvmlite), write:
        the build process's work (:meth:`_build`)."""
        import numba as numba_module

        numba: Any = numba_module  # its C-function API is untyped
        types = numba.types

        jitted = self.jitted()
        llvm = _llvm()
        module = None
        symbols: dict[str, str] = {}
        for entry in self.entries:
            params: list[Any] = []
            for code in entry.args:
                dtype, dims = _parse(code)
                params += ([types.int64] if dims == 0 else
                           [types.CPointer(numba.from_dtype(_numpy_dtype(dtype)))]
                           + [types.int64] * dims)
            signature = (types.int64 if entry.result else types.void)(*params)
            wrapper = numba.cfunc(signature, nogil=True)(_wrapper(entry, jitted[entry.function]))
            part = llvm.parse_assembly(wrapper.inspect_llvm())
            symbols[entry.name] = wrapper.native_name
            if module is None:
                module = part
            else:
                module.link_in(part)
        assert module is not None
        module.verify()
        obj = _target_machine(llvm).emit_object(module)
        header = {"format": _FORMAT, "key": self._key(), "library": self.name,
                  "sha256": hashlib.sha256(obj).hexdigest(), "symbols": symbols,
                  "numba": numba.__version__}
        if not _write(path, json.dumps(header).encode() + b"\n" + obj):
            raise OSError(f"cannot write {path}")
        self._prune(path)

    def _prune(self, path: Path) -> None:
        """Remove the files of this library for older kernel sources beside ``path``, just
        built: stale (another machine's or version's, in a shared directory, stay)."""
        lock = self._path(path.parent, ".lock")
        for old in path.parent.glob(f"{self.name}-{_environment()[:16]}-*"):
            if old != path and old.suffix in (".native", ".failed"):
                old.unlink(missing_ok=True)
        for old in path.parent.glob(f".{self.name}-{_environment()[:16]}-*.lock"):
            if old != lock:
                old.unlink(missing_ok=True)


def _reap() -> None:
    """Collect the build processes left building that have finished (no zombies)."""
    _DETACHED[:] = [c for c in _DETACHED if c.poll() is None]


class _BuildFailed(Exception):
    """A build process failed: ``why`` is its error (``Type: message``), ``passing``
    whether that error is one of :data:`_PASSING` (a later run may build the library)."""

    def __init__(self, why: str, *, passing: bool) -> None:
        super().__init__(why)
        self.why, self.passing = why, passing

    @classmethod
    def of(cls, e: Exception) -> _BuildFailed:
        """``e`` as a build failure: itself, or its ``Type: message``."""
        if isinstance(e, cls):
            return e
        return cls(f"{type(e).__name__}: {_one_line(e)}", passing=isinstance(e, _PASSING))


def _child(name: str, path: str) -> None:
    """The build process (:data:`_CHILD`): :meth:`Library._compile` of the library ``name``
    (the module of this package that holds it) into ``path``.  A failure is its last line
    on stderr, ``Type: message``, with the exit code :data:`_PASSED` when a later run may
    succeed, else 1."""
    try:
        library: Library = importlib.import_module(f"{__package__}.{name}").LIBRARY
        library._compile(Path(path))
    except Exception as e:  # noqa: BLE001 -- said on stderr, where the parent reads it
        failed = _BuildFailed.of(e)
        sys.stderr.write(f"\n{failed.why}\n")
        sys.exit(_PASSED if failed.passing else 1)


def prepare(functions: Callable[[], _T], meter: Meter, what: str = "the compiled kernels"
            ) -> _T:
    """``functions()`` (a library's cached :meth:`Library.functions`) called under
    ``meter``'s budget (:meth:`~sdg_automata.runtime.budget.Meter.library`), so that a first
    run's build stops at the deadline or at Ctrl-C
    (:class:`~sdg_automata.errors.BudgetExceeded`,
    :class:`~sdg_automata.errors.Interrupted`); later calls find it made."""
    with meter.library(f"building {what}"):
        return functions()


@functools.cache
def _jitted(module: str, kernels: tuple[str, ...], inline: tuple[str, ...]) -> dict[str, Any]:
    from . import jit_all

    return jit_all(vars(importlib.import_module(module)), kernels, inline)


@functools.cache
def _dispatchers(module: str, functions: tuple[str, ...]) -> dict[str, Any]:
    """The ``@jit`` kernels ``functions`` (``name`` of ``module``, or ``other.name`` of
    the module ``other`` of this package), by those names."""
    found: dict[str, Any] = {}
    for function in functions:
        where, _, name = function.rpartition(".")
        found[function] = getattr(importlib.import_module(
            f"{__package__}.{where}" if where else module), name)
    return found


def _numpy_dtype(name: str) -> Any:
    import numpy as np

    return np.dtype(name)


def _wrapper(entry: Entry, kernel: Any) -> Callable[..., Any]:
    """The C-callable form of ``kernel`` for ``entry``'s arguments, as Python source that
    numba compiles: arrays rebuilt from pointer and shape, bools from ints."""
    import numba as numba_module

    numba: Any = numba_module
    params: list[str] = []
    pre: list[str] = []
    call: list[str] = []
    for i, code in enumerate(entry.args):
        dims = _parse(code)[1]
        if dims == 0:
            params.append(f"x{i}")
            call.append(f"x{i} != 0" if code == "b1" else f"x{i}")
            continue
        shape = [f"d{i}_{j}" for j in range(dims)]
        params += [f"p{i}", *shape]
        pre.append(f"    a{i} = carray(p{i}, ({', '.join(shape)},))")
        call.append(f"a{i}")
    body = f"kernel({', '.join(call)})"
    source = "\n".join([f"def {entry.name}({', '.join(params)}):", *pre,
                        f"    {'return ' if entry.result else ''}{body}", ""])
    namespace: dict[str, Any] = {"carray": numba.carray, "kernel": kernel}
    exec(compile(source, f"<native entry {entry.name}>", "exec"), namespace)
    wrapper: Callable[..., Any] = namespace[entry.name]
    return wrapper


def _target_machine(llvm: Any) -> Any:
    """A target machine as numba's JIT makes it (``numba.core.codegen.JITCPUCodegen``):
    this processor and its features, numba's settings, static relocation on x86."""
    from numba.core import config as numba_config

    config: Any = numba_config  # its settings are set at import, untyped

    target = llvm.Target.from_triple(llvm.get_process_triple())
    arch = llvm.Target.from_default_triple().name
    reloc = "static" if arch.startswith("x86") else "pic" if arch.startswith("ppc") else "default"
    cpu = config.CPU_NAME or llvm.get_host_cpu_name()
    features = config.CPU_FEATURES or llvm.get_host_cpu_features().flatten()
    return target.create_target_machine(cpu=cpu, features=features, opt=config.OPT,
                                        reloc=reloc, codemodel="jitdefault", jit=True)


@functools.cache
def dtype_name(dtype: Any) -> str:
    """``dtype.name``, which numpy computes in Python each time (1.4 µs): the entry points
    that pick their variant by their arrays' types at every call read it here (a dtype
    hashes in C)."""
    return str(dtype.name)


def _address(x: Any) -> int:
    """The address of a C-contiguous array's data: through the buffer protocol where the
    array is writable and not empty (0.2 µs), else numpy's ``ctypes.data`` (0.8 µs, a
    helper object made each time; an entry takes up to 26 arrays, and a walk that learns
    its steps calls one again after each lesson, thousands of times)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(x))
    except (TypeError, ValueError):  # read-only, or no byte to point at
        return int(x.ctypes.data)


def _caller(entry: Entry, address: int) -> Callable[..., Any]:
    """A Python function calling the entry point at ``address`` with numpy arrays and ints,
    checking each array as numba's dispatcher would type it (else :class:`SdgBug`)."""
    import numpy as np

    kinds = [_parse(code) for code in entry.args]
    argtypes: list[Any] = []
    for _, dims in kinds:
        argtypes += [ctypes.c_int64] if dims == 0 else [ctypes.c_void_p] + [ctypes.c_int64] * dims
    function = ctypes.CFUNCTYPE(ctypes.c_int64 if entry.result else None, *argtypes)(address)
    dtypes = [np.dtype(dtype) for dtype, _ in kinds]

    def call(*args: Any) -> Any:
        if len(args) != len(kinds):
            raise SdgBug(f"{entry.name} takes {len(kinds)} arguments, not {len(args)}")
        flat: list[Any] = []
        for i, (x, (_, dims)) in enumerate(zip(args, kinds, strict=True)):
            if dims == 0:
                flat.append(int(x))
                continue
            # a read-only array is accepted, as numba's dispatchers accept it: the arrays
            # an entry writes are the caller's own scratch (``out``, ``rare``, ``seen``),
            # and the values it reads may be a run's frozen view (the checker's input)
            if (not isinstance(x, np.ndarray) or x.dtype != dtypes[i] or x.ndim != dims
                    or not x.flags.c_contiguous):
                raise SdgBug(f"{entry.name}: argument {i} is not a C-contiguous "
                             f"{entry.args[i]} array")
            flat.append(_address(x))
            flat.extend(x.shape)
        return function(*flat)

    call.__name__ = entry.name
    return call


@contextlib.contextmanager
def _exclusive(path: Path, wait: float = _WAIT) -> Iterator[int | None]:
    """Inside, an advisory lock on ``path`` (created) is held, so that one process at a time
    builds a library: yields the descriptor that holds it (a child that inherits it holds
    it too), or ``None``.  After ``wait`` seconds, or where the file system takes no
    locks, the block runs without it (the files are written atomically: two builds cost
    time, not answers).  The lock goes with the process."""
    try:
        import fcntl

        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    except (ImportError, OSError):
        yield None
        return
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
            except BlockingIOError:
                held = False
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
            except OSError:
                held = False
            break
        yield fd if held else None
    finally:
        os.close(fd)  # which releases the lock, unless a build process inherited it


def _write(path: Path, data: bytes) -> bool:
    """``data`` to ``path`` atomically (a file beside it, renamed); whether it was."""
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(temporary, 0o644)  # readable by all, as numba's cache files (mkstemp: 0600)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return False
    return True


def _one_line(e: BaseException) -> str:
    from . import _one_line as one_line

    return one_line(e)


def _warn(message: str) -> None:
    """One :class:`~sdg_automata.errors.KernelCacheWarning` per process (shared with
    numba's cache's warnings)."""
    from . import _cache_warning

    _cache_warning(message)
