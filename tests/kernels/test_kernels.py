"""The engine choice of :mod:`sdg_automata.kernels` (the kernels themselves are tested
beside the engines that use them, against their Python references)."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sdg_automata import kernels
from sdg_automata.errors import InputError
from sdg_automata.runtime import engines


def test_engines_are_the_literal() -> None:
    assert engines.ENGINES == ("auto", "compiled", "python")
    for e in engines.ENGINES:
        assert engines.check_engine(e) == e
    with pytest.raises(InputError, match="unknown engine 'fast'"):
        engines.check_engine("fast")


@pytest.mark.parametrize("native", [False, True])
def test_python_never_and_auto_only_from_the_threshold(
        native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should run the kernels from the threshold on, or from a sixteenth of it where they
    are cached as native code (loaded without numba, for a sixteenth of its cost, and then
    whether numba imports does not matter)."""
    from sdg_automata.kernels import native as native_kernels
    from sdg_automata.runtime.engines import NATIVE_GAIN

    monkeypatch.setattr(native_kernels, "cached", lambda library: native)
    lowest = 1600 // NATIVE_GAIN if native else 1600
    assert not engines.use_compiled("python", work=10**9, threshold=1, library="octal")
    assert not engines.use_compiled("auto", work=lowest - 1, threshold=1600, library="octal")
    assert engines.use_compiled("auto", work=lowest, threshold=1600, library="octal") == (
        native or kernels.numba_missing() is None)
    # kernels of no native library keep the threshold
    assert not engines.use_compiled("auto", work=1599, threshold=1600)


def test_without_numba_auto_falls_back_and_compiled_says_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "numba_missing", lambda: "numba cannot be imported (test)")
    assert not engines.use_compiled("auto", work=10**9, threshold=1)
    with pytest.raises(InputError, match="compiled engine needs numba.*--engine python"):
        engines.use_compiled("compiled", work=1, threshold=10)


