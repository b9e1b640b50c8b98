"""Sphinx configuration: the documentation site of sdg_automata (issue 22 §2).

Build it with warnings as errors, as CI does (``tests/test_docs.py``)::

    pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference is generated from the numpydoc docstrings of every module
(``autosummary`` with ``:recursive:``, so a new module is picked up without
listing it).  The tutorial is rendered with the outputs it is committed with,
never executed here (``tests/test_notebook.py`` checks they are current).
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document this checkout, whatever is installed

import sdg_automata  # noqa: E402

project = "sdg_automata"
author = "sdg_automata maintainers"
copyright = "sdg_automata maintainers, MIT License"  # noqa: A001
release = version = sdg_automata.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",  # Markdown pages (SPEC, guides) and the tutorial notebook
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_templates", "**/.ipynb_checkpoints", "schemas/*.json"]
templates_path = ["_templates"]

# the API reference: one page per module, found by walking the package
autosummary_generate = True
autosummary_imported_members = False
# each object documented once, where it is defined: a package's re-exports (the names of
# sdg_automata.__all__, say) are not documented again under the package
autodoc_default_options = {"member-order": "bysource", "ignore-module-all": True}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# optional dependencies the reference must not need to import the modules
autodoc_mock_imports = ["pygraphviz", "pysat", "pyformlang", "shtab", "distributed", "dask"]
numpydoc_show_class_members = False  # autodoc lists them; no second, stub-less table
numpydoc_xref_param_type = False

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
# No docstring of this package uses substitutions, so every |...| in one is escaped here.
_ABSOLUTE = re.compile(r"(?<![|\\`])\|(?=[^\s|`])([^|`\n]*?[^\s|\\])\|(?![|_])")


def _escape_absolute_values(app: Any, what: str, name: str, obj: Any, options: Any,
                            lines: list[str]) -> None:
    lines[:] = [_ABSOLUTE.sub(r"\\|\1\\|", line) for line in lines]


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


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", _escape_absolute_values, priority=400)
    app.connect("builder-inited", _no_signature_for_aliases)
