"""What a test needs that a developer may lack, and CI never does: ``require(...)``."""

from __future__ import annotations

import importlib.util
import os
from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    """Skip, saying why; under CI (``CI`` set), fail instead: CI must run every test."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this test, but {reason}")
    pytest.skip(reason)


def require(*modules: str, extra: str) -> None:
    """:func:`unavailable` unless every module can be imported (from the ``extra``)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        unavailable(f"{', '.join(missing)} not installed (pip install '.[{extra}]')")


def require_abc() -> str:
    """ABC's executable (the pdr strategy's), or :func:`unavailable`."""
    from sdg_automata.errors import InputError
    from sdg_automata.search.pdr import abc_command

    try:
        return abc_command()
    except InputError as e:
        unavailable(str(e))
