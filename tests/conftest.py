"""Shared fixtures: the grammars of the seed paper's worked examples (SPEC §2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sdg_automata.grammar import Grammar

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
