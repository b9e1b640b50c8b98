"""Game graphs read from JSON files (SPEC §7), with the file and line of every error.

Three shapes: ``{"positions": {"x": ["y", "z"], ...}}`` (with an optional
``"description"``), a plain JSON object of lists, and networkx's node-link JSON.
Positions are strings, except in node-link JSON, where a node is its JSON ``id``,
a string or an integer.  Read through the package's one JSON reader
(:func:`~sdg_automata.grammar.jsontext.load_json`); solved by
:mod:`sdg_automata.games.solution`.
"""

from __future__ import annotations

import json
from os import PathLike
from typing import Any

from ..errors import GameGraphError, GraphCycleError, InputError, brief
from ..grammar.jsontext import json_lines, load_json
from .solution import GraphSolution, _complete, _finish_order, _solution

__all__ = ["NodeId", "game_graph_from_json", "load_game_graph", "solve_game_graph_file"]

NodeId = str | int
"""A position read from JSON: a string, or an integer node id of node-link JSON."""


_ALLOWED_KEYS = {"positions", "description"}


def _line(text: str, *path: str) -> int | None:
    """The line of the member at ``path`` (keys from the top); for error messages only."""
    return json_lines(text).get(path)


def _node_link(data: dict[str, Any], source: str) -> dict[NodeId, list[NodeId]]:
    """networkx's node-link JSON (``nx.node_link_data``: ``nodes`` + ``edges`` or
    ``links``) as ``{position: followers}``.  A node is its JSON id, a string or an
    integer, as in networkx: ``1`` and ``"1"`` are two nodes (issue 21 §11)."""
    edges_key = "edges" if "edges" in data else "links"
    if data.get("directed") is False:
        raise GameGraphError("the node-link graph is undirected; a game graph's moves have a "
                             "direction (\"directed\": true)", source=source)

    def name(node: Any) -> NodeId:
        if isinstance(node, bool) or not isinstance(node, (str, int)):
            raise GameGraphError(f"node id {json.dumps(node)[:40]} must be a string or an "
                                 "integer", source=source)
        return node

    positions: dict[NodeId, list[NodeId]] = {}
    for node in data["nodes"]:
        if not isinstance(node, dict) or "id" not in node:
            raise GameGraphError('every node of a node-link graph is an object with an "id"',
                                 source=source)
        positions.setdefault(name(node["id"]), [])
    for edge in data[edges_key]:
        if not isinstance(edge, dict) or "source" not in edge or "target" not in edge:
            raise GameGraphError(f'every {edges_key[:-1]} of a node-link graph is an object '
                                 'with "source" and "target"', source=source)
        followers = positions.setdefault(name(edge["source"]), [])
        target = name(edge["target"])
        if target not in followers:  # a multigraph's parallel edges are one move
            followers.append(target)
    return positions


def _is_node_link(data: dict[str, Any]) -> bool:
    return isinstance(data.get("nodes"), list) and any(
        isinstance(data.get(k), list) and all(isinstance(e, dict) for e in data[k])
        for k in ("edges", "links")) and all(isinstance(n, dict) for n in data["nodes"])


def _json_adjacency(text: str, source: str) -> dict[NodeId, tuple[NodeId, ...]]:
    """The graph in JSON ``text``, shape-checked.  Three shapes are read (see
    :func:`game_graph_from_json`): ``{"positions": {...}}``, networkx's node-link
    JSON, and a plain object of lists."""
    data = load_json(text, source=source, error=GameGraphError)
    if not isinstance(data, dict):
        raise GameGraphError('a game graph must be a JSON object {"positions": {...}}, '
                             f"not {_json_type(data)}", source=source, line=1)
    at: tuple[str, ...] | None = ("positions",)  # where positions sit, for line numbers
    ids: type | tuple[type, ...] = str  # what a position may be
    if _is_node_link(data):
        data, at, ids = {"positions": _node_link(data, source)}, None, (str, int)
    elif "positions" not in data and data and all(type(v) is list for v in data.values()):
        data, at = {"positions": data}, ()  # a plain object of lists
    unknown = sorted(set(data) - _ALLOWED_KEYS)
    if unknown:
        raise GameGraphError(f"unknown key {brief(unknown[0])} (expected 'positions', "
                             "'description')", source=source, line=_line(text, unknown[0]))
    if "positions" not in data:
        raise GameGraphError("missing key 'positions'", source=source, line=1)
    if not isinstance(data.get("description", ""), str):
        raise GameGraphError("'description' must be a string", source=source,
                             line=_line(text, "description"))
    positions = data["positions"]
    if not isinstance(positions, dict):
        raise GameGraphError("'positions' must be an object position -> list of followers, "
                             f"not {_json_type(positions)}", source=source,
                             line=_line(text, "positions"))

    def line(position: NodeId) -> int | None:
        return None if at is None else _line(text, *at, str(position))

    for position, followers in positions.items():
        if type(followers) is not list:
            raise GameGraphError(
                f"the followers of position {brief(position)} must be a list, not "
                f"{_json_type(followers)}", source=source, line=line(position))
    odd = [(p, f) for p, fs in positions.items() for f in fs
           if not isinstance(f, ids) or isinstance(f, bool)]
    if odd:
        position, bad = odd[0]
        shown = _json_type(bad) if isinstance(bad, (list, dict)) else json.dumps(bad)
        raise GameGraphError(
            f"follower {shown} of position {brief(str(position))} must be a string "
            "(positions are the keys of 'positions')", source=source, line=line(position))
    return _complete({p: tuple(fs) for p, fs in positions.items()})


