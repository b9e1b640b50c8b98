"""Write the local intersphinx inventories of docs/conf.py.

Run it as ``python docs/_inventories/make_inventories.py`` after changing the table.

The site is built where there is no network (CI's sandbox, the tests), so intersphinx
cannot fetch ``objects.inv`` from docs.python.org, numpy.org, networkx.org or automata-lib's
site.  This script writes small inventories instead, one per project, from the table below:
the names our pages refer to and their real addresses on those sites (relative to the base
URL that ``intersphinx_mapping`` gives).  A name the pages start to use that is missing here
renders as plain text, not as a broken link; add it to the table and rerun the script.
automata-lib's site (MkDocs) has one page per class, so its methods link to their class page.
"""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

# project -> (version, [(name, role, address relative to the base URL[, display name])])
INVENTORIES: dict[str, tuple[str, list[tuple[str, ...]]]] = {
    "python": ("3", [
        ("int", "py:class", "library/functions.html#int"),
        ("str", "py:class", "library/stdtypes.html#str"),
        ("bytes", "py:class", "library/stdtypes.html#bytes"),
        ("float", "py:class", "library/functions.html#float"),
        ("bool", "py:class", "library/functions.html#bool"),
        ("list", "py:class", "library/stdtypes.html#list"),
        ("dict", "py:class", "library/stdtypes.html#dict"),
        ("tuple", "py:class", "library/stdtypes.html#tuple"),
        ("set", "py:class", "library/stdtypes.html#set"),
        ("frozenset", "py:class", "library/stdtypes.html#frozenset"),
        ("object", "py:class", "library/functions.html#object"),
        ("None", "py:data", "library/constants.html#None"),
        ("ValueError", "py:exception", "library/exceptions.html#ValueError"),
        ("KeyError", "py:exception", "library/exceptions.html#KeyError"),
        ("TypeError", "py:exception", "library/exceptions.html#TypeError"),
        ("Exception", "py:exception", "library/exceptions.html#Exception"),
        ("KeyboardInterrupt", "py:exception", "library/exceptions.html#KeyboardInterrupt"),
        ("MemoryError", "py:exception", "library/exceptions.html#MemoryError"),
        ("OSError", "py:exception", "library/exceptions.html#OSError"),
        ("RecursionError", "py:exception", "library/exceptions.html#RecursionError"),
        ("os.PathLike", "py:class", "library/os.html#os.PathLike"),
        ("pathlib.Path", "py:class", "library/pathlib.html#pathlib.Path"),
        ("fractions.Fraction", "py:class", "library/fractions.html#fractions.Fraction"),
        ("argparse.ArgumentParser", "py:class",
         "library/argparse.html#argparse.ArgumentParser"),
        ("concurrent.futures.Executor", "py:class",
         "library/concurrent.futures.html#concurrent.futures.Executor"),
        ("collections.abc.Callable", "py:class",
         "library/collections.abc.html#collections.abc.Callable"),
        ("collections.abc.Iterable", "py:class",
         "library/collections.abc.html#collections.abc.Iterable"),
        ("collections.abc.Iterator", "py:class",
         "library/collections.abc.html#collections.abc.Iterator"),
        ("collections.abc.Mapping", "py:class",
         "library/collections.abc.html#collections.abc.Mapping"),
        ("collections.abc.Sequence", "py:class",
         "library/collections.abc.html#collections.abc.Sequence"),
        ("collections.abc.Hashable", "py:class",
         "library/collections.abc.html#collections.abc.Hashable"),
        ("typing.Any", "py:data", "library/typing.html#typing.Any"),
        ("typing.Literal", "py:data", "library/typing.html#typing.Literal"),
        ("typing.Callable", "py:data", "library/typing.html#typing.Callable"),
        ("typing.Iterable", "py:class", "library/typing.html#typing.Iterable"),
        ("typing.Mapping", "py:class", "library/typing.html#typing.Mapping"),
        ("typing.Sequence", "py:class", "library/typing.html#typing.Sequence"),
        ("doctest", "py:module", "library/doctest.html#module-doctest"),
        ("True", "py:data", "library/constants.html#True"),
        ("False", "py:data", "library/constants.html#False"),
        ("callable", "py:function", "library/functions.html#callable"),
        ("contextlib.contextmanager", "py:function",
         "library/contextlib.html#contextlib.contextmanager"),
        ("collections.namedtuple", "py:function",
         "library/collections.html#collections.namedtuple"),
        # the terms and labels numpydoc's default type links use (numpydoc.xref)
        ("bltin-boolean-values", "std:label", "library/stdtypes.html#boolean-type-bool",
         "Boolean Type - bool"),
        ("iterable", "std:term", "glossary.html#term-iterable"),
        ("sequence", "std:term", "glossary.html#term-sequence"),
        ("generator", "std:term", "glossary.html#term-generator"),
    ]),
    "numpy": ("2", [
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#numpy.ndarray"),
        ("numpy.uint8", "py:class", "reference/arrays.scalars.html#numpy.uint8"),
        ("numpy.int64", "py:class", "reference/arrays.scalars.html#numpy.int64"),
        ("numpy.uint64", "py:class", "reference/arrays.scalars.html#numpy.uint64"),
        ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html#numpy.dtype"),
        ("array_like", "std:term", "glossary.html#term-array_like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html", "Scalars"),
    ]),
    "networkx": ("3", [
        ("networkx.DiGraph", "py:class", "reference/classes/digraph.html#networkx.DiGraph"),
        ("networkx.Graph", "py:class", "reference/classes/graph.html#networkx.Graph"),
        ("networkx.classes.digraph.DiGraph", "py:class",
         "reference/classes/digraph.html#networkx.DiGraph"),
        ("networkx.readwrite.json_graph.node_link_data", "py:function",
         "reference/readwrite/generated/networkx.readwrite.json_graph.node_link_data.html"
         "#networkx.readwrite.json_graph.node_link_data"),
        ("networkx.readwrite.json_graph.node_link_graph", "py:function",
         "reference/readwrite/generated/networkx.readwrite.json_graph.node_link_graph.html"
         "#networkx.readwrite.json_graph.node_link_graph"),
    ]),
    "automata": ("9", [
        ("automata.fa.dfa.DFA", "py:class", "api/fa/class-dfa/"),
        ("automata.fa.nfa.NFA", "py:class", "api/fa/class-nfa/"),
        ("automata.fa.gnfa.GNFA", "py:class", "api/fa/class-gnfa/"),
        ("automata.fa.fa.FA", "py:class", "api/fa/class-fa/"),
        ("automata.fa.dfa.DFA.minify", "py:method", "api/fa/class-dfa/"),
        ("automata.fa.dfa.DFA.count_words_of_length", "py:method", "api/fa/class-dfa/"),
        ("automata.fa.dfa.DFA.from_nfa", "py:method", "api/fa/class-dfa/"),
        ("automata.fa.nfa.NFA.from_regex", "py:method", "api/fa/class-nfa/"),
        ("automata.fa.gnfa.GNFA.to_regex", "py:method", "api/fa/class-gnfa/"),
        # the short names of the package's annotations: automata-lib is imported under
        # TYPE_CHECKING, so autodoc sees the text "DFA | NFA | ..." and links each name as is
        ("DFA", "py:class", "api/fa/class-dfa/"),
        ("NFA", "py:class", "api/fa/class-nfa/"),
    ]),
}


def inventory(project: str, version: str, entries: list[tuple[str, ...]]) -> bytes:
    """An ``objects.inv`` (Sphinx inventory version 2): a header, then zlib-compressed lines
    ``name domain:role priority address display-name`` (``-``: the display name is the name)."""
    header = ("# Sphinx inventory version 2\n"
              f"# Project: {project}\n# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n")
    lines = "".join(f"{name} {role} {-1 if role == 'std:label' else 1} {address} "
                    f"{shown[0] if shown else '-'}\n" for name, role, address, *shown in entries)
    return header.encode() + zlib.compress(lines.encode())


def main() -> None:
    for project, (version, entries) in INVENTORIES.items():
        (HERE / f"{project}.inv").write_bytes(inventory(project, version, entries))


if __name__ == "__main__":
    main()
