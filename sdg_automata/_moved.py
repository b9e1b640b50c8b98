"""The module paths of 0.2, kept importable after the layered layout of 0.3 (issue 26).

0.2 had 37 modules side by side at the top of the package; 0.3 sorts them into layers
(``runtime``, ``grammar``, ``automaton``, ``kernels``, ``search``, ``games``, ``sweeps``,
``render``, ``cli``: see ``docs/architecture.md``).  Code written against 0.2 keeps working:
``import sdg_automata.decide`` or ``from sdg_automata.octal import OctalGame`` loads the
module at its new place, under its new name, with a :class:`DeprecationWarning` naming that
place.  The aliases are the same module objects, so a monkeypatch through an old path
patches the new module, and isinstance checks agree.  The aliases go in 1.0.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: the 0.2 module (under sdg_automata) -> its place in 0.3
MOVED = {
    "budget": "runtime.budget", "stopping": "runtime.stopping", "store": "runtime.store",
    "parse": "grammar.parse", "words": "grammar.words", "jsontext": "grammar.jsontext",
    "interop": "grammar.interop",
    "construction": "automaton.construction", "reading": "automaton.reading",
    "vectors": "automaton.vectors", "crawl": "automaton.crawl", "bounds": "automaton.bounds",
    "counting": "automaton.counting",
    "decide": "search.decide", "bmc": "search.bmc", "pdr": "search.pdr",
    "sharded": "search.sharded", "walks": "search.walks", "families": "search.families",
    "impartial": "games.impartial", "gamegraph": "games.gamegraph", "play": "games.play",
    "semantics": "games.semantics", "periodicity": "games.periodicity",
    "octal": "games.octal", "octal_file": "games.octal.valuefile",
    "octal_verify": "games.octal.verify", "imark": "games.imark",
    "sweep": "sweeps.runner", "summarize": "sweeps.summarize", "plots": "render.plots",
}
_PACKAGE = __name__.rpartition(".")[0]


def new_name(old: str) -> str | None:
    """The 0.3 name of a 0.2 module name (``sdg_automata.decide`` → ``…search.decide``)."""
    head, _, rest = old.partition(".")
    first, _, tail = rest.partition(".")
    if head != _PACKAGE or first not in MOVED:
        return None
    return ".".join(filter(None, (_PACKAGE, MOVED[first], tail)))


def load(old: str, new: str) -> ModuleType:
    """Import ``new`` and warn that ``old`` is its 0.2 name."""
    warnings.warn(f"{old} moved to {new} in 0.3; the old name goes in 1.0",
                  DeprecationWarning, stacklevel=3)
    return importlib.import_module(new)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a 0.2 module name and hands back the 0.3 module object itself."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        return None if new is None else importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None
        return load(spec.name, new)

    def exec_module(self, module: ModuleType) -> None:
        """The module ran at its new place already."""


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())  # before any finder that knows the 0.2 files
