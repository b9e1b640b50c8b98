"""IPython and Jupyter registration: ``%load_ext sdg_automata``.

:func:`load_ipython_extension` puts :func:`~sdg_automata.render.display.diagram`
on IPython's mimebundle formatter for every class it shows, so that notebooks
display them with its size caps; :func:`unload_ipython_extension` takes them off.
"""

from __future__ import annotations

from typing import Any

from . import verdict  # noqa: F401  (registers the Verdict display before we list classes)
from .display import DISPLAYED_BY_NAME, diagram

__all__ = ["load_ipython_extension", "unload_ipython_extension"]


def _display(obj: object) -> dict[str, str]:
    return diagram(obj)._repr_mimebundle_()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext sdg_automata``: notebooks show this package's objects and
    automata-lib's DFAs/NFAs through :func:`diagram`, with its size caps.

    ``import sdg_automata`` in a running IPython kernel does the same.
    Registered on IPython's mimebundle formatter, whose type printers come
    before an object's own ``_repr_mimebundle_``.
    """
    formatter = ipython.display_formatter.mimebundle_formatter
    for cls in diagram.registry:
        if cls is not object:
            formatter.for_type(cls, _display)
    for module, name in DISPLAYED_BY_NAME:
        formatter.for_type_by_name(module, name, _display)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext sdg_automata``: back to every object's own display."""
    formatter = ipython.display_formatter.mimebundle_formatter
    for cls in [*diagram.registry, *(f"{m}.{n}" for m, n in DISPLAYED_BY_NAME)]:
        if cls is not object:
            formatter.pop(cls, None)