def _located(error: GraphCycleError, text: str, source: str) -> InputError:
    head = error.cycle[0]
    return error.located(source, _line(text, "positions", head) if isinstance(head, str)
                         else None)


def game_graph_from_json(text: str, *, source: str = "<string>"
                         ) -> dict[NodeId, tuple[NodeId, ...]]:
    """Read a game graph from JSON text ``{"positions": {"x": ["y", "z"], ...}}`` (SPEC §7).

    The only other key allowed at the top is ``"description"`` (a string).
    Positions are strings; a follower that is not a key of ``"positions"`` is
    a sink.  The graph is checked to be acyclic.  Two other shapes are read
    as the same graph: a plain object of lists ``{"x": ["y", "z"], ...}``
    (what ``json.dump`` of a dict of lists writes), and networkx's node-link
    JSON (``json.dump(nx.node_link_data(G))``, with ``"edges"`` or the older
    ``"links"``; an undirected graph is refused).  A node-link node is its JSON
    id: an integer id stays an integer, distinct from the string of its digits,
    as in networkx.

    Parameters
    ----------
    text:
        The JSON text.
    source:
        Where the text came from, for error messages.

    Returns
    -------
    dict
        The normalized graph, as :func:`adjacency_of` returns it.

    Raises
    ------
    GameGraphError
        Invalid JSON (with line and column), a wrong shape, a duplicate key,
        or a cycle (:class:`GraphCycleError`); located at ``source`` and the
        line of the offending position where possible.

    Examples
    --------
    >>> game_graph_from_json('{"positions": {"2": ["1", "0"], "1": ["0"]}}')
    {'2': ('1', '0'), '1': ('0',), '0': ()}
    >>> game_graph_from_json('{"positions": {"x": ["y"], "y": ["x"]}}', source="g.json")
    Traceback (most recent call last):
    ...
    sdg_automata.errors.GraphCycleError: g.json:1: the game graph has a cycle x -> y -> x
    """
    adjacency = _json_adjacency(text, source)
    try:
        _finish_order(adjacency)
    except GraphCycleError as e:
        raise _located(e, text, source) from None
    return adjacency


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _read(path: str | PathLike[str]) -> str:
    from ..grammar.parse import read_text

    return read_text(path, what="game graph file")


def load_game_graph(path: str | PathLike[str]) -> dict[NodeId, tuple[NodeId, ...]]:
    """Read a game graph JSON file (format: :func:`game_graph_from_json`).

    Raises
    ------
    InputError
        The file is missing, unreadable or not UTF-8 text.
    GameGraphError
        The file does not hold a valid acyclic game graph; the error names the
        file and, where possible, the line.
    """
    return game_graph_from_json(_read(path), source=str(path))


def solve_game_graph_file(path: str | PathLike[str]) -> GraphSolution[NodeId]:
    """:func:`solve_game_graph` of the graph in a JSON file, in one pass.

    Same as ``solve_game_graph(load_game_graph(path))`` without searching the
    graph twice; errors as :func:`load_game_graph`.
    """
    text = _read(path)
    adjacency = _json_adjacency(text, str(path))
    try:
        return _solution(adjacency)
    except GraphCycleError as e:
        raise _located(e, text, str(path)) from None
