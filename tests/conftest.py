"""Shared fixtures: the grammars of the seed paper's worked examples (SPEC §2)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from sdg_automata.grammar import Grammar

# Timings on shared machines vary too much for per-example deadlines.  On CI the
# examples are derandomized (still hundreds of cases, the same every run), so a red
# build always reproduces; locally every run explores new ones.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="run the CLI fuzz suite (tests/cli/test_fuzz_cli.py) with many more "
                          "cases")


# A shell's background job (CI runners, `cmd &`) starts with SIGINT ignored, and exec'd children
# inherit that, so the tests that send Ctrl-C to a CLI process would wait in vain: restore the
# default here, before any child is started.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

TESTS = Path(__file__).resolve().parent
EXAMPLES = TESTS.parent / "examples"

# test modules import the helpers as ``from strategies import ...``, whether or
# not tests/ is a package (pytest's rootdir insertion differs between the two)
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    """The repository's ``examples/`` directory."""
    return EXAMPLES


@pytest.fixture(scope="session", name="example3")
def _example3() -> Grammar:
    """Example 3: A → aA | aaA | B | a | aa, B → bA | b."""
    from golden import example3

    return example3()


@pytest.fixture(scope="session", name="csub")
def _csub() -> Grammar:
    """CSub (Examples 1/2): A → aA | aaA | bA | a | aa | b."""
    from golden import csub

    return csub()


@pytest.fixture(autouse=True)
def _json_outputs_match_their_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every JSON object a command emits in any in-process test is validated against
    its published schema in ``sdg_automata/schemas/`` (issue 13); tests/cli/test_schemas.py
    checks that every command with a JSON form has one."""
    try:
        import jsonschema  # noqa: F401
    except ImportError:  # the schemas are still checked by test_schemas, which says so
        return
    from schemas import validate, validator

    from sdg_automata.cli import jsonout

    def checked(obj: dict[str, Any]) -> dict[str, Any]:
        out = original(obj)
        if "schema" in out:
            try:
                validator(out["schema"].rpartition("/")[0])
            except KeyError:  # no schema yet: test_schemas reports the command
                return out
            validate(out)
        return out

    original = jsonout.stamped
    for name, module in list(sys.modules.items()):
        if name.startswith("sdg_automata.cli") and getattr(module, "stamped", None) is original:
            monkeypatch.setattr(module, "stamped", checked)
