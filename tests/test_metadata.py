"""The project's published metadata tells the truth (issue 28 §4): its addresses, the
Python versions it claims, and README images that render where the README is read
(PyPI shows README.md without the repository around it, so a relative image is broken
there).

The addresses have one source, pyproject's ``[project.urls]``: CITATION.cff and the
README's images are checked against it.  The Python versions CI tests have one source,
``TESTED_PYTHONS`` in ``.ci/run`` (which stops a CI machine whose ``python3`` is
another version): the classifiers must name exactly those.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: a Markdown image ``![alt](target)`` or an HTML ``<img src="target">``
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)|<img\b[^>]*\bsrc=[\"']([^\"']+)")


def _project() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project: dict[str, Any] = tomllib.loads(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _raw_base() -> str:
    """The address of the repository's files on the main branch, from the Source URL."""
    source = _project()["urls"]["Source"]
    owner_repo = source.removeprefix("https://github.com/").strip("/")
    assert owner_repo.count("/") == 1, source
    return f"https://raw.githubusercontent.com/{owner_repo}/main/"


def test_the_project_urls_are_declared_and_cited() -> None:
    urls = _project()["urls"]
    assert urls["Homepage"] == urls["Source"] == "https://github.com/sdg-automata/sdg_automata"
    assert urls["Documentation"] == "https://sdg-automata.readthedocs.io/"
    assert {"Paper (DFA construction)", "Paper (i-Mark convergence)"} <= set(urls)
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'\nrepository-code: "{urls["Source"]}"\n' in citation
    assert f'\nurl: "{urls["Documentation"]}"\n' in citation
    # the documentation's address exists because Read the Docs builds docs/ from this file
    rtd = (ROOT / ".readthedocs.yaml").read_text(encoding="utf-8")
    assert "configuration: docs/conf.py" in rtd and "- docs\n" in rtd
    assert "docs" in _project()["optional-dependencies"]


def _site_links(markdown: str, site: str) -> list[str]:
    return re.findall(re.escape(site) + r"[^)\s>,]*", markdown)


def test_readme_links_into_the_site_reach_its_pages() -> None:
    """Should link from the README (the package's page on PyPI) to the documentation site's
    pages absolutely, each a page built from a file of docs/ (a renamed page fails)."""
    site = _project()["urls"]["Documentation"] + "en/latest/"
    links = _site_links((ROOT / "README.md").read_text(encoding="utf-8"), site)
    assert len(links) >= 8
    for link in links:
        page = link.removeprefix(site).split("#")[0].removesuffix(".html") or "index"
        assert any((ROOT / "docs" / f"{page}{s}").is_file() for s in (".md", ".rst", ".ipynb")), \
            link


def _images(markdown: str) -> list[str]:
    return [a or b for a, b in IMAGE.findall(markdown)]


def test_the_image_pattern_finds_both_forms() -> None:
    text = '![a](docs/x.png) <img alt="b" src="https://e.org/y.svg"> [c](docs/z.png)'
    assert _images(text) == ["docs/x.png", "https://e.org/y.svg"]


def test_readme_images_are_absolute_links_to_files_in_the_checkout() -> None:
    """Should link every README image absolutely, to a file that exists here on its path
    (a renamed or deleted image fails)."""
    base = _raw_base()
    images = _images((ROOT / "README.md").read_text(encoding="utf-8"))
    assert images  # the picture of M_{A,0}
    for target in images:
        assert target.startswith(base), f"{target}: not under {base}"
        path = target.removeprefix(base)
        assert (ROOT / path).is_file(), f"{target}: no {path} in the checkout"


def test_the_classifiers_name_the_python_versions_ci_tests() -> None:
    run = ROOT / ".ci" / "run"
    if not run.exists():
        pytest.skip("no .ci/run (not a checkout: an unpacked sdist)")
    tested = re.search(r'^TESTED_PYTHONS="([^"]+)"$', run.read_text(encoding="utf-8"), re.M)
    assert tested, "no TESTED_PYTHONS=\"...\" line in .ci/run"
    versions = set(tested.group(1).split())
    prefix = "Programming Language :: Python :: "
    claimed = {c.removeprefix(prefix) for c in _project()["classifiers"]
               if c.startswith(prefix) and c.removeprefix(prefix)[:1].isdigit()
               and "." in c.removeprefix(prefix)}
    assert claimed == versions, f"classifiers name {sorted(claimed)}, CI tests {sorted(versions)}"
    least = _project()["requires-python"].removeprefix(">=")
    assert all(tuple(map(int, v.split("."))) >= tuple(map(int, least.split(".")))
               for v in versions)
