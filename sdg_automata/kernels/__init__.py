"""Compiled kernels (numba): loading numba, compiling and caching the kernels.

The hot loops of the package (the on-the-fly Max-Grundy search, the
exploration of the Step 1–5 automaton, octal values) exist twice: as the
idiomatic pure-Python code that has always been the reference, and as array
kernels compiled by numba.  Each kernel module of this package holds
functions over numpy arrays, and names the Python reference they must equal;
the tests run both on the same instances and compare every result.  Either the
functions are decorated with :func:`jit` (the module imports numba when it is
imported, so the engines import it inside the function that has chosen it), or
they are plain functions that :func:`jit_all` compiles on demand and that
:mod:`~sdg_automata.kernels.native` compiles once to native code, which later
processes load without numba (:mod:`sdg_automata.kernels.octal`).

Which engine runs (``engine=`` in the API, ``--engine`` on the command line) is
decided in one place, :mod:`sdg_automata.runtime.engines`; this package loads numba
(:func:`numba_missing`) and compiles the kernels.

``import sdg_automata`` never imports numba: only a run that chooses the
compiled engine does.  Compiled code is cached on disk by numba
(``cache=True``): next to the sources when the install location is writable,
else in numba's user-wide cache directory (``NUMBA_CACHE_DIR`` overrides both);
``SDG_AUTOMATA_NUMBA_CACHE=0`` turns caching off.  An entry is stale once any
kernel source changes (:mod:`~sdg_automata.kernels.cachekey`): a kernel calls
kernels of other files, which numba's own stamp does not see.  Where no cache directory is
writable (a read-only install, no writable home), or a cache file is damaged,
the run says so in one :class:`~sdg_automata.errors.KernelCacheWarning` and
compiles in memory (a damaged entry is written anew when the directory allows,
so only one run warns): the same results, never a traceback.  When a kernel
really is compiled (a cold cache: about 6 s for all of them), one line on
stderr says so, on a terminal only, as the progress displays are shown.

numba is a dependency of the package on CPython (``pyproject.toml``), so
``pip install sdg_automata`` brings it; where it cannot be imported (another
interpreter, a platform without wheels, a broken install) ``"auto"`` runs the
Python reference and says nothing, and ``"compiled"`` fails with one line.
"""

from __future__ import annotations

import functools
import os
import sys
import types
import warnings
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar, cast

from ..errors import BudgetExceeded, Interrupted, KernelCacheWarning
from ..runtime.stopping import held_signals

__all__ = ["jit", "jit_all", "numba_missing", "only_our_kernels"]

F = TypeVar("F", bound=Callable[..., Any])


#: whether numba may skip looking for a BLAS (see :func:`only_our_kernels`)
_NO_BLAS = False


def only_our_kernels() -> None:
    """Say that no numba code but this package's kernels runs in this process (the
    command line says so): numba then loads without importing scipy.

    ``import numba`` imports scipy, when installed, to check its version, and
    numba's first compile or cache load imports scipy's BLAS to decide how
    ``np.dot`` on floats compiles: 0.3–0.5 s of CPU in every process that uses
    a kernel, a third of numba's fixed cost (``benchmarks/bench_whole.py``).  Our
    kernels use no BLAS.  In a library process (a notebook) other numba code
    may, so there numba finds scipy as usual.
    """
    global _NO_BLAS
    _NO_BLAS = True


def _load_numba() -> None:
    if not _NO_BLAS or "scipy" in sys.modules:
        import numba  # noqa: F401

        return
    sys.modules["scipy"] = None  # type: ignore[assignment]  # "import scipy" fails
    try:
        import numba  # noqa: F401  # which checks scipy's version,
        import numba.np.arraymath  # noqa: F401  # and which looks for scipy's BLAS once
    finally:
        del sys.modules["scipy"]


@functools.cache
def numba_missing() -> str | None:
    """Why numba cannot be used here (a phrase), or ``None`` when it can.

    Imports numba on the first call (about half a second), so call it only
    once a run has chosen to consider the compiled engine (and its kernels are not
    cached as native code: :func:`sdg_automata.runtime.engines.use_compiled` asks
    :func:`.native.cached` first).
    """
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return None  # kernels then run as plain Python: slow, but still the kernels' code
    try:
        with held_signals():  # a deadline met half-way would leave numba half-imported
            _load_numba()
    except (BudgetExceeded, Interrupted):  # the deadline, met after the import: numba is
        raise  # there, and the cache must not remember otherwise
    except Exception as e:  # ImportError, or a broken install raising anything else
        return f"numba cannot be imported ({type(e).__name__}: {e})"
    return None


def _caching() -> bool:
    return os.environ.get("SDG_AUTOMATA_NUMBA_CACHE", "1") not in ("", "0")


def _options(inline: bool) -> dict[str, Any]:
    """numba's options for a kernel (:func:`jit`): ``nogil``; inlined or never; and no
    NRT where this numba has the option (it has had it since long before 0.60: its own
    tests compile with it).  Measured on bench_sharded's 1.27·10⁷-state instance, with
    the helpers of the walks' loops inlined (:mod:`~sdg_automata.kernels.step`,
    :mod:`~sdg_automata.kernels.packed`): two workers' CPU 5.0–5.7 → 3.8–4.3 s, one
    process's search 3.73 → 3.29 s."""
    from numba.core.options import DefaultOptions

    options: dict[str, Any] = {"nogil": True, "inline": "always" if inline else "never"}
    if hasattr(DefaultOptions, "_nrt"):
        options["_nrt"] = False
    return options


