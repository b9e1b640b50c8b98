"""Every public name documents itself, with examples that run (issue 28 §1).

The public functions and classes are the callables of ``sdg_automata.__all__`` (the
exceptions have their own page section, "Errors", and no examples).  Each docstring has
numpydoc sections, parsed by numpydoc itself:

* a function: Parameters, Returns, Raises and Examples; Raises may be left out only by the
  functions of :data:`RAISES_NOTHING`, which raise nothing on arguments of their types;
* a class: Parameters (what the constructor takes) or Attributes (a result the package
  builds, such as ``Verdict``), and Examples.

So a name added to ``__all__`` without them fails here.  The Examples are doctests, run
here from the repository's root (they read ``examples/``) on the docstring of the name
itself, and they must not be empty; pytest's ``--doctest-modules`` runs them too, but
this test does not depend on that option.  ``test_a_wrong_example_fails`` shows that the
runner used here does fail on a wrong expected output.  The landing page's Python lines
(``docs/index.md``) are doctests as well.
"""

from __future__ import annotations

import doctest
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
from required import require

import sdg_automata

ROOT = Path(__file__).resolve().parents[2]

#: functions that raise nothing on arguments of their types: no Raises section
RAISES_NOTHING = {
    "mex": "ignores what is not a natural number",
    "nim_sum": "the XOR of any ints",
    "grammar_to_text": "every Grammar has a text form",
    "grammar_to_json": "every Grammar has a JSON form",
}


def _public() -> dict[str, Any]:
    return {name: getattr(sdg_automata, name) for name in sdg_automata.__all__
            if callable(getattr(sdg_automata, name))
            and not (inspect.isclass(getattr(sdg_automata, name))
                     and issubclass(getattr(sdg_automata, name), BaseException))}


PUBLIC = _public()


def test_the_public_names_are_the_expected_ones() -> None:
    """Should find the ~30 public functions and classes (the list below cannot go empty)."""
    assert len(PUBLIC) >= 30
    assert {"max_grundy", "dfa", "Grammar", "OctalGame", "Verdict", "mex"} <= set(PUBLIC)
    assert set(RAISES_NOTHING) <= set(PUBLIC)


def _sections(obj: Any) -> dict[str, Any]:
    require("numpydoc", extra="docs")
    from numpydoc.docscrape import NumpyDocString

    parsed = NumpyDocString(inspect.getdoc(obj) or "")
    return {name: parsed[name] for name in
            ("Parameters", "Attributes", "Returns", "Raises", "Examples")}


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_docstring_has_the_numpydoc_sections(name: str) -> None:
    obj = PUBLIC[name]
    sections = _sections(obj)
    if inspect.isclass(obj):
        needed = ["Examples"] + ([] if sections["Attributes"] else ["Parameters"])
    else:
        needed = ["Parameters", "Returns", "Examples"]
        if name not in RAISES_NOTHING:
            needed.append("Raises")
    missing = [s for s in needed if not sections[s]]
    assert not missing, f"{name}'s docstring has no {', '.join(missing)} section"
    if not inspect.isclass(obj):
        documented = {n.strip().rstrip(":") for p in sections["Parameters"]
                      for n in p.name.split(",")}
        taken = {p for p in inspect.signature(obj).parameters}
        assert taken <= documented, f"{name} does not document {sorted(taken - documented)}"


def _doctests(name: str) -> list[doctest.DocTest]:
    obj = PUBLIC[name]
    module = sys.modules[obj.__module__]
    return [t for t in doctest.DocTestFinder(recurse=False).find(
        obj, name, module=module, globs=dict(vars(module))) if t.examples]


def _run(tests: list[doctest.DocTest]) -> tuple[doctest.TestResults, str]:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    for test in tests:
        runner.run(test, out=out.append)
    return runner.summarize(verbose=False), "".join(out)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_examples_run_and_hold(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    tests = _doctests(name)
    assert tests, f"{name} has no doctest example"
    results, report = _run(tests)
    assert results.failed == 0, report


def test_a_wrong_example_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should fail a doctest whose expected output is wrong (mex([0, 1, 3]) is 2, not 3)."""
    monkeypatch.chdir(ROOT)
    [test] = _doctests("mex")
    first = next(e for e in test.examples if e.source.startswith("mex([0, 1, 3])"))
    assert first.want == "2\n"
    first.want = "3\n"
    results, report = _run([test])
    assert results.failed == 1 and "Expected:\n    3\nGot:\n    2" in report


def test_the_landing_page_examples_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/index.md", "docs/index.md", 0)
    assert len(test.examples) >= 3
    results, report = _run([test])
    assert results.failed == 0, report

