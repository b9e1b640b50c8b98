"""The documentation site builds with warnings as errors and holds what it promises
(issue 22 §2).

``python -m sphinx -E -W --keep-going -b html docs OUT`` runs as CI runs it (the
``docs`` extra, brought by the ``test`` extra); then the pages are read: the
API reference has a page for every module of the package, found by walking
the sources (so a module added without a page fails here), the tutorial page
shows its committed drawings (rendered, never executed), and the guides and
the SPEC are there.

Issue 33 §7, a site that stands alone: no page and no ``--help`` text points into the
README; the guides are pages (their examples run in tests/project/); a name given as users
import it links to where it is documented.

Issue 28 §1, the site standing without the README: the command-line page has every
subcommand of the real parser and the exit codes; the reference by task links every
name of ``sdg_automata.__all__``; no object shows two parameter lists; automata-lib's,
networkx's, numpy's and Python's names link to their sites (through the committed
inventories, checked to be what ``docs/_inventories/make_inventories.py`` writes); no
page shows the checkout's path.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from required import require

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sdg_automata"


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__main__" or any(p.startswith("_") and p != "__init__" for p in parts):
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test session: docs/conf.py regenerates docs/api/ in the
    checkout, so two xdist workers building at once removed each other's pages (a CI run
    failed on "docs/api/sdg_automata.render.plots.rst does not exist").  The workers share
    one build under a lock, in the directory above their own temporary ones."""
    require("sphinx", "numpydoc", "myst_nb", "furo", "sphinxarg", extra="docs")
    base = tmp_path_factory.getbasetemp()
    out = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "docs-site"
    out.mkdir(exist_ok=True)
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        failed = out / "failed.txt"
        if not (out / "html" / "index.html").is_file() and not failed.is_file():
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
            done = subprocess.run([sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going",
                                   "-q", "-b", "html", "-d", str(out / ".doctrees"),
                                   str(ROOT / "docs"), str(out / "html")],
                                  capture_output=True, text=True, env=env, timeout=600,
                                  check=False)
            if done.returncode != 0:
                failed.write_text(done.stderr[-4000:], encoding="utf-8")
        if failed.is_file():
            pytest.fail(f"sphinx-build -W failed:\n{failed.read_text(encoding='utf-8')}")
    return out / "html"


def test_every_module_has_an_api_page(site: Path) -> None:
    """Should document every module, found by autosummary without a list to keep."""
    modules = _modules()
    assert {"sdg_automata.search.decide", "sdg_automata.games.imark.layers",
            "sdg_automata.cli.jsonout"} <= set(modules)
    missing = [m for m in modules if not (site / "api" / f"{m}.html").is_file()]
    assert not missing, f"no API page for {missing}"
    decide = (site / "api" / "sdg_automata.search.decide.html").read_text(encoding="utf-8")
    assert 'id="sdg_automata.search.decide.max_grundy"' in decide  # a numpydoc function, rendered
    assert "pyformlang DFA, NFA or ε-NFA" in decide


def test_absolute_values_render_as_written(site: Path) -> None:
    """Should show |w| and |S| + |D| in the reference (reStructuredText reads them as
    substitutions; docs/conf.py escapes them)."""
    text = (site / "api" / "sdg_automata.automaton.construction.html").read_text(encoding="utf-8")
    assert "O(|w|) after warm-up" in text
    game = (site / "api" / "sdg_automata.games.imark.game.html").read_text(encoding="utf-8")
    assert "|S| + |D|" in game


def test_the_tutorial_page_shows_its_committed_drawings(site: Path) -> None:
    page = (site / "tutorial.html").read_text(encoding="utf-8")
    drawings = re.findall(r'<svg style="max-width: 100%; height: auto"[^>]*>', page)
    assert len(drawings) == 4  # the automaton, M_{A,0}, the forward DFA, the game graph
    assert "GrundyAutomaton: 10 reachable states over {a, b}" in page
    assert "130 grammars; the largest maximum: 2" in page  # an output, as committed


def test_guides_and_the_spec_are_pages(site: Path) -> None:
    for name, words in [("SPEC", "The successful derivation game"),
                        ("octal", "octal periodicity theorem"),
                        ("sweeps", "Where the jobs run"),
                        ("formats", "The JSON format"),
                        ("automata", "Counting Grundy classes"),
                        ("max", "Proofs past k-induction"),
                        ("imark", "convergence technique"),
                        ("design", "Compiled kernels"),
                        ("index", "sdg_automata")]:
        assert words in (site / f"{name}.html").read_text(encoding="utf-8"), name


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_no_page_sends_the_reader_to_the_readme(site: Path) -> None:
    """Should say on the site what the site means (issue 33 §7): no page's text points into
    the README (the JSON Schemas' page is a page of the site, named README.md for the code
    hosts: links to it are markup, not text)."""
    pointing = [p.relative_to(site).as_posix() for p in sorted(site.rglob("*.html"))
                if "README" in _text(p.read_text(encoding="utf-8"))]
    assert not pointing, f"pages that mention the README: {pointing}"