def test_numba_hidden_is_reported() -> None:
    code = ("import sys; sys.modules['numba'] = None\n"
            "from sdg_automata.kernels import numba_missing\n"
            "print(numba_missing())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert out.startswith("numba cannot be imported (ModuleNotFoundError")


def test_importing_the_package_does_not_import_numba() -> None:
    code = "import sys, sdg_automata, sdg_automata.kernels; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("native", ["0", "1"])
@pytest.mark.parametrize("command_line", [True, False])
def test_the_command_line_loads_numba_without_scipy(command_line: bool, native: str) -> None:
    """A command-line process runs only our kernels, which need no BLAS: numba loads there
    without importing scipy (0.3-0.5 s); a library process keeps numba's BLAS for the
    user's own numba code.  With the kernels linked from the native cache
    (``SDG_AUTOMATA_NATIVE=1``, warm after the first run) the process may not load numba at
    all; where it does, the same holds."""
    pytest.importorskip("scipy", reason="scipy not installed: numba cannot import it anyway")
    pytest.importorskip("numba")
    run = ("from sdg_automata.cli import main; main(['octal', '0.77', '--json', "
           "'--engine', 'compiled'])" if command_line else
           "from sdg_automata.games.octal import OctalGame; "
           "OctalGame.parse('0.77').period(engine='compiled')")
    # what the run itself loaded, read before this probe imports anything
    code = (f"import sys\n{run}\n"
            "numba, scipy = 'numba' in sys.modules, 'scipy' in sys.modules\n"
            "from numba.np import arraymath\n"
            "print('NUMBA', numba, 'SCIPY', scipy, numba and arraymath._HAVE_BLAS, "
            "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "SDG_AUTOMATA_NATIVE": native})
    if command_line:
        assert '"period": 12' in done.stdout  # Kayles: 𝒢 periodic with period 12
    if native == "0":
        assert "NUMBA True" in done.stderr  # numba's dispatchers: the case this is about
    loaded = "NUMBA True" in done.stderr
    want = not command_line and loaded
    assert f"SCIPY {want} {want}" in done.stderr


# -- numba's on-disk cache (issue 28 §5) --------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
#: a command that runs the compiled kernels (octal values and the period's check), and the
#: answer it must give whatever the cache's state
OCTAL = ("octal", "0.77", "--engine", "compiled", "--json")


@functools.cache
def _octal_answer() -> str:
    return subprocess.run([sys.executable, "-m", "sdg_automata", "octal", "0.77", "--engine",
                           "python", "--json"], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout


def _env(**changes: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **changes}
    return {k: v for k, v in env.items() if v is not None and k != "NUMBA_DISABLE_JIT"}


def _run(env: dict[str, str], stderr: int | None = None) -> subprocess.CompletedProcess[str]:
    """The command, with the package found on ``PYTHONPATH`` (the folder it runs in comes
    first on ``sys.path`` under ``-m``: not the checkout)."""
    return subprocess.run([sys.executable, "-m", "sdg_automata", *OCTAL], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=stderr or subprocess.PIPE, timeout=300,
                          cwd=Path(env["PYTHONPATH"]).parent, check=False)


def _falls_back(done: subprocess.CompletedProcess[str], saying: str) -> None:
    """Exit 0, the right answer, one warning line saying ``saying``, no traceback."""
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stdout == _octal_answer()
    assert "compiling kernels" not in done.stderr  # the warning says it
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ") and saying in lines[0], lines


def test_a_read_only_install_without_a_writable_home_compiles_in_memory(
        tmp_path: Path) -> None:
    """Should warn once and compile in memory where numba finds no cache directory: the
    package read-only and no writable home (numba raised RuntimeError, exit 1)."""
    install = tmp_path / "site"
    shutil.copytree(ROOT / "sdg_automata", install / "sdg_automata",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # read-only even for root (CI runs as root, whom chmod does not stop): numba's cache
    # beside the sources is kernels/__pycache__, here a file; home is a file too
    (install / "sdg_automata" / "kernels" / "__pycache__").write_text("")
    (tmp_path / "home").write_text("")
    for path in sorted(install.rglob("*"), reverse=True):
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        done = _run(_env(PYTHONPATH=str(install), HOME=str(tmp_path / "home"),
                         XDG_CACHE_HOME=str(tmp_path / "home" / "cache"), NUMBA_CACHE_DIR=None,
                         PYTHONDONTWRITEBYTECODE="1"))
    finally:
        for path in install.rglob("*"):
            path.chmod(path.stat().st_mode | 0o200)
    _falls_back(done, "no writable directory to cache the compiled kernels")
    assert "compiling them in memory" in done.stderr


def test_a_damaged_cache_is_replaced_with_one_warning(tmp_path: Path) -> None:
    """Should warn once, compile again and rewrite the damaged entries, so that the next run
    loads them silently (an UnpicklingError or EOFError traceback on every run before).
    (numba's cache: the native libraries, which would be loaded instead, are off.)"""
    env = _env(NUMBA_CACHE_DIR=str(tmp_path), SDG_AUTOMATA_NATIVE="0")
    assert _run(env).returncode == 0
    index, data = list(tmp_path.rglob("*.nbi")), list(tmp_path.rglob("*.nbc"))
    assert index and data
    for damage in ({f: f.read_bytes()[:20] for f in index},  # truncated: UnpicklingError
                   {f: b"" for f in index},  # empty: EOFError
                   {f: b"garbage\n" for f in data}):  # data files, under a sound index
        for f, text in damage.items():
            f.write_bytes(text)
        _falls_back(_run(env), "is not usable")
        again = _run(env)
        assert again.returncode == 0 and again.stderr == "" and again.stdout == _octal_answer()


def test_a_cache_that_cannot_be_repaired_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should compile in memory when the damaged index cannot be rewritten either."""
    calls: list[str] = []

    class Cache:
        cache_path = "/cache"

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            raise EOFError("Ran out of input")

        def save_overload(self, sig: Any, data: Any) -> None:
            raise PermissionError("read-only")

        def flush(self) -> None:
            raise PermissionError("read-only")

        def disable(self) -> None:
            calls.append("disable")

    class Dispatcher:
        _cache = Cache()

    monkeypatch.setattr(kernels, "_said", set())
    watched = kernels._watched(Dispatcher(), "first run only")
    with pytest.warns(kernels.KernelCacheWarning,
                      match=r"at /cache is not usable \(EOFError: Ran out of input\): "
                            r"compiling them in memory$"):
        assert watched._cache.load_overload("sig", None) is None
    assert calls == ["disable"]
    watched._cache.save_overload("sig", None)  # already warned: once per process
    assert calls == ["disable", "disable"]


def test_a_cache_error_of_several_lines_is_one_warning_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """LLVM's bitcode errors span lines (a .nbc with flipped bytes): the warning is one."""

    class Cache:
        cache_path = "/cache"

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            raise RuntimeError("LLVM bitcode parsing error\nInvalid encoding")

        def save_overload(self, sig: Any, data: Any) -> None: ...

        def flush(self) -> None: ...

    class Dispatcher:
        _cache = Cache()

    monkeypatch.setattr(kernels, "_said", set())
    with pytest.warns(kernels.KernelCacheWarning) as caught:
        assert kernels._watched(Dispatcher(), "x")._cache.load_overload("sig", None) is None
    (warning,) = caught
    assert "\n" not in str(warning.message)
    assert "(RuntimeError: LLVM bitcode parsing error Invalid encoding)" in str(warning.message)


def _on_a_terminal(env: dict[str, str]) -> str:
    """What stderr shows on a terminal (a pseudo-terminal), stdout checked and discarded.
    The terminal is read while the command runs: a cold build's progress display outgrows
    the terminal's buffer, and a writer nobody reads blocks for ever."""
    import pty
    import threading

    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        with contextlib.suppress(OSError):  # EIO once the command has closed it
            while chunk := os.read(leader, 4096):
                chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = _run(env, stderr=follower)
        os.close(follower)
        follower = -1
        reader.join(timeout=60)
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0 and done.stdout == _octal_answer()
    return b"".join(chunks).decode()


def test_compiling_is_said_on_a_cold_cache_only(tmp_path: Path) -> None:
    """Should say 'compiling kernels (first run only)' on a terminal while a cold cache
    compiles (about 6 s that look like a hang), and nothing once the cache is warm, nor in a
    pipe."""
    env = _env(NUMBA_CACHE_DIR=str(tmp_path))
    cold = _on_a_terminal(env)  # with the command's progress display around it
    assert cold.count("compiling kernels (first run only)\r\n") == 1, cold
    assert "compiling" not in _on_a_terminal(env)
    piped = _run(_env(NUMBA_CACHE_DIR=str(tmp_path / "cold")))
    assert piped.returncode == 0 and piped.stderr == ""  # a pipe: nothing


def test_a_second_process_loads_the_search_kernels_without_compiling(tmp_path: Path) -> None:
    """Should load the compiled search's kernels from numba's cache in a later process:
    every kernel numba prepares is loaded, none compiled and saved again (numba's kernels
    run where the native library does not, here switched off, and for dfs and lasso; their
    cache is what spares each run ~6 s of compiling)."""
    from sdg_automata.generators.families import ModularSpec, modular_family
    from sdg_automata.grammar.parse import grammar_to_json

    grammar = tmp_path / "modular.json"
    grammar.write_text(grammar_to_json(modular_family(
        [ModularSpec.parse(s) for s in ("3:0", "5:2", "7:3")])), encoding="utf-8")
    command = [sys.executable, "-m", "sdg_automata", "max", str(grammar), "A", "--engine",
               "compiled", "--strategy", "bfs", "--json"]
    env = {**_env(NUMBA_DEBUG_CACHE="1"), "PYTHONPATH": str(ROOT), "SDG_AUTOMATA_NATIVE": "0"}
    runs = [subprocess.run(command, capture_output=True, text=True, env=env, check=True,
                           timeout=300).stdout for _ in range(2)]
    second = runs[1]
    assert second.count("[cache] data loaded") >= 2, second[-2000:]  # bfs, rehash, ...
    assert "[cache] data saved" not in second, second[-2000:]


def test_kernels_run_without_the_reference_counting_runtime(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should compile the kernels without numba's NRT (:func:`sdg_automata.kernels._options`,
    which every :func:`~sdg_automata.kernels.jit` kernel takes): a kernel reads and writes
    the arrays it is given, as the reference does, and one that allocated is refused when
    it compiles, not run another way."""
    numba = pytest.importorskip("numba")
    if numba.config.DISABLE_JIT:
        pytest.skip("NUMBA_DISABLE_JIT: the kernels run as Python")
    import numpy as np
    from numba.core.errors import TypingError

    from sdg_automata.kernels.packed import key_hash

    monkeypatch.setenv("SDG_AUTOMATA_NUMBA_CACHE", "0")  # nothing cached beside the tests
    assert kernels._options(False).get("_nrt") is False, "this numba has no _nrt option"
    assert key_hash.targetoptions["_nrt"] is False

    def fill(out: Any) -> int:  # writes what it is given: compiles, and equals Python
        for i in range(out.shape[0]):
            out[i] = i * i % 7
        return int(out.sum())

    compiled = kernels.jit(fill)
    got, want = np.zeros(70, dtype=np.int64), np.zeros(70, dtype=np.int64)
    assert compiled(got) == fill(want) == sum(i * i % 7 for i in range(70))
    assert got.tolist() == want.tolist() == [i * i % 7 for i in range(70)]

    def allocate(n: int) -> float:
        return float(np.zeros(n).sum())

    with pytest.raises(TypingError, match="zeros"):
        kernels.jit(allocate)(3)
