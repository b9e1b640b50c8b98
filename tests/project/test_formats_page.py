"""docs/formats.md cannot go stale (issue 33 §7).

Every example file on the page is written out under the name in its caption and read by
the command shown with it; every command is run and must print what the page shows; the
JSON examples must agree with the schemas that ship with the package; and each kind of
file is checked against a reading that owes nothing to the package's own: Python's ``re``
for the constraints, the definition of 𝒢 (brute force over every short word) for the
answers of ``max`` and ``grundy``, and a mex written here for the game graphs.  A block the
page adds that none of this covers fails :func:`test_every_block_on_the_page_is_checked`.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

import pytest
from clirun import run
from schemas import validator

from sdg_automata import load_grammar, naive_grundy

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "formats.md"
#: a fenced block of the page: the text after the backticks, then the body
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
OPTION = re.compile(r"^:(\w+):[ \t]*(.*)$")
#: the kinds of example file, by the prefix of the block's ``:name:``
KINDS = ("grammar-text-", "grammar-json-", "graph-", "dfa-", "words-")
#: what each DFA file on the page accepts, as a Python regular expression over {a, b}: the
#: language its name announces (a new DFA example needs its line here)
DFA_LANGUAGES = {"ends-in-b.json": r"[ab]*b", "starts-with-a.json": r"a[ab]*"}
#: words this long and shorter are enumerated (over {a, b}) by the brute-force checks
LENGTH = 7


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, the options of a ``{code-block}`` and its text."""

    lang: str
    directive: bool
    options: dict[str, str] = field(default_factory=dict)
    text: str = ""

    @property
    def kind(self) -> str | None:
        name = self.options.get("name", "")
        return next((k for k in KINDS if name.startswith(k)), None)


def _blocks() -> list[Block]:
    blocks = []
    for m in FENCE.finditer(PAGE.read_text(encoding="utf-8")):
        info, lines = m["info"].strip(), m["body"].split("\n")
        options: dict[str, str] = {}
        directive = info.startswith("{code-block}")
        if directive:
            while lines and (option := OPTION.match(lines[0])):
                options[option[1]] = option[2]
                lines.pop(0)
            if lines and not lines[0]:
                lines.pop(0)
        lang = info.removeprefix("{code-block}").strip()
        blocks.append(Block(lang, directive, options, "\n".join(lines).rstrip("\n") + "\n"))
    return blocks


BLOCKS = _blocks()
FILES = {b.options["caption"]: b for b in BLOCKS if b.kind is not None}


def _commands() -> Iterator[tuple[str, list[str]]]:
    """Each ``$ command`` of the console blocks with the lines shown under it."""
    for block in (b for b in BLOCKS if b.lang == "console"):
        command: tuple[str, list[str]] | None = None
        for line in block.text.rstrip("\n").split("\n"):
            if line.startswith("$ "):
                if command is not None:
                    yield command
                command = (line[2:], [])
            else:
                assert command is not None, f"output before any command: {line!r}"
                command[1].append(line)
        if command is not None:
            yield command


COMMANDS = list(_commands())


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _words(upto: int = LENGTH) -> Iterator[str]:
    for n in range(1, upto + 1):
        yield from ("".join(w) for w in product("ab", repeat=n))


def test_the_page_has_examples_of_every_kind() -> None:
    assert {b.kind for b in FILES.values()} == set(KINDS)
    assert len(COMMANDS) >= 15
    assert len(FILES) == len([b for b in BLOCKS if b.kind is not None])  # captions unique


def test_every_block_on_the_page_is_checked() -> None:
    """Should find no block that no test reads: each is an example file of a known kind, a
    console block (run below) or a Python block of doctests (tests/project/test_doc_examples.py)."""
    unchecked = [b.text[:60] for b in BLOCKS
                 if not (b.lang == "console" or (b.lang == "python" and ">>>" in b.text)
                         or (b.directive and b.kind is not None and "caption" in b.options))]
    assert not unchecked, f"blocks no test reads: {unchecked}"


