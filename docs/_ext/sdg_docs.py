"""Helpers of the documentation build (docs/conf.py), kept out of the package.

Two things the site needs from text written for a terminal:

* :func:`escape_absolute_values`: docstrings and ``--help`` texts write absolute values and
  sizes as ``|w|``, ``|S| + |D|``; reStructuredText reads ``|w|`` as a substitution
  reference (an error).  No text of this package uses substitutions, so every ``|...|`` is
  escaped.
* :func:`cli_parser`: the real argument parser of ``python -m sdg_automata``
  (:func:`sdg_automata.cli.build_parser`, every subcommand complete) for sphinx-argparse's
  ``argparse`` directive on ``docs/cli.md``, with its help texts escaped as above and each
  ``--help`` epilog (exit codes, example command lines) kept as the literal block the
  terminal shows.  ``octal survey`` and ``octal verify`` are words in ``octal``'s CODE
  position, not subparsers; their own parsers
  (:func:`sdg_automata.cli.octal.form_parser`, what their ``--help`` prints) are shown
  as sub-commands of ``octal`` on this page only.

And one thing the site's pages need from Sphinx:

* :func:`canonical_name`: the guides name a public function as users import it, through the
  package root (``sdg_automata.load_grammar``), while autodoc documents each object once,
  in the module that defines it.  ``docs/conf.py`` resolves such a reference to the place
  the object is documented, so a page keeps its links when a module moves; a reference to
  a name of the package that does not exist is a warning (an error under ``-W``).
"""

from __future__ import annotations

import argparse
import importlib
import re
import textwrap
from types import ModuleType

_ABSOLUTE = re.compile(r"(?<![|\\`])\|(?=[^\s|`])([^|`\n]*?[^\s|\\])\|(?![|_])")


def escape_absolute_values(text: str) -> str:
    """``|w|`` -> ``\\|w\\|``: an absolute value, not a substitution reference."""
    return _ABSOLUTE.sub(r"\\|\1\\|", text)


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases once
                found += _parsers(sub)
    return found


def _octal_forms(root: argparse.ArgumentParser) -> None:
    from sdg_automata.cli.octal import SURVEY, VERIFY, form_parser

    [commands] = [a for a in root._actions if isinstance(a, argparse._SubParsersAction)]
    octal = commands.choices["octal"]
    forms = argparse._SubParsersAction(option_strings=[], prog=octal.prog,
                                       parser_class=type(octal), dest="form",
                                       metavar=f"{{{SURVEY},{VERIFY}}}",
                                       help=f"CODE may be the word {SURVEY} or {VERIFY}: "
                                            "the forms below")
    for word, summary in [(SURVEY, "every octal code of up to D digits"),
                          (VERIFY, "check a certificate from the game's rules alone")]:
        form = form_parser(octal, word)
        assert form is not None
        forms._name_parser_map[word] = form
        forms._choices_actions.append(
            argparse._SubParsersAction._ChoicesPseudoAction(word, (), summary))
    octal._add_action(forms)


def cli_parser() -> argparse.ArgumentParser:
    """``sdg_automata.cli.build_parser()`` made ready for reStructuredText."""
    from sdg_automata.cli import build_parser

    root = build_parser()
    _octal_forms(root)
    for parser in _parsers(root):
        if parser.description:
            parser.description = escape_absolute_values(parser.description)
        if parser.epilog:
            parser.epilog = "::\n\n" + textwrap.indent(parser.epilog, "   ")
        for action in parser._actions:
            if isinstance(action.help, str):
                action.help = escape_absolute_values(action.help)
            if isinstance(action, argparse._SubParsersAction):  # the one-line summaries
                for choice in action._choices_actions:
                    if isinstance(choice.help, str):
                        choice.help = escape_absolute_values(choice.help)
    return root


def canonical_name(dotted: str) -> str | None:
    """Where the object named ``dotted`` is documented: ``sdg_automata.load_grammar`` ->
    ``sdg_automata.grammar.parse.load_grammar`` (a module, class or function by its
    ``__module__`` and ``__qualname__``, anything else under its owner's name); ``None``
    when no such object exists."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):  # the longest importable module, then attributes
        name = ".".join(parts[:k])
        try:
            obj: object = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and name.startswith(e.name):
                continue  # no module of that name: an attribute of a shorter one
            return dotted  # an optional dependency is missing: nothing can be said
        for attr in parts[k:]:
            if hasattr(obj, attr):
                obj, name = getattr(obj, attr), f"{name}.{attr}"
                name = _defined(obj) or name
            elif attr in {n for c in getattr(obj, "__mro__", ())
                          for n in getattr(c, "__annotations__", {})} and attr == parts[-1]:
                return f"{name}.{attr}"  # a field without a default (a dataclass's)
            else:
                return None
        return name
    return None


def _defined(obj: object) -> str | None:
    """``module.qualname`` of a module, class or function; ``None`` for other objects."""
    if isinstance(obj, ModuleType):
        return obj.__name__
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}.{qualname}"
    return None
