"""Start-up: a small command loads only what it runs (issue 18 §4).

Each command's parser, and with it its engine, is built only when that
command runs (:class:`sdg_automata.cli.parser.Commands`).  These tests run the
real ``python -m sdg_automata`` in a subprocess and read the modules it
imported from ``-X importtime`` and from ``sys.modules`` at its exit, so they see what a
user's shell sees.  The
CPU time itself is measured by ``python -m benchmarks bench_startup``, never
asserted here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "example3.json")

#: third-party packages a small command must not load (numba alone takes ~0.5 s)
HEAVY = {"numba", "llvmlite", "numpy", "sympy", "mpmath", "automata", "networkx", "rich",
         "dask", "distributed", "matplotlib", "pygraphviz", "pysat", "pyformlang",
         "concurrent", "multiprocessing"}
#: engines of other commands: ``--help`` loads none of them, ``max`` only its own
ENGINES = {"decide", "construction", "counting", "octal", "imark", "runner", "sweeps",
           "kernels", "play", "render", "gamegraph", "summarize", "families", "periodicity"}


#: ``python -m sdg_automata`` that also lists, at exit, every module it holds: ``-X
#: importtime`` misses those imported by ``importlib.import_module`` (the engines' registry,
#: the native libraries' probe), which bypasses the import statement it times
MAIN = ("import atexit, runpy, sys\n"
        "atexit.register(lambda: print('modules:', *sys.modules, file=sys.__stderr__))\n"
        "runpy.run_module('sdg_automata', run_name='__main__', alter_sys=True)\n")


def loaded(*argv: str) -> set[str]:
    """The modules ``python -m sdg_automata ARGV`` imports (it must exit 0 or 1)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", MAIN, *argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    timed = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", done.stderr, re.M)
    held = re.findall(r"^modules: (.*)$", done.stderr, re.M)
    assert len(held) == 1, done.stderr[-2000:]
    return set(timed) | set(held[0].split())


def top(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def ours(modules: set[str]) -> set[str]:
    """Every name along the paths of our modules but the command line's own
    (sdg_automata.search.decide: search, decide; sdg_automata.cli.octal: nothing)."""
    return {part for m in modules if m.startswith("sdg_automata.")
            and not m.startswith("sdg_automata.cli") for part in m.split(".")[1:]}


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["max", EXAMPLE, "A", "2"],
    ["grundy", EXAMPLE, "A", "ab", "aab"],
    ["check", EXAMPLE, "--json"],
])
def test_small_commands_load_nothing_heavy(argv: list[str]) -> None:
    """Should load no numba, numpy, sympy, automata-lib, rich or process pool."""
    modules = loaded(*argv)
    assert "sdg_automata.cli" in modules  # the command line did run
    assert not top(modules) & HEAVY, sorted(top(modules) & HEAVY)


def test_help_loads_no_engine() -> None:
    """Should list every command without importing any command's engine."""
    modules = loaded("--help")
    assert not ours(modules) & ENGINES, sorted(ours(modules) & ENGINES)


def test_a_command_loads_its_own_engine_only() -> None:
    """Should build only the chosen command's parser: max loads decide, not the others."""
    engines = ours(loaded("max", EXAMPLE, "A", "2")) & ENGINES
    assert "decide" in engines
    assert not engines & {"counting", "octal", "imark", "sweeps", "play", "render"}, engines


def test_a_command_imports_its_own_command_group_only() -> None:
    """Should import, of the command groups (``cli.GROUPS``), the one that registers the
    command run; ``--help`` all of them."""
    from sdg_automata.cli import GROUPS

    every = {f"sdg_automata.cli{m}" for m in GROUPS}
    assert every <= loaded("--help")
    assert loaded("max", EXAMPLE, "A", "2") & every == {"sdg_automata.cli.automata"}
    assert loaded("check", EXAMPLE, "--json") & every == {"sdg_automata.cli.grundy"}


def test_lazy_and_complete_parsers_agree() -> None:
    """Should give each command the same options whether built on demand or at once."""
    from sdg_automata.cli import build_parser
    from sdg_automata.cli.parser import Commands

    def options(parser: object) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}

        def walk(prefix: str, p: object) -> None:
            for action in p._actions:  # type: ignore[attr-defined]
                if isinstance(action, Commands):
                    for name in list(action.choices):
                        walk(f"{prefix} {name}".strip(), action.build(name))
            found[prefix] = sorted(s for a in p._actions  # type: ignore[attr-defined]
                                   for s in a.option_strings)

        walk("", parser)
        return found

    lazy, complete = options(build_parser(lazy=True)), options(build_parser())
    assert lazy == complete
    assert "--format" in lazy["max"] and "--json" in lazy["octal"]  # finish() ran on each