def test_no_help_text_sends_the_reader_to_the_readme() -> None:
    """Should say in --help what --help means: no description, option or epilog of any
    command (octal's survey and verify forms included) points into the README."""
    from sdg_automata.cli import build_parser
    from sdg_automata.cli.octal import SURVEY, VERIFY, form_parser

    root = build_parser()
    parsers = [root]
    for parser in parsers:  # grows as subcommands are found
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += [p for p in dict.fromkeys(action.choices.values()) if p not in parsers]
    octal = next(p for p in parsers if p.prog.endswith(" octal"))
    parsers += [f for f in (form_parser(octal, SURVEY), form_parser(octal, VERIFY)) if f]
    texts = [t for p in parsers for t in (p.description, p.epilog, p.format_help())
             if isinstance(t, str)]
    assert len(parsers) > 20
    assert not [t for t in texts if "README" in t]


def test_names_through_the_package_root_link_where_they_are_defined(site: Path) -> None:
    """Should link a function named as users import it (``sdg_automata.load_grammar``) to
    its documentation in the module that defines it, wherever that module is."""
    import sdg_automata

    for page, name in [("formats", "load_grammar"), ("formats", "solve_game_graph"),
                       ("max", "max_grundy"), ("imark", "imark_grundy")]:
        module = getattr(sdg_automata, name).__module__
        html = (site / f"{page}.html").read_text(encoding="utf-8")
        assert f'href="api/{module}.html#{module}.{name}"' in html, (page, name)


