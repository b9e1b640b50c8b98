"""Game graphs (SPEC §7): Grundy numbers, outcomes, misère play, sums, JSON loading."""

from __future__ import annotations

import dataclasses
import doctest
import itertools
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.errors import (
    GameGraphError,
    GraphCycleError,
    InputError,
    MisereSumError,
    UnknownPositionError,
)
from sdg_automata.games import graphfile, impartial, solution
from sdg_automata.games import mex as mex_module
from sdg_automata.games.graphfile import (
    game_graph_from_json,
    load_game_graph,
    solve_game_graph_file,
)
from sdg_automata.games.impartial import (
    grundy_values,
    outcomes,
    sum_grundy,
    sum_outcome,
    winning_moves,
)
from sdg_automata.games.mex import mex, mex_mask, nim_sum
from sdg_automata.games.solution import GraphSolution, SumMove, adjacency_of, solve_game_graph

H = TypeVar("H", bound=Hashable)
GRAPHS = Path(__file__).resolve().parents[2] / "examples" / "graphs"


# ---------------------------------------------------------------------------
# oracles: the definitions, recursively (small graphs only)


def recursive_grundy(graph: Mapping[H, Sequence[H]]) -> dict[H, int]:
    @cache
    def g(v: H) -> int:
        return mex(g(w) for w in graph.get(v, ()))

    every = set(graph) | {w for ws in graph.values() for w in ws}
    return {v: g(v) for v in every}


def recursive_misere_win(graph: Mapping[H, Sequence[H]]) -> dict[H, bool]:
    @cache
    def win(v: H) -> bool:
        moves = graph.get(v, ())
        return not moves or any(not win(w) for w in moves)

    every = set(graph) | {w for ws in graph.values() for w in ws}
    return {v: win(v) for v in every}


def nim_graph(max_heap: int) -> dict[int, list[int]]:
    """Single Nim heaps as a graph: heap n moves to every smaller heap."""
    return {n: list(range(n)) for n in range(max_heap + 1)}


def multi_nim_graph(heaps: int, max_heap: int) -> dict[tuple[int, ...], list[tuple[int, ...]]]:
    """Nim with ``heaps`` heaps of size ≤ ``max_heap``: positions are sorted tuples."""
    graph: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for pos in itertools.combinations_with_replacement(range(max_heap + 1), heaps):
        graph[pos] = sorted({tuple(sorted(pos[:i] + (k,) + pos[i + 1:]))
                             for i, h in enumerate(pos) for k in range(h)})
    return graph


def subtraction_graph(n: int, moves: Sequence[int] = (1, 2, 3)) -> dict[int, list[int]]:
    return {m: [m - k for k in moves if m - k >= 0] for m in range(n + 1)}


# ---------------------------------------------------------------------------
# the old helpers are unchanged


def test_mex_helpers() -> None:
    assert mex([0, 1, 3]) == 2 and mex([]) == 0 and mex([1, 2]) == 0
    assert mex_mask(0b1011) == 2 and mex_mask(0) == 0
    assert nim_sum([1, 2, 3]) == 0 and nim_sum([]) == 0


def test_doctests() -> None:
    attempted = 0
    for module in (impartial, mex_module, solution, graphfile):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted > 10


def test_each_module_stays_small() -> None:
    """Should keep one concept per module: none of them grows past 700 lines."""
    for module in (impartial, mex_module, solution, graphfile):
        assert len(Path(module.__file__ or "").read_text(encoding="utf-8").splitlines()) <= 700


# ---------------------------------------------------------------------------
# known values


def test_nim_heaps() -> None:
    values = grundy_values(nim_graph(20))
    assert values == {n: n for n in range(21)}
    assert outcomes(nim_graph(3)) == {0: "P", 1: "N", 2: "N", 3: "N"}


def test_subtraction_game_123_is_n_mod_4() -> None:
    values = grundy_values(subtraction_graph(200))
    assert values == {n: n % 4 for n in range(201)}


def test_subtraction_game_without_one() -> None:
    # classic subtraction game S = {2, 3} (SPEC §7 quotes g(4) = 2)
    values = grundy_values(subtraction_graph(11, (2, 3)))
    assert [values[n] for n in range(12)] == [0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 0, 0]


