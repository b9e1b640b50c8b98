"""The documentation site builds with warnings as errors and holds what it promises
(issue 22 §2).

``python -m sphinx -E -W --keep-going -b html docs OUT`` runs as CI runs it (the
``docs`` extra, brought by the ``test`` extra); then the pages are read: the
API reference has a page for every module of the package, found by walking
the sources (so a module added without a page fails here), the tutorial page
shows its committed drawings (rendered, never executed), and the guides and
the SPEC are there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from required import require

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parent.parent
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
    require("sphinx", "numpydoc", "myst_nb", "furo", extra="docs")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q",
                           "-b", "html", "-d", str(out / ".doctrees"), str(ROOT / "docs"),
                           str(out / "html")], capture_output=True, text=True, env=env,
                          timeout=600, check=False)
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stderr[-4000:]}"
    return out / "html"


def test_every_module_has_an_api_page(site: Path) -> None:
    """Should document every module, found by autosummary without a list to keep."""
    modules = _modules()
    assert {"sdg_automata.decide", "sdg_automata.imark.layers", "sdg_automata.cli.common"} <= set(
        modules)
    missing = [m for m in modules if not (site / "api" / f"{m}.html").is_file()]
    assert not missing, f"no API page for {missing}"
    decide = (site / "api" / "sdg_automata.decide.html").read_text(encoding="utf-8")
    assert 'id="sdg_automata.decide.max_grundy"' in decide  # a numpydoc function, rendered
    assert "pyformlang DFA, NFA or ε-NFA" in decide


def test_absolute_values_render_as_written(site: Path) -> None:
    """Should show |w| and |S| + |D| in the reference (reStructuredText reads them as
    substitutions; docs/conf.py escapes them)."""
    text = (site / "api" / "sdg_automata.construction.html").read_text(encoding="utf-8")
    assert "O(|w|) after warm-up" in text
    game = (site / "api" / "sdg_automata.imark.game.html").read_text(encoding="utf-8")
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
                        ("index", "sdg_automata")]:
        assert words in (site / f"{name}.html").read_text(encoding="utf-8"), name