def test_canonical_names_follow_the_objects() -> None:
    """Should find where an object is documented from any name it is reachable by, and
    nothing for a name that does not exist (the site's build warns about such a link)."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from sdg_docs import canonical_name
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    import sdg_automata
    from sdg_automata.games.solution import GraphSolution

    verdict = f"{sdg_automata.Verdict.__module__}.Verdict"
    assert canonical_name("sdg_automata.load_grammar") == \
        f"{sdg_automata.load_grammar.__module__}.load_grammar"
    assert canonical_name("sdg_automata.Verdict") == verdict
    assert canonical_name("sdg_automata.Verdict.witness") == f"{verdict}.witness"  # a property
    assert canonical_name(f"{GraphSolution.__module__}.GraphSolution.grundy") == \
        f"{GraphSolution.__module__}.GraphSolution.grundy"  # a dataclass field, no default
    assert canonical_name("sdg_automata.grammar") == "sdg_automata.grammar"
    assert canonical_name("sdg_automata.no_such_name") is None
    assert canonical_name("sdg_automata.Verdict.no_such_field") is None


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[str]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append(" ".join((*path, name)))
                found += _subcommands(sub, (*path, name))
    return found


def test_the_command_line_page_has_every_subcommand_and_the_exit_codes(site: Path) -> None:
    """Should show every subcommand of the real parser (and octal's survey and verify forms)
    with its options, the exit codes and conventions, and links to the JSON Schemas (issue 28
    §1)."""
    from sdg_automata.cli import build_parser
    from sdg_automata.cli.octal import SURVEY, VERIFY

    page = (site / "cli.html").read_text(encoding="utf-8")
    commands = _subcommands(build_parser()) + [f"octal {SURVEY}", f"octal {VERIFY}"]
    assert {"max", "imark value", "sweep grammars", "octal verify"} <= set(commands)
    missing = [c for c in commands
               if f'<section id="sdg-automata-{c.replace(" ", "-")}">' not in page]
    assert not missing, f"no section for {missing}"
    text = _text(page)
    assert "--max-states" in text and "–max-states" not in text  # options read as typed
    for code, meaning in [("0", "success"), ("1", "the answer is no"),
                          ("2", "usage or input error"), ("3", "a budget or limit ran out"),
                          ("4", "an internal consistency check failed"),
                          ("130", "interrupted (Ctrl-C)"), ("143", "terminated (SIGTERM")]:
        assert f"{code} {meaning}" in text, code
    assert 'href="schemas/README.html' in page  # the JSON Schemas, a page of the site
    assert "sdg_automata/schemas/stopped.json" in text  # where the file ships
    source = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "| 143 | terminated (SIGTERM" in source  # written on the page itself


def test_the_task_reference_lists_every_public_name(site: Path) -> None:
    """Should link every name of sdg_automata.__all__ from the task-grouped reference to
    the place it is documented (a link whose target exists)."""
    import sdg_automata

    page = (site / "reference.html").read_text(encoding="utf-8")
    links = dict((href.rsplit(".", 1)[-1], href) for href in re.findall(
        r'<a class="reference internal" href="(api/[^"#]+\.html#sdg_automata\.[^"]+)"', page))
    names = [n for n in sdg_automata.__all__ if not n.startswith("_")]
    missing = [n for n in names if n not in links]
    assert not missing, f"the reference by task does not list {missing}"
    for name in names:
        target, anchor = links[name].split("#")
        assert f'id="{anchor}"' in (site / target).read_text(encoding="utf-8"), name
    for group in ("Grammars and parsing", "Grundy numbers", "DFA construction", "Max-Grundy",
                  "Counting", "i-Mark", "Impartial games and play", "Octal games", "Sweeps",
                  "Drawing and display", "Errors"):
        assert f"{group}<a class=\"headerlink\"" in page, group


def test_every_object_shows_one_parameter_list(site: Path) -> None:
    """Should show numpydoc's Parameters once per object: autodoc's typehints in the
    description made a second list on every function (max_grundy's showed two)."""
    twice = [chunk[:chunk.index('"')] for page in sorted((site / "api").glob("*.html"))
             for chunk in page.read_text(encoding="utf-8").split(
                 '<dt class="sig sig-object py" id="')[1:]
             if len(re.findall(r'<dt class="field-(?:odd|even)">Parameters<', chunk)) > 1]
    assert not twice, f"two parameter lists: {twice}"
    decide = (site / "api" / "sdg_automata.search.decide.html").read_text(encoding="utf-8")
    chunk = decide.split('id="sdg_automata.search.decide.max_grundy"')[1].split('<dt class="sig')[0]
    assert len(re.findall(r'<dt class="field-(?:odd|even)">Parameters<', chunk)) == 1


def test_other_projects_names_link_to_their_sites(site: Path) -> None:
    """Should link automata-lib's DFA, networkx's DiGraph, numpy's ndarray and Python's
    types to those projects' pages (intersphinx, with the local inventories)."""
    def page(module: str) -> str:
        return (site / "api" / f"sdg_automata.{module}.html").read_text(encoding="utf-8")

    construction = page("automaton.construction")
    dfa = construction.split('id="sdg_automata.automaton.construction.dfa"')[1].split(
        '<dt class="sig')[0]
    assert 'href="https://caleb531.github.io/automata/api/fa/class-dfa/"' in dfa
    decide = page("search.decide")
    max_grundy = decide.split('id="sdg_automata.search.decide.max_grundy"')[1].split(
        '<dt class="sig')[0]
    assert 'href="https://caleb531.github.io/automata/api/fa/class-nfa/"' in max_grundy  # within
    assert 'href="https://networkx.org/documentation/stable/reference/classes/digraph.html' \
           '#networkx.DiGraph"' in page("games.impartial")
    assert 'href="https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html' in \
           page("games.octal.period")
    assert 'href="https://docs.python.org/3/library/stdtypes.html#str"' in decide


def test_no_page_shows_the_checkout_path(site: Path) -> None:
    """Should not show the build machine's paths (the cli page rendered GROUPS, a tuple of
    modules, with their files)."""
    shown = [p.relative_to(site).as_posix() for p in site.rglob("*.html")
             if str(ROOT) in p.read_text(encoding="utf-8")]
    assert not shown, f"{shown} show {ROOT}"


def test_the_committed_inventories_are_what_the_script_writes() -> None:
    """Should ship the inventories of make_inventories.py's table (compared uncompressed:
    zlib's bytes may differ between versions)."""
    import runpy
    import zlib

    script = runpy.run_path(str(ROOT / "docs" / "_inventories" / "make_inventories.py"))

    def lines(data: bytes) -> tuple[bytes, bytes]:
        header = b"".join(data.splitlines(keepends=True)[:4])
        return header, zlib.decompress(data[len(header):])

    for project, (version, entries) in script["INVENTORIES"].items():
        committed = (ROOT / "docs" / "_inventories" / f"{project}.inv").read_bytes()
        assert lines(committed) == lines(script["inventory"](project, version, entries)), project
