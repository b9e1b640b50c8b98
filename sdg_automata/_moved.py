"""The module paths of 0.2, kept importable after the layered layout (issue 26).

0.2 had 37 modules side by side at the top of the package; they now sit in layers
(``runtime``, ``grammar``, ``automaton``, ``kernels``, ``search``, ``games``, ``sweeps``,
``render``, ``cli``: see ``docs/architecture.md``).  Code written against 0.2 keeps working:
``import sdg_automata.decide`` or ``from sdg_automata.octal import OctalGame`` loads the
module at its new place, under its new name, with a :class:`DeprecationWarning` naming that
place.  The aliases are the same module objects, so a monkeypatch through an old path
patches the new module, and isinstance checks agree.  The aliases go in 1.0.

Names that left a 0.2 module for a higher layer (:data:`LEFT`: the surveys, now sweeps) are
found through a ``__getattr__`` put on the new module when its old path is first imported;
from then on the new path finds them too (with the warning that names the old one), which
the layering of new code never relies on.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable
from types import ModuleType

#: the 0.2 module (under sdg_automata) -> its place now
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
    "imark.survey": "sweeps.imark",
    "sweep": "sweeps.runner", "summarize": "sweeps.summarize", "plots": "render.plots",
}
#: names that left a 0.2 module for another: the 0.2 module -> {name: the module now}
#: (the survey of many i-Mark instances is a sweep now; the package i-Mark keeps the game)
LEFT = {
    "imark": dict.fromkeys(("default_jobs", "survey", "survey_instances"), "sweeps.imark"),
    "octal": dict.fromkeys(("SURVEY_COLUMNS", "SURVEY_MAX_N", "SurveyRow", "codes", "survey",
                            "survey_failed", "survey_row", "survey_sweep"), "sweeps.octal"),
}
_PACKAGE = __name__.rpartition(".")[0]


def _moved(old: str) -> tuple[str, str] | None:
    """The longest key of :data:`MOVED` that ``old`` (a 0.2 module name) is or is inside,
    and the rest of ``old``: ``imark.survey`` wins over ``imark``."""
    head, _, rest = old.partition(".")
    if head != _PACKAGE or not rest:
        return None
    parts = rest.split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in MOVED:
            return key, ".".join(parts[n:])
    return None


def new_name(old: str) -> str | None:
    """The name now of a 0.2 module name (``sdg_automata.decide`` → ``…search.decide``)."""
    found = _moved(old)
    if found is None:
        return None
    key, tail = found
    return ".".join(filter(None, (_PACKAGE, MOVED[key], tail)))


def load(old: str, new: str) -> ModuleType:
    """Import ``new`` and warn that ``old`` is its 0.2 name; the names that left ``old``
    (:data:`LEFT`) are still found on it, with a warning of their own."""
    warnings.warn(f"{old} moved to {new}; the old name goes in 1.0",
                  DeprecationWarning, stacklevel=3)
    module = importlib.import_module(new)
    left = LEFT.get(old.partition(".")[2])
    if left and not getattr(vars(module).get("__getattr__"), "_finds_left", False):
        module.__getattr__ = _finder(  # type: ignore[method-assign]
            old, new, left, vars(module).get("__getattr__"))
    return module


def _finder(old: str, new: str, left: dict[str, str],
            own: Callable[[str], object] | None) -> Callable[[str], object]:
    """A module ``__getattr__`` (PEP 562) that finds the names that left ``old`` where they
    went, warning that they did; other names go to the module's ``own`` ``__getattr__``
    (its lazy names), if it has one."""

    def find(name: str) -> object:
        if name not in left:
            if own is not None:
                return own(name)
            raise AttributeError(f"module {new!r} has no attribute {name!r}")
        where = f"{_PACKAGE}.{left[name]}"
        warnings.warn(f"{old}.{name} moved to {where}; the old name goes in 1.0",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(where), name)

    find._finds_left = True  # type: ignore[attr-defined]
    return find


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a 0.2 module name and hands back the module now at its place."""

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
