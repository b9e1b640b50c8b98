"""The package's public surface: every exported name resolves, the CLI entry points run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import sdg_automata


def test_every_exported_name_resolves() -> None:
    """Should resolve every name of ``__all__``, the lazily loaded ones included."""
    for name in sdg_automata.__all__:
        assert getattr(sdg_automata, name) is not None, name


def test_typed_marker_ships() -> None:
    """Should carry PEP 561's ``py.typed`` beside the modules."""
    assert (Path(sdg_automata.__file__).parent / "py.typed").is_file()


def test_python_dash_m_version() -> None:
    """Should answer ``python -m sdg_automata --version`` with the package version."""
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "--version"],
                          capture_output=True, text=True, check=True)
    assert sdg_automata.__version__ in done.stdout