def test_tutorial_dag() -> None:
    graph = {"a": ["b", "c", "d"], "b": ["d", "e"], "c": ["e"], "d": ["t"], "e": ["d", "t"]}
    sol = solve_game_graph(graph)
    assert dict(sol.grundy) == {"a": 2, "b": 0, "c": 0, "d": 1, "e": 2, "t": 0}
    assert sol.outcomes() == {"a": "N", "b": "P", "c": "P", "d": "N", "e": "N", "t": "P"}
    assert sol.outcomes(misere=True) == {"a": "N", "b": "N", "c": "P", "d": "P", "e": "N",
                                         "t": "N"}


def test_sinks_and_followers_not_listed() -> None:
    # "y" and "z" are followers but not keys: they are sinks, in order of first mention
    sol = solve_game_graph({"x": ["y", "z"], "w": []})
    assert list(sol.grundy) == ["x", "w", "y", "z"]
    assert dict(sol.grundy) == {"x": 1, "w": 0, "y": 0, "z": 0}
    assert sol.outcome("y") == "P" and sol.outcome("y", misere=True) == "N"
    assert sol.outcome("x", misere=True) == "P"
    assert grundy_values({}) == {} and len(solve_game_graph({})) == 0


def test_duplicate_followers_and_iterables() -> None:
    assert adjacency_of({"x": ["y", "y", "z"], "y": {"z"}, "z": iter(())}) == {
        "x": ("y", "z"), "y": ("z",), "z": ()}
    assert solve_game_graph({"x": ["y", "y"]}).followers["x"] == ("y",)


def test_other_hashable_positions() -> None:
    graph: dict[Hashable, list[Hashable]] = {
        (2, 1): [(1, 1), (0, 1), (1, 0)], (1, 1): [(0, 1), (1, 0)], (0, 1): [(0, 0)],
        (1, 0): [(0, 0)], frozenset({1}): [None]}
    values = grundy_values(graph)
    assert values[(1, 1)] == 0 and values[(2, 1)] == 2 and values[None] == 0
    assert values[frozenset({1})] == 1


def test_networkx_digraph_and_duck_typing() -> None:
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")])
    g.add_node("lonely")
    assert grundy_values(g) == {"a": 2, "b": 1, "c": 0, "lonely": 0}
    assert outcomes(g, misere=True) == {"a": "N", "b": "P", "c": "N", "lonely": "N"}
    with pytest.raises(GraphCycleError, match=r"1 -> 2 -> 1"):
        grundy_values(nx.DiGraph([(0, 1), (1, 2), (2, 1)]))
    with pytest.raises(GameGraphError, match="directed graph"):
        grundy_values(nx.Graph([(0, 1)]))  # undirected: no .successors

    class Chain:
        nodes = range(5)

        def successors(self, n: int) -> list[int]:
            return [n + 1] if n < 4 else []

    assert grundy_values(Chain()) == {0: 0, 1: 1, 2: 0, 3: 1, 4: 0}