def test_the_package_imports_no_kernel() -> None:
    """Should import no kernel module (nor numba, llvmlite, numpy) with the package."""
    code = "import sys, sdg_automata; print(sorted(m for m in sys.modules if 'kernels' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_each_compiled_command_loads_its_own_kernels(tmp_path: Path) -> None:
    """Should load the octal kernels for octal (as native code, without numba, once they
    are cached: a first run builds them) and the search kernels for max, never the other's."""
    pytest.importorskip("numba")
    octal = ("octal", "0.45", "--engine", "compiled", "--json")
    loaded(*octal)  # builds the native library where it is not cached yet
    modules = loaded(*octal)
    kernels = {m for m in modules if m.startswith("sdg_automata.kernels.")}
    assert "sdg_automata.kernels.octal" in kernels
    assert not kernels & {"sdg_automata.kernels.automaton", "sdg_automata.kernels.step",
                          "sdg_automata.kernels.compact"}, sorted(kernels)
    from sdg_automata.kernels import native

    if native.cached("octal"):  # numba's package not imported (its two C helper modules
        assert "numba" not in modules  # are loaded as files: kernels.native)
    from sdg_automata.generators.families import ModularSpec, modular_family
    from sdg_automata.grammar.parse import grammar_to_json

    grammar = tmp_path / "modular.json"  # one the kernels take (the example is too small)
    grammar.write_text(grammar_to_json(modular_family(
        [ModularSpec.parse(s) for s in ("3:0", "5:2", "7:3")])), encoding="utf-8")
    loaded("max", str(grammar), "A", "--engine", "compiled", "--strategy", "bfs")  # builds
    modules = loaded("max", str(grammar), "A", "--engine", "compiled", "--strategy", "bfs")
    assert "sdg_automata.kernels.bfs_native" in modules
    assert "sdg_automata.kernels.octal" not in modules
    if native.cached("bfs_native"):  # the walk's kernels linked as native code: no numba
        assert not {"numba", "sdg_automata.kernels.automaton"} & modules
    else:
        assert "sdg_automata.kernels.packed" in modules


def test_the_command_line_starts_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should ask OpenBLAS for one thread (numpy starts its pool at import: 0.1 CPU s of
    every command on two cores), unless the user set a number."""
    from sdg_automata.cli import main

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"


#: ``python -m sdg_automata`` that also lists, at exit, every dataclass it defined: a
#: dataclass's generated methods are compiled at import (a few million instructions each)
DATACLASSES = ("import atexit, dataclasses, runpy, sys\n"
               "made = []\n"
               "process = dataclasses._process_class\n"
               "def counted(cls, *args, **kwargs):\n"
               "    made.append(f'{cls.__module__}.{cls.__qualname__}')\n"
               "    return process(cls, *args, **kwargs)\n"
               "dataclasses._process_class = counted\n"
               "atexit.register(lambda: print('dataclasses:', *made, file=sys.__stderr__))\n"
               "runpy.run_module('sdg_automata', run_name='__main__', alter_sys=True)\n")


def test_max_defines_no_class_it_does_not_use() -> None:
    """Should define, for a small search, none of the options classes of the strategies and
    engines that do not run (sat's, pdr's, dask's) nor the rows of ``spectrum``: each is a
    dataclass, whose generated methods cost start-up (issue 33 §4)."""
    done = subprocess.run([sys.executable, "-c", DATACLASSES, "max", EXAMPLE, "A", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    made = re.findall(r"^dataclasses: (.*)$", done.stderr, re.M)
    assert len(made) == 1, done.stderr[-2000:]
    names = {m.rsplit(".", 1)[-1] for m in made[0].split()}
    assert "Verdict" in names  # the count did run
    unused = {n for n in names if n.endswith("Options") or n == "SpectrumRow"}
    assert not unused, sorted(unused)


def test_max_loads_no_implementation_it_does_not_run() -> None:
    """Should, for a small search (bfs on the Python reference), list the registries'
    entries but load none of the other strategies' or engines' implementations: no
    solver encoding, no Dask driver, no compiled search, no kernel, no solver evidence."""
    modules = loaded("max", EXAMPLE, "A", "2")
    assert "sdg_automata.search.strategies.bfs" in modules
    assert "sdg_automata.search.engines" in modules
    unwanted = {m for m in modules if m.startswith((
        "sdg_automata.search.compiled", "sdg_automata.search.bmc", "sdg_automata.search.pdr",
        "sdg_automata.search.circuit", "sdg_automata.search.shard", "sdg_automata.kernels.",
        "sdg_automata.search.strategies.solver_evidence"))}
    assert not unwanted, sorted(unwanted)
