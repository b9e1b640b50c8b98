"""The Python examples of the documentation's pages run as written (issue 33 §7).

The guides under ``docs/`` hold the user guide that the README held before, with its
doctests (``>>>`` examples); pytest's ``--doctest-glob`` covers README.md only, so each
page is run here as a doctest file, from the repository's root (the examples name files
under ``examples/``).
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if ">>>" in p.read_text(encoding="utf-8"))


def test_the_guides_have_examples() -> None:
    """Should find the pages that hold examples (a renamed page must not drop them)."""
    names = {p.relative_to(ROOT / "docs").as_posix() for p in PAGES}
    assert {"index.md", "formats.md", "automata.md", "sweeps.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_examples_of_the_page_run_as_written(page: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testfile(str(page), module_relative=False, encoding="utf-8",
                                         optionflags=doctest.ELLIPSIS)
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} examples of {page.name} failed (above)"