def test_solution_is_frozen_and_read_only() -> None:
    sol = solve_game_graph({"x": ["y"]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        sol.grundy = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        sol.grundy["x"] = 5  # type: ignore[index]
    with pytest.raises(TypeError):
        GraphSolution(dict(sol.followers), dict(sol.grundy), dict(sol.misere_win))  # type: ignore[call-arg]
    assert solve_game_graph(sol) is sol
    assert grundy_values(sol) == {"x": 1, "y": 0}
    assert outcomes(sol, misere=True) == {"x": "P", "y": "N"}
    assert adjacency_of(sol) == {"x": ("y",), "y": ()}


def test_unknown_position() -> None:
    sol = solve_game_graph({"x": ["y"]})
    for call in (lambda: sol.outcome("q"), lambda: sol.sum_grundy(["x", "q"]),
                 lambda: sol.winning_moves(["q"]), lambda: sum_grundy(dict(sol.grundy), ["q"]),
                 lambda: sol.outcome([1])):  # type: ignore[arg-type]
        with pytest.raises(UnknownPositionError, match="unknown position") as info:
            call()
        assert isinstance(info.value, KeyError) and isinstance(info.value, InputError)


# ---------------------------------------------------------------------------
# misère


def misere_nim_is_p(heaps: Sequence[int]) -> bool:
    """The misère Nim rule: all heaps ≤ 1: P iff the number of 1-heaps is odd; else P iff XOR 0."""
    if all(h <= 1 for h in heaps):
        return sum(heaps) % 2 == 1
    return nim_sum(heaps) == 0


def test_misere_nim_outcomes() -> None:
    for heaps in (1, 2, 3):
        graph = multi_nim_graph(heaps, 5)
        sol = solve_game_graph(graph)
        for pos in graph:
            assert (sol.outcome(pos, misere=True) == "P") == misere_nim_is_p(pos), pos
            # normal play: the product graph agrees with the XOR rule for sums
            assert sol.grundy[pos] == nim_sum(pos)


def test_xor_does_not_decide_misere_sums() -> None:
    nim = solve_game_graph(nim_graph(3))
    product = solve_game_graph(multi_nim_graph(2, 3))
    # two heaps of size 1: XOR 0 but a misère win for the player to move ...
    assert nim.sum_grundy([1, 1]) == 0 and product.outcome((1, 1), misere=True) == "N"
    # ... and the single heap 1: XOR 1 but a misère loss
    assert nim.outcome(1, misere=True) == "P"
    # so every sum function refuses misère
    calls: list[Callable[[], object]] = [
        lambda: nim.sum_grundy([1, 1], misere=True),
        lambda: nim.sum_outcome([1, 1], misere=True),
        lambda: nim.winning_moves([1, 1], misere=True),
        lambda: sum_grundy(dict(nim.grundy), [1], misere=True),
        lambda: sum_outcome(nim_graph(3), [1], misere=True),
        lambda: winning_moves(nim_graph(3), [1], misere=True),
    ]
    for call in calls:
        with pytest.raises(MisereSumError, match="misère sums") as info:
            call()
        assert isinstance(info.value, InputError)


# ---------------------------------------------------------------------------
# sums


def test_sum_of_nim_heaps() -> None:
    nim = nim_graph(7)
    assert sum_grundy(grundy_values(nim), [3, 5, 7]) == 1
    assert sum_outcome(nim, [3, 5, 6]) == "P" and sum_outcome(nim, [3, 5, 7]) == "N"
    assert winning_moves(nim, [1, 2, 3]) == []
    moves = winning_moves(nim, [3, 5, 7])
    assert moves == [SumMove(component=0, source=3, target=2),
                     SumMove(component=1, source=5, target=4),
                     SumMove(component=2, source=7, target=6)]
    assert sum_grundy(solve_game_graph(nim), []) == 0
    assert moves[1].apply([3, 5, 7]) == (3, 4, 7)
    with pytest.raises(InputError):
        moves[1].apply([3, 6, 7])


def test_subtraction_sum_winning_move() -> None:
    sol = solve_game_graph(subtraction_graph(30))
    components = [5, 6, 10]  # 1 ^ 2 ^ 2 = 1
    moves = sol.winning_moves(components)
    assert moves and all(sol.sum_grundy(m.apply(components)) == 0 for m in moves)
    assert SumMove(component=0, source=5, target=4) in moves


def test_winning_move_to_a_larger_grundy_number() -> None:
    # 1 has Grundy number 0, its follower 7 has 1: in the sum 0 + 1 (XOR 1) moving
    # 1 -> 7 wins although it raises that component's number
    graph = {0: [3], 1: [7], 7: [8]}
    assert grundy_values(graph) == {0: 1, 1: 0, 7: 1, 3: 0, 8: 0}
    assert winning_moves(graph, [0, 1]) == [SumMove(component=0, source=0, target=3),
                                            SumMove(component=1, source=1, target=7)]


@st.composite
def dags(draw: st.DrawFn) -> dict[int, list[int]]:
    """Random DAGs on ≤ 12 positions: edges go up a hidden order, labels are shuffled,
    and some sinks are left out of the keys (they are then implicit)."""
    n = draw(st.integers(1, 12))
    labels = draw(st.permutations(range(n)))
    graph: dict[int, list[int]] = {}
    for i in range(n):
        followers: list[int] = [labels[j] for j in range(i + 1, n) if draw(st.booleans())]
        listed: bool = draw(st.booleans())
        if followers or listed:
            graph[labels[i]] = draw(st.permutations(followers))
    keys = draw(st.permutations(list(graph)))
    return {k: graph[k] for k in keys}


@settings(max_examples=300, deadline=None)
@given(dags())
def test_random_dags_match_the_recursive_definition(graph: dict[int, list[int]]) -> None:
    sol = solve_game_graph(graph)
    assert dict(sol.grundy) == recursive_grundy(graph)
    assert grundy_values(graph) == recursive_grundy(graph)
    win = recursive_misere_win(graph)
    assert dict(sol.misere_win) == win
    assert outcomes(graph, misere=True) == {v: "N" if w else "P" for v, w in win.items()}
    assert outcomes(graph) == {v: "N" if g else "P" for v, g in sol.grundy.items()}
    # every position is a key, followers in graph order
    for v, ws in graph.items():
        assert sol.followers[v] == tuple(ws)


@settings(max_examples=300, deadline=None)
@given(dags(), st.data())
def test_winning_moves_are_exactly_the_moves_to_xor_zero(
        graph: dict[int, list[int]], data: st.DataObject) -> None:
    sol = solve_game_graph(graph)
    positions = list(sol.grundy)
    components = data.draw(st.lists(st.sampled_from(positions), max_size=4)) if positions else []
    total = sol.sum_grundy(components)
    assert total == nim_sum(recursive_grundy(graph)[c] for c in components)
    moves = sol.winning_moves(components)
    expected = [SumMove(component=i, source=c, target=f)
                for i, c in enumerate(components) for f in sol.followers[c]
                if sol.sum_grundy(components[:i] + [f] + components[i + 1:]) == 0]
    assert moves == expected
    assert (moves == []) == (total == 0)  # none exactly from P-positions
    assert sol.sum_outcome(components) == ("P" if total == 0 else "N")


# ---------------------------------------------------------------------------
# big graphs: no recursion


def test_path_of_a_million_positions() -> None:
    n = 10**6
    path = {i: [i + 1] for i in range(n - 1)}  # deepest first: the worst case for a DFS
    sol = solve_game_graph(path)  # quadratic behaviour would take hours: CI's timeout
    assert len(sol) == n
    assert sol.grundy[n - 1] == 0 and sol.grundy[0] == (n - 1) % 2 == 1
    assert sol.outcome(0, misere=True) == "P"  # an odd number of moves to the sink


def test_long_cycle_is_found_without_recursion() -> None:
    n = 200_000
    with pytest.raises(GraphCycleError) as info:
        solve_game_graph({i: [(i + 1) % n] for i in range(n)})
    assert len(info.value.cycle) == n + 1
    assert "(199989 more)" in str(info.value) and len(str(info.value)) < 200


# ---------------------------------------------------------------------------
# bad graphs


@pytest.mark.parametrize(("graph", "cycle"), [
    ({"x": ["x"]}, "x -> x"),
    ({"x": ["y"], "y": ["x"]}, "x -> y -> x"),
    ({"r": ["s", "x"], "s": [], "x": ["y"], "y": ["z"], "z": ["w", "x"]}, "x -> y -> z -> x"),
    ({1: [2], 2: [3], 3: [1]}, "1 -> 2 -> 3 -> 1"),
])
def test_cycles_are_input_errors_naming_the_cycle(
        graph: dict[Hashable, list[Hashable]], cycle: str) -> None:
    for solver in (solve_game_graph, grundy_values, outcomes):
        with pytest.raises(GraphCycleError) as info:
            solver(graph)
        assert str(info.value) == f"the game graph has a cycle {cycle}"
        assert isinstance(info.value, GameGraphError) and isinstance(info.value, ValueError)
        assert info.value.cycle[0] == info.value.cycle[-1]


@pytest.mark.parametrize(("graph", "message"), [
    (["x", "y"], "must be a mapping"),
    ("x", "must be a mapping"),
    ({"x": "yz"}, "followers of position x must be a list"),
    ({"x": 3}, "followers of position x must be a list"),
    ({"x": [["y"]]}, r"follower \['y'\] of position x is not hashable"),
    ({"x": ["y", ("z", [])]}, "is not hashable"),
])
def test_bad_graphs(graph: object, message: str) -> None:
    with pytest.raises(GameGraphError, match=message):
        solve_game_graph(graph)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# JSON


def test_load_examples() -> None:
    sub = solve_game_graph_file(GRAPHS / "subtraction_123.json")
    assert dict(sub.grundy) == {str(n): n % 4 for n in range(12, -1, -1)}
    assert load_game_graph(GRAPHS / "subtraction_123.json")["3"] == ("2", "1", "0")
    nim = solve_game_graph_file(GRAPHS / "nim_heaps.json")
    assert dict(nim.grundy) == {f"h{n}": n for n in range(4, -1, -1)}
    dag = solve_game_graph_file(GRAPHS / "dag.json")
    assert dag.outcome("a") == "N" and dag.outcome("b") == "P"
    for path in GRAPHS.glob("*.json"):
        assert solve_game_graph(load_game_graph(path)) == solve_game_graph_file(path)


@pytest.mark.parametrize(("text", "message", "line"), [
    ('{"positions": {\n"x": ["y",]}}', r"invalid JSON: Expecting value \(column 11\)", 2),
    ("", "invalid JSON", 1),
    ('["x"]', "must be a JSON object", 1),
    ('{"position": {}}', "unknown key 'position'", 1),
    ('{"description": "d"}', "missing key 'positions'", 1),
    ('{\n"description": 3,\n"positions": {}}', "'description' must be a string", 2),
    ('{\n"positions": [["x", "y"]]}', "'positions' must be an object", 2),
    ('{"positions": {\n"x": ["y"],\n"y": "z"}}', "followers of position 'y' must be a list, "
                                                  "not a string", 3),
    ('{"positions": {\n"x": [],\n"y": ["z", 1]}}', "follower 1 of position 'y' must be a string",
     3),
    ('{"positions": {\n"x": [],\n"x": ["y"]}}', "duplicate key 'x'", 3),
    ('{"positions": {\n"a": [],\n"x": ["y"],\n"y": ["x"]}}',
     "the game graph has a cycle x -> y -> x", 3),
    ('{"positions": {\n"x": ["positions"],\n"positions": ["x"]}}',
     "cycle x -> positions -> x", 2),
])
def test_json_errors_are_located(text: str, message: str, line: int) -> None:
    with pytest.raises(GameGraphError, match=message) as info:
        game_graph_from_json(text, source="g.json")
    assert info.value.source == "g.json" and info.value.line == line
    assert str(info.value).startswith(f"g.json:{line}: ")


def test_json_graph() -> None:
    text = '{"description": "é", "positions": {"x": ["y", "z", "y"], "é": ["x"]}}'
    assert game_graph_from_json(text) == {"x": ("y", "z"), "é": ("x",), "y": (), "z": ()}


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_game_graph(tmp_path / "missing.json")
    with pytest.raises(InputError, match="is a directory"):
        solve_game_graph_file(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"positions": {"\xff": []}}')
    with pytest.raises(InputError, match="not UTF-8"):
        load_game_graph(bad)
    cyc = tmp_path / "cyc.json"
    cyc.write_text(json.dumps({"positions": {"x": ["y"], "y": ["x"]}}, indent=1))
    for loader in (load_game_graph, solve_game_graph_file):
        with pytest.raises(GraphCycleError) as info:
            loader(cyc)
        assert str(info.value) == f"{cyc}:3: the game graph has a cycle x -> y -> x"


def test_json_deep_nesting_bom_and_long_numbers_are_clean(tmp_path: Path) -> None:
    n = 100_000
    with pytest.raises(GameGraphError, match="nested more than 32 levels"):
        game_graph_from_json('{"positions": {"x": ' + "[" * n + "]" * n + "}}")
    with pytest.raises(GameGraphError, match="digits"):
        game_graph_from_json('{"positions": {"x": [' + "7" * 5000 + "]}}")
    with pytest.raises(GameGraphError, match=r"follower an array of position 'x'"):
        game_graph_from_json('{"positions": {"x": [' + "[" * 20 + "]" * 20 + "]}}")
    path = tmp_path / "g.json"
    path.write_bytes(b'\xef\xbb\xbf{"positions": {"x": ["y"]}}')
    assert load_game_graph(path) == {"x": ("y",), "y": ()}
