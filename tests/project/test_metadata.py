"""The project's published metadata tells the truth (issue 28 §4): its addresses, the
Python versions it claims, and README images that render where the README is read
(PyPI shows README.md without the repository around it, so a relative image is broken
there).

The addresses have one source, pyproject's ``[project.urls]``: CITATION.cff, the README's
images and links, the site's landing page and .readthedocs.yaml are checked against it, and
all of them say that the addresses are placeholders as long as pyproject.toml does (issue
33 §7).  The papers are cited by their arXiv ids.  The Python versions CI tests have one source,
``TESTED_PYTHONS`` in ``.ci/run`` (which stops a CI machine whose ``python3`` is
another version): the classifiers must name exactly those.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


#: how every place that names the project's addresses says they are not confirmed yet
PLACEHOLDER = "placeholders until a maintainer confirms them"
#: the places that name them, besides pyproject.toml
ADDRESSED = ("README.md", "CITATION.cff", ".readthedocs.yaml", "docs/index.md")


def _flat(path: str) -> str:
    """A file's text with its line breaks and comment marks folded into single spaces."""
    text = (ROOT / path).read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"(?m)^\s*#", " ", text)).replace("*", "")


def test_the_project_urls_are_declared_and_cited() -> None:
    urls = _project()["urls"]
    assert urls["Homepage"] == urls["Source"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", urls["Source"])
    assert re.fullmatch(r"https://[\w.-]+/", urls["Documentation"])
    assert {"Paper (DFA construction)", "Paper (i-Mark convergence)"} <= set(urls)
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'\nrepository-code: "{urls["Source"]}"\n' in citation
    assert f'\nurl: "{urls["Documentation"]}"\n' in citation
    # the documentation's address exists because Read the Docs builds docs/ from this file
    rtd = (ROOT / ".readthedocs.yaml").read_text(encoding="utf-8")
    assert "configuration: docs/conf.py" in rtd and "- docs\n" in rtd
    assert urls["Documentation"] in rtd
    assert "docs" in _project()["optional-dependencies"]
    for path in ("README.md", "docs/index.md"):  # the clone command names the repository
        assert f"git clone {urls['Source']} " in (ROOT / path).read_text(encoding="utf-8")


def test_the_addresses_are_marked_as_placeholders_everywhere_or_nowhere() -> None:
    """Should say, wherever the project's addresses appear, that they are placeholders as
    long as pyproject.toml says so (issue 33 §7; a maintainer who confirms them removes
    the mark from every place at once, or this fails)."""
    marked = PLACEHOLDER in _flat("pyproject.toml")
    urls = _project()["urls"]
    for path in ADDRESSED:
        text = (ROOT / path).read_text(encoding="utf-8")
        assert urls["Documentation"] in text or urls["Source"] in text, path
        assert (PLACEHOLDER in _flat(path)) == marked, path


def test_the_papers_are_cited_by_the_identifiers_their_sources_give() -> None:
    """Should cite each paper by its arXiv id, the same in pyproject's URLs, CITATION.cff,
    the README and the site, and give no DOI: none of the sources of issue 33 §7 supports
    the one that was given for the i-Mark paper."""
    urls = _project()["urls"]
    papers = {u.removeprefix("https://arxiv.org/abs/") for k, u in urls.items()
              if k.startswith("Paper")}
    assert all(re.fullmatch(r"\d{4}\.\d{4,5}", p) for p in papers), papers
    assert "2503.23196" in papers  # Nivasch and Rubinstein's convergence technique
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    cited = set(re.findall(r'value: "arXiv:(\d{4}\.\d{4,5})"', citation))
    assert papers <= cited
    assert not re.search(r"(?im)^\s*doi:|\b10\.\d{4,9}/", citation)
    for path in ("README.md", "docs/index.md"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert {p for p in cited if f"arXiv {p}" in text} == cited, path
        assert not re.search(r"\bdoi\b|\b10\.\d{4,9}/", text, re.I), path


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
