"""Names of a package loaded on first use (PEP 562), written once for every package that
gathers them.

The package root and the packages that are one subject for their users
(:mod:`sdg_automata.games.octal`, :mod:`sdg_automata.games.misere`) list their names
with the module that defines each; :func:`lazy_names` turns that table into the
module's ``__getattr__`` and ``__dir__``, so that importing the package imports none of
those modules (``python -m sdg_automata --help`` stays the start-up of a small script)
and a name, once loaded, is an ordinary attribute of the package.  A module whose names
not every run needs (the facade :mod:`sdg_automata.search.decide`, a strategy's options)
does the same.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, where: Mapping[str, str], *, base: str | None = None) -> tuple[
        Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (or a module's, whose names load on first use too).
    where : Mapping[str, str]
        Each name -> the module that defines it, relative to ``base``
        (``"games.mex"`` for ``sdg_automata.games.mex``).
    base : str, optional
        The package ``where`` is relative to; by default ``package`` itself (a module
        passes its ``__package__``).

    Returns
    -------
    tuple
        ``(__getattr__, __dir__)``, to be bound at the package's top level
        (``__getattr__, __dir__ = lazy_names(__name__, _LAZY)``).  ``__getattr__`` imports
        the defining module, keeps the value in the package's namespace (so it is looked
        up once) and raises :class:`AttributeError` for any other name; ``__dir__`` lists
        the package's attributes and every lazy name.

    Examples
    --------
    >>> import sdg_automata.games.octal as octal
    >>> "OctalGame" in dir(octal), octal.OctalGame.__module__
    (True, 'sdg_automata.games.octal.rules')
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", base or package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
