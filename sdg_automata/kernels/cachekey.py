"""numba's on-disk cache of the kernels, keyed on the sources of every kernel module.

numba stamps the cache entries of a function with its own source file: an entry is
thrown away when that file changes, not when a file whose kernels it calls does.
The kernels live in several modules, each beside the Python reference it must
equal (``kernels/automaton.py`` for the walks, ``kernels/compact.py`` for the
compact store, ...), and a kernel calls kernels of other modules (numba inlines
them into its machine code): a changed :func:`~sdg_automata.kernels.step.step`
would leave the cached ``compact_bfs`` running the old one.  So the stamp of every
kernel here is :func:`sources_key`, a hash of all of ``kernels/*.py``: any change to
any kernel source makes every cached kernel stale, and it is compiled again.

The stamp is set by a cache locator (numba's ``CacheImpl._locator_classes``, the
mechanism behind ``NUMBA_CACHE_LOCATOR_CLASSES``) put first, for the files of this
package only: it asks numba's own locators where the cache goes (beside the
sources, the user-wide cache, ``NUMBA_CACHE_DIR``), so only the stamp differs.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

__all__ = ["KERNELS", "install", "sources_key"]

#: the directory of the kernel modules
#: :meta hide-value:
KERNELS = Path(__file__).resolve().parent


def sources_key(directory: Path | None = None) -> str:
    """A hash of the name and contents of every ``*.py`` file in ``directory`` (default:
    :data:`KERNELS`).

    Read again on every call, so a test (or a long session) sees a change; numba
    asks once per kernel, when it first loads or saves it.
    """
    digest = hashlib.sha256()
    for path in sorted((directory or KERNELS).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def install() -> type[Any]:
    """Put the locator of this package's kernels first among numba's (once); return it.

    Imports numba's caching module, so call it only where numba is being loaded
    (:func:`~sdg_automata.kernels.jit`).
    """
    from numba.core.caching import CacheImpl, _CacheLocator

    locators: list[Any] = CacheImpl._locator_classes

    class KernelsLocator(_CacheLocator):
        """Where numba's own locators say, stamped with :func:`sources_key`."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            path: str = self._inner.get_cache_path()
            return path

        def get_source_stamp(self) -> Any:
            return ("sdg_automata kernels", sources_key())

        def get_disambiguator(self) -> str:
            found: str = self._inner.get_disambiguator()
            return found

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if Path(py_file).resolve().parent != KERNELS:
                return None  # another package's function: numba's own stamp
            for other in locators:
                inner = None if other is cls else other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
            return None

    locators.insert(0, KernelsLocator)
    return KernelsLocator
