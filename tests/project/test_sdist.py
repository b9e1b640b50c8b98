"""The source distribution is complete: build it, unpack it, run tests from it (issue 13).

``python -m build --sdist`` (the ``build`` package, in the ``test`` extra) builds
it in an isolated environment, as a package index would.  The unpacked tree
must hold every file of the repository that is under version control (but the
CI script and git's own files) and must pass a subset of the test suite with
the package imported from the unpacked tree itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import sdg_automata

ROOT = Path(__file__).resolve().parents[2]
#: tracked files a source distribution does not need
NOT_SHIPPED = (".ci/", ".gitignore", ".gitattributes", ".github/")
#: what the tests need at the least, checked even outside a git checkout
ESSENTIAL = ("tests/conftest.py", "tests/golden.py", "tests/strategies.py",
             "examples/example3.txt", "examples/dyck.txt", "benchmarks/run.py", "docs/SPEC.md",
             "LICENSE", "README.md", "pyproject.toml", "sdg_automata/py.typed",
             "sdg_automata/cli/__init__.py", "sdg_automata/schemas/max.json")
#: a subset of the suite that touches the examples, the docs, the helpers and the README
SUBSET = ("tests/grammar/test_grammar.py", "tests/project/test_import_graph.py",
          "tests/render/test_render.py", "README.md")


def _tracked() -> set[str] | None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    out = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return {f for f in out.stdout.decode().split("\0") if f and not f.startswith(NOT_SHIPPED)
            and (ROOT / f).exists()}


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build", reason="the sdist test needs the build package (test extra)")
    out = tmp_path_factory.mktemp("sdist")
    # build from a copy: setuptools writes egg-info into the tree it builds
    source = tmp_path_factory.mktemp("source") / "sdg_automata"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
        ".benchmarks", ".venv"))
    # what a used checkout holds beside the sources: byte code and numba's kernel cache
    planted = source / "sdg_automata" / "kernels" / "__pycache__"
    planted.mkdir(exist_ok=True)
    for name in ("octal.run_sparse-144.py311.nbi", "octal.run_sparse-144.py311.1.nbc",
                 "octal.cpython-311.pyc"):
        (planted / name).write_bytes(b"machine-specific")
    done = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out),
                           str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (archive,) = out.glob("sdg_automata-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data") if sys.version_info >= (3, 12) else tar.extractall(out)
    (tree,) = (p for p in out.iterdir() if p.is_dir())
    return tree


def test_the_sdist_ships_every_tracked_file(unpacked: Path) -> None:
    shipped = {str(p.relative_to(unpacked)) for p in unpacked.rglob("*") if p.is_file()}
    assert set(ESSENTIAL) <= shipped, sorted(set(ESSENTIAL) - shipped)
    tracked = _tracked()
    if tracked is not None:
        assert tracked <= shipped, sorted(tracked - shipped)
    assert not [f for f in shipped if "__pycache__" in f or f.endswith(".pyc")]


def test_the_sdist_metadata(unpacked: Path) -> None:
    info = (unpacked / "PKG-INFO").read_text(encoding="utf-8")
    assert f"\nVersion: {sdg_automata.__version__}\n" in info  # single-sourced
    assert "\nLicense-Expression: MIT\n" in info
    assert "Classifier: Typing :: Typed" in info and "Keywords:" in info
    citation = (unpacked / "CITATION.cff").read_text(encoding="utf-8")
    assert f"\nversion: {sdg_automata.__version__}\n" in citation  # the one other copy


def test_the_wheel_built_from_the_sdist_holds_every_subpackage(unpacked: Path,
                                                               tmp_path: Path) -> None:
    """Should hold every module, py.typed and the JSON Schemas (issue 28 §4: --json users
    have them), and not the examples, which the README says need a checkout."""
    import zipfile

    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path),
                           str(unpacked)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (wheel,) = tmp_path.glob("sdg_automata-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "sdg_automata").rglob("*.py")}
    assert sources <= names, sorted(sources - names)  # e.g. sdg_automata/cli/ (a subpackage)
    assert "sdg_automata/py.typed" in names
    schemas = {str(p.relative_to(ROOT)) for p in (ROOT / "sdg_automata" / "schemas").iterdir()}
    assert len(schemas) >= 20 and schemas <= names, sorted(schemas - names)
    assert not [n for n in names if n.startswith("examples/") or "/examples/" in n]
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc", ".pyc"))]
    metadata = next(zipfile.ZipFile(wheel).read(n).decode() for n in names
                    if n.endswith(".dist-info/METADATA"))
    # the README (the wheel's description) says plainly that examples/ needs a checkout
    assert "examples/`: grammars and game graphs) are in the repository and its\nsource " \
           "distribution, not in the wheel" in metadata
    assert "Project-URL: Documentation, https://sdg-automata.readthedocs.io/" in metadata
    assert "Classifier: Programming Language :: Python :: 3.11" in metadata


def test_tests_run_from_the_unpacked_sdist(unpacked: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    code = "import sdg_automata; print(sdg_automata.__file__)"
    where = subprocess.run([sys.executable, "-c", code], cwd=unpacked, env=env,
                           capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).is_relative_to(unpacked)  # not this checkout's copy
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-p", "no:cacheprovider",
                           *SUBSET], cwd=unpacked, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "error" not in summary and "failed" not in summary, summary
    assert int(summary.split()[0]) > 50, summary
