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


# Imports the package as on a system without the POSIX facilities budget.py and sweep.py use
# (Windows): no `resource`, no `fcntl`, no SIGALRM/setitimer, no /proc; then runs the main
# commands in that interpreter and prints their exit codes and outputs as JSON.
_WITHOUT_POSIX = r"""
import builtins, json, signal, sys, io, contextlib
for name in ("resource", "fcntl"):
    sys.modules[name] = None  # `import resource` now raises ImportError
for name in ("SIGALRM", "setitimer", "ITIMER_REAL"):
    delattr(signal, name)
_open = builtins.open
def _no_proc(file, *args, **kwargs):
    if str(file).startswith("/proc"):
        raise FileNotFoundError(2, "No such file or directory", str(file))
    return _open(file, *args, **kwargs)
builtins.open = _no_proc
import os
os.path.exists = (lambda exists: lambda p: False if str(p).startswith("/proc") else exists(p))(
    os.path.exists)

import sdg_automata
from sdg_automata.runtime.budget import DEGRADED, available_bytes
from sdg_automata.cli import main

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = int(e.code or 0)
    return [code, out.getvalue(), err.getvalue()]

ex = sys.argv[1]
print(json.dumps({
    "degraded": DEGRADED, "available": available_bytes(),
    "max": run("max", f"{ex}/example3.txt", "A", "--json"),
    "grundy": run("grundy", f"{ex}/example3.txt", "A", "aa", "ab"),
    "forward": run("dfa", f"{ex}/example3.txt", "A", "0", "--forward", "--minimal",
                   "--max-seconds", "60"),
    "stopped": run("max", f"{ex}/example3.txt", "A", "--max-states", "3"),
    "sweep": run("sweep", "grammars", "--nonterminals", "1", "--letters", "ab",
                 "--max-rules", "2", "--max-body", "2", "--jobs", "1", "--out", sys.argv[2]),
}))
"""


def test_runs_without_the_posix_modules(tmp_path: Path) -> None:
    """Should import and run its main commands where ``resource``, ``fcntl``, SIGALRM and
    /proc are missing (issue 22 §5), budgets degraded and the command line saying so once."""
    import json
    import os

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(root), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-c", _WITHOUT_POSIX, str(root / "examples"),
                           str(tmp_path / "rows.jsonl")],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert len(got["degraded"]) == 3 and got["available"] is None
    code, out, _ = got["max"]
    assert code == 0 and json.loads(out)["max"] == 2  # SPEC §2, Example 3: m = 2, witness aa
    assert got["grundy"][:2] == [0, "2\n1\n"]
    code, out, err = got["forward"]
    assert code == 0 and "→" in out  # the minimal forward DFA: automata-lib ran under no alarm
    assert err.count("note: budgets are weaker on this system (no SIGALRM") == 1
    assert got["stopped"][0] == 3 and "budget" in got["stopped"][2]
    assert got["sweep"][0] == 0
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert rows and all(r["status"] == "ok" for r in rows)


def test_cluster_extra_serves_the_dask_dashboard() -> None:
    """Should bring bokeh with the ``cluster`` extra (issue 22 §5), so a scheduler's
    dashboard serves its task stream instead of "Dask needs bokeh>=3.1"; loopback only."""
    import urllib.parse
    import urllib.request

    import pytest

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster:
        port = urllib.parse.urlsplit(cluster.dashboard_link).port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks", timeout=30) as page:
            body = page.read().decode()
    assert page.status == 200 and "Bokeh" in body and "Dask needs bokeh" not in body
