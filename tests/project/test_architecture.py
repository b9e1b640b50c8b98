"""docs/architecture.md: its layers are the ones tests/project/test_import_graph.py
enforces, and its "how to add a game" recipe works when followed to the letter (issue 26 §7).

The strategy recipe is followed by tests/search/test_strategy_registry.py (a toy strategy in
one module and one registry line), the engine recipe by
tests/search/test_engine_registry_search.py (a toy engine likewise) and the recipe for a
compiled hot loop by tests/runtime/test_engine_registry.py and this file; this file checks
that the page names those tests, so the recipes and their tests move together.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import recipe_cli
import recipe_engine
import recipe_game
from test_import_graph import LAYERS, ROOT, _imports

from sdg_automata import cli
from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import InputError
from sdg_automata.generators.families import subtraction_grammar
from sdg_automata.runtime import engines

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
TESTS = Path(__file__).resolve().parents[1]


def _section(title: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/architecture.md has no section '## {title}'"
    return match.group(1)


def test_the_page_describes_the_enforced_layers_in_order() -> None:
    """Should have one paragraph per layer, bottom up, as test_import_graph.LAYERS has them."""
    layers = _section("Layers")
    named = re.findall(r"^\d+\. \*\*(.+?)\*\*", layers, re.M)
    expected = [" and ".join(f"`{p}`" for p in sorted(layer)) for layer in LAYERS]
    assert named == expected


@pytest.mark.parametrize(("title", "test"), [
    ("How to add a strategy", "search/test_strategy_registry.py"),
    ("How to add an engine", "search/test_engine_registry_search.py"),
    ("How to compile a hot loop", "project/test_architecture.py"),
    ("How to compile a hot loop", "runtime/test_engine_registry.py"),
    ("How to add a game", "project/test_architecture.py"),
])
def test_each_recipe_names_the_test_that_follows_it(title: str, test: str) -> None:
    assert f"tests/{test}" in _section(title)
    assert (TESTS / test).is_file()


def _layer_of(module: str) -> int:
    rank = {p: k for k, layer in enumerate(LAYERS) for p in layer}
    return rank[module.split(".")[1]]


def test_the_game_module_imports_only_from_its_layer_and_below() -> None:
    """Step 1 of the recipe: the game lives in the games layer and may not reach up."""
    tree = ast.parse(Path(recipe_game.__file__).read_text(encoding="utf-8"))
    ours = [n.module for n, _ in _imports(tree)
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith(ROOT)]
    assert ours, "the recipe's game uses the package"
    games = _layer_of(f"{ROOT}.games")
    assert all(_layer_of(m) <= games and not m.startswith(f"{ROOT}.search") for m in ours)


@pytest.mark.parametrize(("subtraction", "closed_form"), [
    ((1, 2), lambda n: n % 3),
    ((1, 2, 3, 4), lambda n: n % 5),
    ((2, 3), lambda n: n % 5 // 2),  # 0 0 1 1 2, period 5 (Winning Ways, ch. 4)
])
def test_the_game_meets_its_closed_forms(subtraction: tuple[int, ...], closed_form) -> None:  # type: ignore[no-untyped-def]
    values = recipe_game.subtraction_values(subtraction, 200)
    assert values == [closed_form(n) for n in range(201)]


def test_the_game_agrees_with_the_derivation_game_of_its_grammar() -> None:
    """An independent route: A → aᵏA | aᵏ (k ∈ S, 1 ∈ S) plays the same game (SPEC §7)."""
    for subtraction in ((1, 3, 4), (1, 2, 5), (1, 4)):
        g = subtraction_grammar(subtraction)
        values = recipe_game.subtraction_values(subtraction, 24)
        assert values[1:] == [grundy(g, "A", "a" * n) for n in range(1, 25)]


def test_one_groups_entry_puts_the_game_on_the_command_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Step 2 and 3: the command group module and its one line in cli.GROUPS."""
    monkeypatch.setitem(cli.GROUPS, recipe_cli.__name__, ("subtract",))
    assert cli.main(["subtract", "1,2", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"values": [n % 3 for n in range(11)]}
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert re.search(r"^\s+subtract\s+values of a subtraction game$",
                     capsys.readouterr().out, re.M)
    with pytest.raises(SystemExit):
        cli.main(["subtract", "--help"])
    assert "sdg-automata subtract 1,2 10" in capsys.readouterr().out  # its EXAMPLES
    with pytest.raises(SystemExit) as stopped:  # bad input: one error line, exit code 2
        cli.main(["subtract", "0,1", "3"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == "error: a subtraction set holds positive integers\n"


def test_the_engine_recipe_runs_by_the_one_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps 1–3 of "How to compile a hot loop": a reference, a kernel, one threshold entry."""
    pytest.importorskip("numba")
    monkeypatch.setitem(engines.THRESHOLDS, recipe_engine.LOOP, 1000)  # the table's line
    moves = (1, 3, 4)  # period 7: 0 1 0 1 2 3 2 (Winning Ways, ch. 4)
    truth = [(0, 1, 0, 1, 2, 3, 2)[n % 7] for n in range(5001)]
    assert recipe_engine.values(moves, 500) == (truth[:501], "python")  # below: the reference
    assert recipe_engine.values(moves, 5000) == (truth, "compiled")  # beyond: the kernel
    assert recipe_engine.values(moves, 20, "compiled") == (truth[:21], "compiled")
    assert recipe_engine.values(moves, 5000, "python") == (truth, "python")
    with pytest.raises(InputError, match="engine"):
        recipe_engine.values(moves, 5, "fast")  # type: ignore[arg-type]
