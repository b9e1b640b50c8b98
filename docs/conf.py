"""Sphinx configuration: the documentation site of sdg_automata (issue 22 §2).

Build it with warnings as errors, as CI does (``tests/project/test_docs.py``)::

    pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference has two entries: ``reference.rst``, the public names grouped by task (like
networkx's reference; ``tests/project/test_docs.py`` fails a name of
``sdg_automata.__all__`` missing from it), and ``api.rst``, every module's page, generated
from the numpydoc docstrings (``autosummary`` with ``:recursive:``, so a new module is
picked up without listing it). ``cli.md`` is the command line: the command table, the
conventions and the exit codes, and every subcommand's options from the real argument parser
(sphinx-argparse). The guides are the user guide (the README is an overview that links to
them), ``formats.md`` the input files, with examples that ``tests/project`` runs. The
tutorial is rendered with the outputs it is committed with, never executed here
(``tests/project/test_notebook.py`` checks they are current).
"""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path
from typing import Any

from sphinx.util import logging

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document this checkout, whatever is installed

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from sdg_docs import canonical_name, escape_absolute_values  # noqa: E402

import sdg_automata  # noqa: E402

project = "sdg_automata"
author = "sdg_automata maintainers"
copyright = "sdg_automata maintainers, MIT License"  # noqa: A001
release = version = sdg_automata.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",  # Markdown pages (SPEC, guides) and the tutorial notebook
    "sphinxarg.ext",  # cli.md: every subcommand's options, from the real parser
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_templates", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

# the API reference: one page per module, found by walking the package.  The pages are
# generated (and git-ignored): removed first, so a module that moved or went leaves no
# stale page behind (autosummary only ever adds; -W then fails on the orphan).
shutil.rmtree(Path(__file__).resolve().parent / "api", ignore_errors=True)
autosummary_generate = True
autosummary_imported_members = False
# each object documented once, where it is defined: a package's re-exports (the names of
# sdg_automata.__all__, say) are not documented again under the package
autodoc_default_options = {"member-order": "bysource", "ignore-module-all": True}
# Type hints go in the signature, not in the description: with "description", autodoc
# adds its own "Parameters" field list next to numpydoc's (which documents "grammar, head"
# together, so the two never merge) and every function showed two parameter lists (issue 28
# §1; tests/project/test_docs.py fails a page that shows two).  Long signatures wrap, one
# parameter per line.
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
python_maximum_signature_line_length = 88
# optional dependencies the reference must not need to import the modules
autodoc_mock_imports = ["pygraphviz", "pysat", "pyformlang", "shtab", "distributed", "dask"]
numpydoc_show_class_members = False  # autodoc lists them; no second, stub-less table
# The types of numpydoc's Parameters/Returns link to their pages: the package's own classes
# and the other projects' (through intersphinx, below) named in this table; other words of
# a type description ("or", "optional", "of") stay plain ("all": only these are links).
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "DFA": "automata.fa.dfa.DFA", "NFA": "automata.fa.nfa.NFA",
    "DiGraph": "networkx.DiGraph", "Fraction": "fractions.Fraction",
    "Path": "pathlib.Path", "PathLike": "os.PathLike",
    **{name: f"sdg_automata.{module}.{name}" for module, names in [
        ("grammar", "Grammar Rule"), ("search.decide", "Verdict"), ("search.spectrum", "SpectrumRow"),
        ("automaton.construction", "GrundyAutomaton"), ("runtime.budget", "Budget"),
        ("grammar.words", "Word"), ("games.octal.rules", "OctalGame"),
        ("games.octal.period", "OctalPeriod"), ("derivation.periodicity", "Period"),
        ("automaton.counting", "Density ClassMachine"), ("derivation.play", "Analysis Move"),
        ("games.solution", "SumMove GraphSolution"), ("derivation.gamegraph", "GameGraph"),
    ] for name in names.split()},
}

# Links to Python's, numpy's, networkx's and automata-lib's own pages.  The site is built
# without network (CI's sandbox, the tests), so the inventories are small local files,
# written by docs/_inventories/make_inventories.py from a table of the names our pages use
# and their real addresses; the base URLs below are where the links go.
intersphinx_mapping = {
    name: (url, str(Path(__file__).resolve().parent / "_inventories" / f"{name}.inv"))
    for name, url in [("python", "https://docs.python.org/3/"),
                      ("numpy", "https://numpy.org/doc/stable/"),
                      ("networkx", "https://networkx.org/documentation/stable/"),
                      ("automata", "https://caleb531.github.io/automata/")]
}
intersphinx_timeout = 1  # never used: every inventory is a local file

# "--" is never a dash here: options are written --max-states in prose, help texts and
# docstrings, and must read as typed (quotes and ellipses are still made typographic)
smartquotes_action = "qe"

# the tutorial: its committed outputs, never executed at build time
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# a numpydoc "References" section is a reading list: its entries need not be cited inline
suppress_warnings = ["ref.citation"]

html_theme = "furo"
html_title = f"sdg_automata {release}"
html_static_path: list[str] = []


# Docstrings are numpydoc, read as plain text by help() too, and write absolute values and
# sizes as |w|, |S| + |D|: in reStructuredText that is a substitution reference (an error).
# No docstring of this package uses substitutions, so every |...| in one is escaped
# (docs/_ext/sdg_docs.py, which does the same to the --help texts of cli.md).
def _escape_absolute_values(app: Any, what: str, name: str, obj: Any, options: Any,
                            lines: list[str]) -> None:
    lines[:] = [escape_absolute_values(line) for line in lines]


def _no_signature_for_aliases(app: Any) -> None:
    """Sphinx 9.0 fails (IndexError in ``_format_signatures``) when numpydoc gives a
    signature to a module-level alias such as ``Pair = tuple[str, str]``: an alias has none."""
    listeners = app.events.listeners["autodoc-process-signature"]
    for k, listener in enumerate(listeners):
        if listener.handler.__module__.startswith("numpydoc"):
            def guarded(app: Any, what: str, name: str, obj: Any, *rest: Any,
                        _numpydoc: Any = listener.handler) -> Any:
                return None if isinstance(obj, types.GenericAlias) else _numpydoc(
                    app, what, name, obj, *rest)
            listeners[k] = listener._replace(handler=guarded)


def _through_the_package_root(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve ``sdg_automata.load_grammar`` (a name as users import it) to the object's
    page, where autodoc documents it (``sdg_automata.grammar.parse.load_grammar``); warn
    about a name of the package that does not exist (a stale reference: an error under -W)."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("sdg_automata."):
        return None
    defined = canonical_name(target)
    if defined is None:
        logging.getLogger(__name__).warning(f"reference to {target}, which does not exist",
                                            location=node)
        return None
    if defined == target:
        return None  # documented where it is named, or not documented: Sphinx decides
    return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder,
                                             node["reftype"], defined, node, contnode)


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _escape_absolute_values, priority=400)
    app.connect("missing-reference", _through_the_package_root)
    app.connect("builder-inited", _no_signature_for_aliases)