def test_every_file_is_read_by_a_command_on_the_page() -> None:
    used = {arg for command, _ in COMMANDS for arg in shlex.split(command)}
    assert not set(FILES) - used, f"files no command reads: {sorted(set(FILES) - used)}"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding every file of the page and the repository's examples/."""
    for name, block in FILES.items():
        (tmp_path / name).write_text(block.text, encoding="utf-8")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("command", "shown"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_each_command_prints_what_the_page_shows(command: str, shown: list[str], workdir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    argv = shlex.split(command)
    assert argv[0] == "sdg-automata"
    code, out, err = run(argv[1:], capsys)
    assert _lines(out) + _lines(err) == shown  # stdout, then stderr
    assert code == (2 if any(line.startswith("error:") for line in _lines(err)) else 0)


def test_the_json_examples_agree_with_the_shipped_schemas(workdir: Path) -> None:
    """Should validate every grammar the parser accepts against schemas/grammar.json, and
    every DFA file against schemas/dfa.json; a key the parser refuses, the schema too."""
    validated = 0
    for name, block in FILES.items():
        if block.lang != "json":
            continue
        data = json.loads(block.text)
        if block.kind == "dfa-":
            validator("dfa").validate(data)
            validated += 1
        elif block.kind == "grammar-json-":
            try:
                load_grammar(name)
            except ValueError as e:
                if "unknown key" in str(e):
                    assert not validator("grammar").is_valid(data), name
                continue
            validator("grammar").validate(data)
            validated += 1
    assert validated >= 3


def test_the_grammar_examples_are_example3_with_a_letter_more(workdir: Path) -> None:
    text, js = load_grammar("example3.txt"), load_grammar("example3.json")
    bundled = load_grammar(ROOT / "examples" / "example3.txt")
    assert text == js
    assert text.rules == bundled.rules and text.start == bundled.start
    assert set(text.terminals) == set(bundled.terminals) | {"c"}


def _python_regex(within: str) -> str:
    """An automata-lib expression over {a, b} as a Python one (`.` is any letter)."""
    return within.replace(".", "[ab]")


def _language(within: str) -> set[str]:
    """The words up to LENGTH of a constraint, as the package reads it (no grammar in the
    way): a DFA file through automata-lib, an expression through its constraint tables."""
    if within.endswith(".json"):
        from sdg_automata.render import dfa_from_json

        dfa = dfa_from_json(Path(within).read_text(encoding="utf-8"), source=within)
        return {w for w in _words() if dfa.accepts_input(w)}
    from sdg_automata.search.constraint import constraint

    tables = constraint(within, ("a", "b"), reverse=False)  # reads w itself
    accepted = set()
    for w in _words():
        state = tables.initial
        for letter in w:
            state = tables.rows[letter][state] if state >= 0 else -1
        if state >= 0 and tables.final[state]:
            accepted.add(w)
    return accepted


def _withins() -> list[tuple[str, str, str]]:
    """(the --within argument, the grammar, the output line) of each max command."""
    found = []
    for command, shown in COMMANDS:
        argv = shlex.split(command)
        if argv[1] == "max" and "--within" in argv:
            found.append((argv[argv.index("--within") + 1], argv[2], shown[0]))
    return found


def test_the_constraints_mean_what_python_reads_in_them(workdir: Path) -> None:
    """Should read each --within of the page as Python's re reads the same expression (and
    each DFA file as the language its name says), on every word over {a, b} up to 7."""
    withins = _withins()
    assert len(withins) >= 4
    assert {w for w, _, _ in withins if w.endswith(".json")} == set(DFA_LANGUAGES)
    for within, _, _ in withins:
        pattern = DFA_LANGUAGES.get(within) or _python_regex(within)
        expected = {w for w in _words() if re.fullmatch(pattern, w)}
        assert _language(within) == expected, within


def test_each_max_shown_is_the_brute_force_maximum(workdir: Path) -> None:
    """Should print, for each --within, the largest 𝒢 of the definition over the words of
    both languages and a shortest word that reaches it (words up to 7 letters: Example 3's
    values are at most 2, reached by words of at most 4)."""
    for within, grammar, line in _withins():
        answer = re.fullmatch(r"max (\d+), witness '(\w+)' \(\d+ states explored\)", line)
        assert answer, line
        g = load_grammar(grammar)
        values = {w: naive_grundy(g, "A", w) for w in _language(within)}
        reached = {w: v for w, v in values.items() if v is not None}
        best = max(reached.values())
        assert int(answer[1]) == best, within
        witness = answer[2]
        assert reached.get(witness) == best
        assert len(witness) == min(len(w) for w, v in reached.items() if v == best)


def test_the_word_list_answers_are_the_definitions(workdir: Path) -> None:
    """Should answer the n-th line of the word list with 𝒢 of the n-th word, by the
    definition (a blank line is the empty word, never a position)."""
    [words] = [b.text for b in FILES.values() if b.kind == "words-"]
    lines = words.rstrip("\n").split("\n")
    [(command, shown)] = [(c, s) for c, s in COMMANDS
                          if "--words-from" in c and "--json" not in c]
    grammar = load_grammar(shlex.split(command)[2])
    answers = [line for line in shown if not line.startswith("warning:")]
    expected = [naive_grundy(grammar, "A", w.strip()) if w.strip() else None for w in lines]
    assert answers == ["not a position" if v is None else str(v) for v in expected]


def _by_definition(graph: dict[str, list[str]]) -> tuple[dict[str, int], dict[str, bool]]:
    """Grundy values (the mex of the followers' values) and misère wins (the player who
    cannot move wins) of every position, by the definitions; a follower with no entry is
    a sink."""
    values: dict[str, int] = {}
    wins: dict[str, bool] = {}

    def solve(p: str) -> None:
        if p in values:
            return
        followers = graph.get(p, [])
        for q in followers:
            solve(q)
        seen = {values[q] for q in followers}
        values[p] = next(v for v in range(len(seen) + 1) if v not in seen)
        wins[p] = not followers or any(not wins[q] for q in followers)

    for p in list(graph) + [q for fs in graph.values() for q in fs]:
        solve(p)
    return values, wins


def test_the_game_graphs_are_solved_as_the_definitions_say(workdir: Path) -> None:
    """Should read each shape of graph as the graph it spells, and give each acyclic one
    the Grundy values and misère outcomes of the definitions (written here)."""
    from sdg_automata import GraphCycleError, solve_game_graph
    from sdg_automata.games.graphfile import load_game_graph

    solved = 0
    for name in (n for n, b in FILES.items() if b.kind == "graph-"):
        data = json.loads(FILES[name].text)
        if "nodes" in data:  # node-link: the edges as written
            spelled: dict[str, list[str]] = {}
            for e in data["edges"]:
                spelled.setdefault(e["source"], []).append(e["target"])
        else:
            spelled = data.get("positions", data)
        try:
            solution = solve_game_graph(load_game_graph(name))
        except GraphCycleError:
            continue  # refused: the page shows its error line, checked above
        assert (dict(solution.grundy), dict(solution.misere_win)) == _by_definition(spelled)
        solved += 1
    assert solved >= 3