def jit(kernel: F, *, inline: bool = False) -> F:
    """``kernel`` compiled by numba (``njit``, ``nogil``, cached on disk as the module
    docstring says): the decorator of every kernel and helper in this package.

    It imports numba, so a kernel module is imported only once
    :func:`~sdg_automata.runtime.engines.use_compiled` has said yes.  Compilation is
    lazy: the first call with new argument types compiles, or loads the cached machine
    code.  An ``inline`` helper is inlined into its callers by numba
    (``inline="always"``): a call of a numba function passes each array as seven
    arguments, which a helper called once a heap pays as much as its work.

    Kernels are compiled without numba's reference-counting runtime (NRT, numba's
    ``_nrt`` option, :func:`_options`): none allocates (the caller gives every array, as
    a native entry point requires, :mod:`~sdg_automata.kernels.native`), and with NRT
    each array passed or aliased in a hot loop was an ``NRT_incref``/``NRT_decref``
    pair of calls that LLVM can neither remove nor see through (issue 36 item 6).  A
    kernel that allocated fails to compile.  A kernel also returns no array (ints and
    tuples of ints only): without NRT, numba would hand back a view in a tuple as its
    parent array.
    """
    import numba

    options = _options(inline)
    if not _caching():
        return cast(F, _watched(numba.njit(**options)(kernel), "not cached"))
    from .cachekey import install

    install()  # cache entries stamped with every kernel's source (kernels/cachekey.py)
    try:  # numba looks for a writable cache directory here, at decoration
        compiled = numba.njit(cache=True, **options)(kernel)
    except RuntimeError as e:
        if "cannot cache" not in str(e):
            raise
        _cache_warning("numba finds no writable directory to cache the compiled kernels in "
                       "(next to the package, or under ~/.cache; NUMBA_CACHE_DIR names one): "
                       "compiling them in memory, on every run")
        return cast(F, numba.njit(**options)(kernel))
    return cast(F, _watched(compiled, "first run only"))


def jit_all(namespace: dict[str, Any], names: Sequence[str],
            inline: Collection[str] = ()) -> dict[str, Any]:
    """The plain functions ``names`` of a kernel module (``namespace``: its globals)
    compiled by :func:`jit`, each calling the others' compiled forms (those named in
    ``inline`` inlined into their callers).

    One plain function jitted on demand (umap's layout): the module imports without
    numba and its functions stay ordinary Python.  numba reads a kernel's callees
    from its globals when it compiles it, so each function is compiled as a twin (the
    same code, the same file and line for numba's cache) whose globals name the
    compiled forms.  Under ``NUMBA_DISABLE_JIT`` the twins are the Python functions.
    """
    env = dict(namespace)
    compiled: dict[str, Any] = {}
    for name in names:
        f = namespace[name]
        twin = types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)
        twin.__qualname__, twin.__module__, twin.__doc__ = f.__qualname__, f.__module__, f.__doc__
        compiled[name] = jit(twin, inline=name in inline)
    env.update(compiled)
    return compiled


#: whether this process has said that kernels are compiled, or warned about the cache:
#: once each, however many kernels
_said: set[str] = set()


def _cache_warning(message: str) -> None:
    if "warning" not in _said:
        _said.add("warning")
        warnings.warn(message, KernelCacheWarning, stacklevel=3)


def _one_line(e: BaseException) -> str:
    """An exception's text on one line (LLVM's parse errors span several): the warning is
    one line."""
    return " ".join(str(e).split())


def _compiling(why: str) -> None:
    """Say, once, that kernels are being compiled: on a terminal only (the few seconds would
    look like a hang), as the progress displays; never in a pipe, a log or a notebook."""
    if "compiling" not in _said and "warning" not in _said:  # a warning said it already
        _said.add("compiling")
        if sys.stderr is not None and sys.stderr.isatty():
            print(f"compiling kernels ({why})", file=sys.stderr, flush=True)


def _watched(dispatcher: Any, why: str) -> Any:
    """``dispatcher`` with its cache guarded: a cache entry that cannot be read (numba
    raises whatever unpickling raised) or written is not fatal, and a miss, after which
    numba compiles, is said (:func:`_compiling`).

    The hooks are numba's cache object's ``load_overload`` and ``save_overload``, which
    its dispatcher calls around every compilation; a numba without them (or
    ``NUMBA_DISABLE_JIT``, which compiles nothing) is left as it is.
    """
    cache: Any = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "load_overload", None)
    save = getattr(cache, "save_overload", None)
    if load is None or save is None:
        return dispatcher

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            found = load(sig, target_context)
        except Exception as e:  # a damaged index or data file: UnpicklingError, EOFError...
            where = getattr(cache, "cache_path", "?")
            try:
                cache.flush()  # an empty index in place of the damaged one: numba writes
                # the entry anew once it has compiled, and later runs load it
                then = "compiling them again and replacing it"
            except Exception:
                cache.disable()
                then = "compiling them in memory"
            _cache_warning(f"numba's cache of the compiled kernels at {where} is not usable "
                           f"({type(e).__name__}: {_one_line(e)}): {then}")
            found = None
        if found is None:
            _compiling(why)
        return found

    def save_overload(sig: Any, data: Any) -> None:
        try:
            save(sig, data)
        except Exception as e:  # a directory that was writable and no longer is, say
            cache.disable()
            _cache_warning(f"numba cannot write its cache of the compiled kernels at "
                           f"{getattr(cache, 'cache_path', '?')} ({type(e).__name__}: "
                           f"{_one_line(e)}): "
                           "compiling them in memory, on every run")

    cache.load_overload = load_overload
    cache.save_overload = save_overload
    return dispatcher
