"""Options of the two registries of Max-Grundy: what a strategy or an engine takes by keyword.

A search strategy (:mod:`sdg_automata.search.strategies`) and a search engine
(:mod:`sdg_automata.search.engines`) may each have options: a frozen dataclass whose
fields are keywords of ``max_grundy(..., options={...})``, whose defaults mean "not
given", and command-line :class:`Argument` s that set them.  Both registries share this
one logic (:class:`Configurable`): the defaults, the options given, the options object
made from keywords, the arguments read back, and the refusal of options that belong to a
strategy or engine that is not the one running (:func:`refuse_options`), as
scikit-learn's estimators refuse parameters they do not have.

An entry may name its options class instead of holding it (``"module:Class"``, as an
entry point names an object): the class is imported when its options are first needed,
so listing the entries (``max --help``) or running another one does not define it (a
dataclass's generated methods cost start-up).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, TypeVar

from ..errors import InputError

__all__ = ["Argument", "Configurable", "entry", "refuse_options"]


class Argument(NamedTuple):
    """A command-line argument of the ``max`` subcommand: ``flag`` sets the option ``field``
    of a strategy or an engine (its default is the option's).

    ``kind`` names the command line's argparse type (``"positive"``, ``"natural"``,
    ``"duration"``: the keys of ``sdg_automata.cli.automata.ARGUMENT_KINDS``; ``None``: a
    string), so that this layer does not import the command line.  A named tuple, made
    by keyword (``Argument(flag=..., field=..., help=...)``): a dataclass's generated
    methods cost start-up.
    """

    flag: str
    field: str
    help: str
    kind: str | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Configurable:
    """What an entry of a registry with options has, and what it does with them: the base
    of a strategy (:class:`~sdg_automata.search.strategies.base.SearchStrategy`) and of an
    engine (:class:`~sdg_automata.search.engines.base.SearchEngine`).  Entries are shown
    by their kind and name and compared by identity (no generated ``__repr__`` or
    ``__eq__``: each generated method costs start-up).

    Attributes
    ----------
    name:
        Its key in the registry (``--strategy`` or ``--engine`` choice).
    describe:
        What ``max --help`` says of it, after its name.
    options:
        A frozen dataclass of its settings, or its name (``"module:Class"``, imported when
        first needed: :attr:`options_class`), or ``None``; each field is a keyword of
        ``max_grundy(options={...})``, its default the value that means "not given".
        Option names are shared by every strategy and engine: no two use the same.
    arguments:
        Its command-line arguments (:class:`Argument`), added by the command line and
        read back by :meth:`read_arguments`.
    refuse:
        The refusal when its options go to another strategy, engine or route ``user``:
        ``refuse(user, given) -> message`` (``given``: its options that were set);
        ``None``: the generic one of :meth:`refusal`.
    """

    #: what an entry of this registry is called in messages ("strategy", "engine")
    kind: ClassVar[str] = "entry"

    name: str
    describe: str
    options: type[Any] | str | None = None
    arguments: tuple[Argument, ...] = ()
    refuse: Callable[[str, Mapping[str, Any]], str] | None = None

    def __repr__(self) -> str:  # its name says which
        return f"<{self.kind} {self.name!r}>"

    @property
    def options_class(self) -> type[Any] | None:
        """Its options' class (``options``, imported first when it names one), or ``None``."""
        if isinstance(self.options, str):
            module, _, name = self.options.partition(":")
            return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]
        return self.options

    @property
    def defaults(self) -> dict[str, Any]:
        """Its options' keywords with the values that mean "not given"."""
        options = self.options_class
        if options is None:
            return {}
        return {f.name: f.default for f in dataclasses.fields(options)}

    def read_arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        """Its options that the command line's ``args`` give (``max_grundy`` keywords); an
        argument left out is not in ``args`` (its default is the option's own)."""
        given = vars(args)
        return {a.field: given[a.field] for a in self.arguments if a.field in given}

    def given(self, keywords: Mapping[str, Any]) -> dict[str, Any]:
        """Its options among ``keywords`` that are set (differ from their defaults)."""
        return {k: keywords[k] for k, v in self.defaults.items()
                if k in keywords and keywords[k] != v}

    def make_options(self, keywords: Mapping[str, Any]) -> Any:
        """Its options from ``keywords`` (``None`` for an entry without options)."""
        options = self.options_class
        if options is None:
            return None
        return options(**{k: keywords[k] for k in self.defaults if k in keywords})

    def refusal(self, user: str, keywords: Mapping[str, Any]) -> str | None:
        """Why ``user`` (another strategy, engine or route) cannot take the options of this
        entry set in ``keywords``, or ``None`` when none is set."""
        given = self.given(keywords)
        if not given:
            return None
        if self.refuse is not None:
            return self.refuse(user, given)
        one = len(given) == 1
        return (f"{', '.join(given)} {'is an option' if one else 'are options'} of the "
                f"{self.name} {self.kind}; {user} does not take {'it' if one else 'them'}")


E = TypeVar("E", bound=Configurable)


def entry(table: Mapping[str, E], name: object, kind: str, names: Iterable[str]) -> E:
    """The entry ``name`` of a registry ``table`` of ``kind`` ("strategy", "engine");
    :class:`~sdg_automata.errors.InputError` listing ``names`` for an unknown one."""
    try:
        return table[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise InputError(f"unknown {kind} {name!r} (choose from {', '.join(names)})"
                         ) from None


def refuse_options(keywords: Mapping[str, Any], users: Mapping[str, str],
                   entries: Iterable[Configurable], allowed: Iterable[Configurable]) -> None:
    """Refuse the options set in ``keywords`` that belong to none of ``allowed``, and any
    keyword that is no entry's option.

    ``entries`` are every registered strategy and engine; ``users`` names, for each
    kind of entry, who would be given its options (``{"strategy": "dfs", "engine": "the
    compiled engine"}``), which the message says.
    """
    if not keywords:  # nothing to refuse, and no entry's options class to import
        return
    entries, allowed = tuple(entries), tuple(allowed)
    known = {k for e in entries for k in e.defaults}
    unknown = sorted(set(keywords) - known)
    if unknown:
        raise InputError(f"unknown option{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(map(repr, unknown))} (the strategies' and engines' "
                         f"options: {', '.join(sorted(known)) or 'none'})")
    # an option two entries share (the SAT solver of sat and pdr) is refused by neither
    # when one of them runs
    shared = {k for e in allowed for k in e.defaults}
    others = {k: v for k, v in keywords.items() if k not in shared}
    for entry in entries:
        why = None if entry in allowed else entry.refusal(users[entry.kind], others)
        if why is not None:
            raise InputError(why)
