"""Native kernel libraries (:mod:`sdg_automata.kernels.native`), issue 36 §4.

The octal kernels compiled once to native code must be the same functions as numba's
dispatchers (every entry point, every value type, the arrays they write), load in a
later process without numba, and cost at most one warning line when their file is
damaged or cannot be built, never an answer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sdg_automata import kernels
from sdg_automata.errors import KernelCacheWarning, SdgBug
from sdg_automata.games.octal import OctalGame, naive_values
from sdg_automata.games.octal.space import SparseSpace, detect_space, rare_heaps
from sdg_automata.kernels import native, octal, octal_check
from sdg_automata.kernels.native import ENV

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not native.enabled(),
                                reason="native libraries off here (NUMBA_DISABLE_JIT, "
                                       "SDG_AUTOMATA_NATIVE=0 or no numba cache)")


def _native(library: native.Library) -> dict[str, Any]:
    """The library's native entry points (built in the default cache when missing)."""
    functions = library.functions()
    jitted = library.jitted()
    if any(f is jitted[e.function]
           for e, f in zip(library.entries, functions.values(), strict=True)):
        pytest.skip("no native library on this machine (numba's dispatchers run)")
    return functions


def _jitted(library: native.Library) -> dict[str, Any]:
    jitted = library.jitted()
    return {e.name: jitted[e.function] for e in library.entries}


# -- the same functions ------------------------------------------------------------------


def _state(code: str, n: int, dtype: Any) -> dict[str, Any]:
    """An engine's arrays after n values of ``code`` (by the definition), as ``dtype``."""
    game = OctalGame.parse(code)
    g = np.zeros(4 * n, dtype=dtype)
    g[:n] = naive_values(game, n)
    # a mask found in the values, or the plain parity one (exact too, only slower)
    space = detect_space(g[:n], game.splits) or SparseSpace(mask=1, positional=False,
                                                            rare_parity=0, rare=0)
    rare = np.zeros(4 * n, dtype=np.int64)
    found = rare_heaps(g[:n], space, int(g[:n].max()).bit_length())
    rare[:len(found)] = found
    terminal = np.zeros(game.t + 1, dtype=np.bool_)
    terminal[list(game.removals(1))] = True
    return {"g": g, "n": n, "rare": rare, "count": len(found), "space": space,
            "one": np.array(game.removals(2), dtype=np.int64),
            "two": np.array(game.splits, dtype=np.int64), "terminal": terminal,
            "seen": np.full(1 << 10, -1, dtype=np.int64)}


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32])
@pytest.mark.parametrize("code", ["0.16", "0.376", "0.6"])
def test_every_octal_entry_point_equals_numbas(code: str, dtype: Any) -> None:
    """Should return the same results and leave the same arrays as numba's dispatcher, for
    each value type (the engine's int32 array is never reached by a real game: it is made
    here), from a state of the engine after 600 values (the search mode learned as well)."""
    natives, jits = _native(octal.LIBRARY), _jitted(octal.LIBRARY)
    suffix = {np.uint8: "u1", np.uint16: "u2", np.int32: "i4"}[dtype]
    for kernel in ("sparse", "full"):
        runs = []
        for functions in (natives, jits):
            s = _state(code, 600, dtype)
            sp = s["space"]
            tune, out = np.zeros(octal.TUNE_FIELDS, dtype=np.int64), np.zeros(4, np.int64)
            if kernel == "sparse":
                index = [np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64)]
                functions[f"sparse_{suffix}"](
                    s["g"], s["n"], 2000, s["rare"], s["count"], sp.mask, sp.positional,
                    sp.rare_parity, s["one"], s["two"], s["terminal"], s["seen"], 255, 1 << 30,
                    False, 0, 1, *index, 16, 64, np.zeros(len(s["two"]), np.int64), tune, out)
            else:
                functions[f"full_{suffix}"](s["g"], s["n"], 2000, s["one"], s["two"],
                                            s["terminal"], s["seen"], 255, 1 << 30, out)
            runs.append((s["g"].copy(), s["rare"].copy(), s["seen"].copy(), tune, out))
        for mine, theirs in zip(*runs, strict=True):
            assert np.array_equal(mine, theirs), kernel
        reached = int(runs[0][4][0])
        assert runs[0][0][:reached].tolist() == naive_values(OctalGame.parse(code), reached)
    g = np.array(naive_values(OctalGame.parse("0.77"), 600), dtype=dtype)
    for functions in (natives, jits):
        out = np.zeros(3, dtype=np.int64)
        functions[f"find_period_{suffix}"](g, 600, 2, 64, out)
        assert out.tolist() == [71, 12, 2 * 71 + 24 + 2]  # Kayles (Winning Ways)
        divisors = np.array([1, 2, 3, 4, 6, 12, 24], dtype=np.int64)
        assert functions[f"first_period_{suffix}"](g, 71, 24, divisors) == 12
        assert functions[f"last_exception_{suffix}"](g, 71, 12) == 70


def test_the_checker_is_native_and_equal_to_its_reference() -> None:
    """Should accept the values of 0.16 and find the same first wrong heap as the Python
    loops once one is changed (a 2-D array among its arguments)."""
    functions = _native(octal_check.LIBRARY)
    assert "check_u1" in functions
    game = OctalGame.parse("0.45")
    g = np.array(naive_values(game, 3000), dtype=np.uint8)
    g[2500] ^= 1
    one = np.array(game.removals(2), dtype=np.int64)
    two = np.array(game.splits, dtype=np.int64)
    ends = np.array(game.removals(1), dtype=np.int64)
    size = 1 << int(g.max()).bit_length()
    odd = np.zeros(size, dtype=np.uint8)
    common = np.zeros((2, size + 1), dtype=np.int64)
    results = []
    for check in (octal_check.compiled()[0], octal_check.check_heaps):
        rare, seen = np.zeros(8, dtype=np.int64), np.full(size + 1, -1, dtype=np.int64)
        results.append(check(g, 0, 3000, one, two, ends, False, False, odd, common, rare, 0,
                             seen, 1 << 40))
    assert results[0] == results[1] == (2500, 0, octal_check.WRONG)


def test_a_later_process_runs_the_octal_kernels_without_numba() -> None:
    """Should certify 0.16 compiled in a new process without importing numba (1 s and
    120 MB of every compiled run before), once the library is cached."""
    _native(octal.LIBRARY)
    code = ("import sys\nfrom sdg_automata.games.octal import OctalGame\n"
            "r = OctalGame.parse('0.16').period(engine='compiled')\n"
            "print(r.preperiod, r.period, 'numba' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    assert out.split() == ["105351", "149459", "False"]  # tczajka SolvedGames.md


# -- the file ----------------------------------------------------------------------------


def _copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, bytes]:
    """The octal library's file copied into a cache of its own (``NUMBA_CACHE_DIR``)."""
    _native(octal.LIBRARY)
    home = native.cache_dir()
    assert home is not None
    original = octal.LIBRARY._path(home)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    place = native.cache_dir()
    assert place == tmp_path / "sdg_automata"
    path = octal.LIBRARY._path(place)
    shutil.copy(original, path)
    monkeypatch.setattr(kernels, "_said", set())  # the warnings are once per process
    return path, original.read_bytes()


@pytest.mark.parametrize("damage", ["truncated", "flipped", "other key"])
def test_a_damaged_library_is_built_again_with_one_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    """Should say in one warning that the file is not usable, build it again (here: the
    intact bytes, no compiler run), load that, and say nothing the next time."""
    path, intact = _copy(tmp_path, monkeypatch)
    data = {"truncated": intact[:len(intact) // 2],
            "flipped": intact[:-100] + bytes(b ^ 0xFF for b in intact[-100:]),
            "other key": intact.replace(octal.LIBRARY._key().encode(), b"0" * 64)}[damage]
    path.write_bytes(data)
    built: list[Path] = []
    monkeypatch.setattr(native.Library, "_build",
                        lambda self, p, lock: (built.append(p), p.write_bytes(intact)))
    with pytest.warns(KernelCacheWarning, match="not usable .*compiling them again"):
        functions = octal.LIBRARY._native(path.parent)
    assert functions is not None and built == [path] and path.read_bytes() == intact
    monkeypatch.setattr(kernels, "_said", set())
    with _silent():
        assert octal.LIBRARY._native(path.parent) is not None
    assert built == [path]


@contextlib.contextmanager
def _silent() -> Iterator[None]:
    """A block in which any warning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_a_library_that_cannot_be_built_is_said_once_and_remembered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should warn once, leave a marker, and from then on give numba's dispatchers
    silently, without trying to build again."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernels, "_said", set())
    tries: list[Path] = []

    def fail(self: native.Library, path: Path, lock: int | None) -> None:
        tries.append(path)
        raise RuntimeError("JIT session error: Symbols not found:\n[ _nowhere ]")

    monkeypatch.setattr(native.Library, "_build", fail)
    place = native.cache_dir()
    assert place is not None
    with pytest.warns(KernelCacheWarning, match=r"cannot be built here \(RuntimeError: JIT "
                                                r"session error: Symbols not found: \[ "
                                                r"_nowhere \]\): numba loads them instead$"):
        assert octal.LIBRARY._native(place) is None
    assert octal.LIBRARY._path(place, ".failed").exists()
    monkeypatch.setattr(kernels, "_said", set())
    with _silent():
        assert octal.LIBRARY._native(place) is None
    assert len(tries) == 1


def test_the_entry_points_check_their_arrays() -> None:
    """Should refuse, as a bug, an array the compiled code would misread: another type, not
    contiguous, not an array, the wrong number of arguments; and read a read-only one (a
    run's frozen view of its values), as numba's dispatchers do."""
    last = _native(octal.LIBRARY)["last_exception_u1"]
    g = np.array([1, 2, 1, 2, 1, 2], dtype=np.uint8)
    assert last(g, 4, 2) == -1
    assert last(np.frombuffer(g.tobytes(), np.uint8), 4, 2) == -1
    for bad in (g.astype(np.uint16), np.repeat(g, 2)[::2], [1, 2, 1, 2]):
        with pytest.raises(SdgBug, match="last_exception_u1: argument 0"):
            last(bad, 4, 2)
    with pytest.raises(SdgBug, match="takes 3 arguments, not 2"):
        last(g, 4)


def test_an_entry_point_gets_the_address_of_its_arrays_data() -> None:
    """Should pass the address of an array's first element, whatever the array: writable
    (read through the buffer protocol), read-only, empty, a view from an offset, two
    dimensions; and an entry point then reads a view from where it starts."""
    base = np.arange(24, dtype=np.int64)
    frozen = base.copy()
    frozen.flags.writeable = False
    for x in (base, base[5:], base.reshape(4, 6), base.reshape(4, 6)[1:], frozen, base[:0],
              np.zeros((0, 3), np.uint16), np.frombuffer(b"abc", np.uint8)):
        assert native._address(x) == x.ctypes.data
    last = _native(octal.LIBRARY)["last_exception_u1"]
    g = np.array([9, 9, 1, 2, 1, 2, 1, 2], dtype=np.uint8)
    assert last(g[2:], 4, 2) == last(g[2:].copy(), 4, 2) == -1


@pytest.mark.parametrize("variable", ["SDG_AUTOMATA_NATIVE", "SDG_AUTOMATA_NUMBA_CACHE",
                                      "NUMBA_DISABLE_JIT"])
def test_native_code_can_be_turned_off(variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should keep numba's dispatchers, and say no library is cached, when switched off."""
    monkeypatch.setenv(variable, "1" if variable == "NUMBA_DISABLE_JIT" else "0")
    assert not native.enabled() and not native.cached("octal")
    if variable != "NUMBA_DISABLE_JIT":  # (a plain function there)
        assert octal.LIBRARY.functions()["full_u1"] is octal.LIBRARY.jitted()["full"]


def test_the_cache_directory_falls_back_to_the_users(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Should cache beside the kernels, else in the user's cache directory, else nowhere
    (numba's dispatchers then run: the answers are the same)."""
    from sdg_automata.kernels import cachekey

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    blocked = tmp_path / "kernels"
    blocked.mkdir()
    (blocked / "__pycache__").write_text("")  # a file where the directory would be
    monkeypatch.setattr(cachekey, "KERNELS", blocked)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert native.cache_dir() == tmp_path / "cache" / "sdg_automata" / "native"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "kernels" / "__pycache__"))
    assert native.cache_dir() is None


# -- faults: each costs at most a warning and some time, never an answer (issue 36) ------


def _reset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the libraries this process linked, and the warnings it gave."""
    monkeypatch.setattr(native, "_NATIVE", {})
    monkeypatch.setattr(kernels, "_said", set())


def test_a_build_waits_for_another_processs_and_links_its_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should wait while another process holds the build lock, then link the library it
    wrote instead of building its own (processes started together built it each, ~10 CPU s
    apiece)."""
    import fcntl
    import threading

    path, intact = _copy(tmp_path, monkeypatch)
    path.unlink()
    built: list[Path] = []
    monkeypatch.setattr(native.Library, "_build", lambda self, p, lock: built.append(p))
    lock = os.open(octal.LIBRARY._path(path.parent, ".lock"), os.O_RDONLY | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)  # another open file: it excludes this process too
    results: list[Any] = []
    waiter = threading.Thread(target=lambda: results.append(octal.LIBRARY._native(path.parent)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() and not results  # waiting
    native._write(path, intact)
    os.close(lock)
    waiter.join(30)
    assert results and results[0] is not None and built == []


def test_a_lock_held_too_long_is_passed(tmp_path: Path) -> None:
    """Should build without the lock once its holder has kept it too long (it may be
    stuck; the files are written atomically, so two builds cost only time)."""
    import fcntl

    lock = tmp_path / ".lock"
    holder = os.open(lock, os.O_RDONLY | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        with native._exclusive(lock, wait=0.2) as held:
            assert held is None
    finally:
        os.close(holder)
    with native._exclusive(lock, wait=0.2) as held:
        assert held is not None


def test_a_library_in_a_read_only_directory_is_linked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should link a library cached where this process cannot write (a read-only install
    built beforehand) rather than build another in the user's cache; and, where nothing
    is cached and no directory is writable, run numba's dispatchers without a word."""
    path, _ = _copy(tmp_path, monkeypatch)
    read_only, writable = path.parent, tmp_path / "user"
    monkeypatch.setattr(native, "_places", lambda: [read_only, writable])
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: (Path(p) != read_only
                                                       and access(p, mode)))
    monkeypatch.setattr(native.Library, "_build", lambda self, p, lock: pytest.fail("built"))
    _reset(monkeypatch)
    assert native.cache_dir() == writable
    with _silent():
        assert native.cached("octal")
        functions = octal.LIBRARY.functions()
    assert native._NATIVE.get("octal") is functions  # linked: native code
    assert list(writable.iterdir()) == []
    path.unlink()
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    _reset(monkeypatch)
    with _silent():
        assert not native.cached("octal")
        assert octal.LIBRARY.functions()["full_u1"] is octal.LIBRARY.jitted()["full"]


def test_another_environments_library_is_neither_linked_nor_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should not link a library built by another numba, llvmlite, processor or setting
    (the environment names the file and is in its key, checked when it is read), build
    this one's beside it, and leave the other's for its own machine (a shared cache),
    while this environment's files of older kernel sources go."""
    theirs, intact = _copy(tmp_path, monkeypatch)
    key = octal.LIBRARY._key()
    monkeypatch.setattr(native, "_environment", lambda: "e" * 64)  # another CPU, say
    _reset(monkeypatch)
    assert not native.cached("octal")
    mine = octal.LIBRARY._path(theirs.parent)
    assert mine != theirs
    shutil.copy(theirs, mine)  # under this environment's name, its key is still not ours
    older = mine.with_name(f"octal-{'e' * 16}-{'0' * 16}.native")
    older.write_bytes(b"older sources")

    def build(self: native.Library, path: Path, lock: int | None) -> None:
        path.write_bytes(intact.replace(key.encode(), self._key().encode()))
        self._prune(path)

    monkeypatch.setattr(native.Library, "_build", build)
    with pytest.warns(KernelCacheWarning, match="not usable .*not this library's file"):
        assert octal.LIBRARY._native(theirs.parent) is not None
    assert theirs.read_bytes() == intact and not older.exists()


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), MemoryError(),
                                   ImportError("numba needs NumPy 2.0 or less")])
def test_a_failure_that_may_pass_leaves_no_marker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """Should fall back with one warning after a full disk, a shortage of memory or a
    numba that cannot be imported, and try again on the next run (a marker would have
    kept this machine off native code for good)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    _reset(monkeypatch)
    tries: list[Path] = []

    def fail(self: native.Library, path: Path, lock: int | None) -> None:
        tries.append(path)
        raise error

    monkeypatch.setattr(native.Library, "_build", fail)
    place = native.cache_dir()
    assert place is not None
    with pytest.warns(KernelCacheWarning, match="cannot be built here .*, on every run$"):
        assert octal.LIBRARY._native(place) is None
    assert not octal.LIBRARY._path(place, ".failed").exists()
    _reset(monkeypatch)  # a new run
    with pytest.warns(KernelCacheWarning):
        assert octal.LIBRARY._native(place) is None
    assert len(tries) == 2


def test_an_unloadable_library_without_numba_is_the_python_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should not choose the kernels on the strength of a library that is cached but does
    not link, where numba cannot be imported to build it: ``auto`` runs the reference,
    ``compiled`` says why (an InputError, exit 2), never a traceback."""
    from sdg_automata.errors import InputError
    from sdg_automata.runtime import engines

    _native(octal.LIBRARY)  # cached
    _reset(monkeypatch)
    monkeypatch.setattr(native.Library, "_load", lambda self, path: 1 / 0)
    monkeypatch.setattr(kernels, "numba_missing", lambda: "numba cannot be imported (test)")
    assert not native.cached("octal")
    assert not engines.use_compiled("auto", work=1 << 20, threshold=1 << 14, library="octal")
    with pytest.raises(InputError, match="compiled engine needs numba"):
        engines.use_compiled("compiled", work=1 << 20, threshold=1 << 14, library="octal")


def test_without_numba_the_command_line_answers_or_says_why() -> None:
    """Should answer with the reference (auto) or refuse in one line (compiled, exit 2)
    where numba cannot be imported, whatever is cached."""
    code = ("import sys; sys.modules['numba'] = None\n"
            "from sdg_automata.cli import main\n"
            "sys.exit(main(['octal', '0.77', '--json', '--engine', sys.argv[1]]))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    auto, compiled = (subprocess.run([sys.executable, "-c", code, engine], env=env,
                                     capture_output=True, text=True, timeout=300)
                      for engine in ("auto", "compiled"))
    assert auto.returncode == 0 and '"period": 12' in auto.stdout and auto.stderr == ""
    assert compiled.returncode == 2 and compiled.stdout == ""
    assert compiled.stderr.startswith("error: the compiled engine needs numba")
    assert len(compiled.stderr.splitlines()) == 1


def test_two_processes_on_a_damaged_cache_agree(tmp_path: Path) -> None:
    """Should give the right answer in two processes started together on a cache whose
    octal library is truncated: each says at most one warning and no traceback, and a
    third process links the library they left without numba, silently."""
    _native(octal.LIBRARY)
    home = native.cache_dir()
    assert home is not None
    original = octal.LIBRARY._path(home)
    root = Path(__file__).resolve().parents[2]
    env = {**{k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"},
           "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(root)}
    place = tmp_path / "sdg_automata"
    place.mkdir()
    (place / original.name).write_bytes(original.read_bytes()[:4000])
    command = [sys.executable, "-m", "sdg_automata", "octal", "0.77", "--engine", "compiled",
               "--json"]
    answer = subprocess.run([*command[:-2], "python", "--json"], env=env, capture_output=True,
                            text=True, check=True, timeout=300).stdout
    both = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for process in both:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0 and out == answer, err[-3000:]
        assert "Traceback" not in err and len(err.splitlines()) <= 1, err[-3000:]
        assert err == "" or "not usable" in err, err
    check = ("import sys\nfrom sdg_automata.kernels import native\n"
             "print(native.cached('octal'), 'numba' in sys.modules)")
    third = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True,
                           text=True, check=True, timeout=300)
    assert third.stdout.split() == ["True", "False"] and third.stderr == ""


# -- the build, in a child process: a budget and Ctrl-C stop it ---------------------------


def _cold(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment with an empty kernel cache (so the octal library is built), and the
    directory the library would be written to."""
    root = Path(__file__).resolve().parents[2]
    env = {**{k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", ENV)},
           "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(root)}
    return env, tmp_path / "sdg_automata"


def _builders(place: Path) -> list[int]:
    """The build processes writing into ``place`` (their command line names the file)."""
    found = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if proc.name.isdigit() and str(place).encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
    return found


def _left(place: Path) -> list[str]:
    """The libraries and failure markers in ``place`` (not the lock files)."""
    return sorted(p.name for p in place.glob("*") if p.suffix in (".native", ".failed"))


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_budget_stops_a_run_during_a_first_runs_build(tmp_path: Path) -> None:
    """Should stop at ``--max-seconds`` while the native library is being built (the run
    waited for the whole build first: 16 s for ``--max-seconds 1``), with one ``error:``
    line and exit 3, leaving no failure marker; the build goes on (the next test follows
    it to its end, with a build process that is quicker to watch)."""
    import signal

    env, place = _cold(tmp_path)
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "octal", "0.6", "--engine",
                           "compiled", "--max-seconds", "3"], env=env, capture_output=True,
                          text=True, timeout=600)
    builders = _builders(place)
    for pid in builders:  # not this test's to wait for: ~10 CPU s
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
    assert any(place.glob(".octal-*.lock")), "the build never began"
    assert _left(place) == [] and builders, "the build stopped with the run"


def _stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str) -> Path:
    """An empty cache at ``tmp_path`` whose build process of the octal library is a
    stand-in: ``first`` (Python), then a copy of the real library (built in the default
    cache when missing) to the file asked for; the directory the library goes to."""
    _native(octal.LIBRARY)
    home = native.cache_dir()
    assert home is not None
    real = octal.LIBRARY._path(home)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    _reset(monkeypatch)
    place = native.cache_dir()
    assert place is not None
    monkeypatch.setattr(native, "_CHILD", f"import shutil, sys\n{first}"
                        f"shutil.copyfile({str(real)!r}, sys.argv[2])")
    return place


def test_a_build_outlives_the_budget_and_keeps_its_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should end the wait at the deadline (BudgetExceeded, no failure marker) while the build
    process goes on holding the build lock, so that another run waits for it rather than
    build its own, and then links what it wrote (a sweep's jobs, each stopped at its
    budget, would otherwise never get past a killed build).  The build process here is a
    stand-in that waits a little, then writes a copy of the real library."""
    import time

    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.runtime.budget import Budget

    place = _stand_in(tmp_path, monkeypatch, "import time\ntime.sleep(2)\n")
    meter = Budget(max_seconds=0.3).start("search")
    with pytest.raises(BudgetExceeded, match="inside building the octal kernels"):
        native.prepare(octal.LIBRARY.functions, meter, "the octal kernels")
    assert not octal.LIBRARY._path(place).exists()
    assert not octal.LIBRARY._path(place, ".failed").exists()
    with native._exclusive(octal.LIBRARY._path(place, ".lock"), wait=0.1) as held:
        assert held is None  # the build process holds it
    started = time.monotonic()
    functions = octal.LIBRARY.functions()  # waits on the lock, then links the library
    assert octal.LIBRARY._path(place).exists() and time.monotonic() - started < 60
    assert native._NATIVE.get("octal") is functions  # linked: native code


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_ctrl_c_stops_a_first_runs_build(tmp_path: Path) -> None:
    """Should answer Ctrl-C while the native library is being built (it was held until the
    build ended, ~10 s) with one line and exit 130, the build process killed."""
    import signal
    import time

    env, place = _cold(tmp_path)
    run = subprocess.Popen([sys.executable, "-m", "sdg_automata", "octal", "0.6", "--engine",
                            "compiled"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not _builders(place) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _builders(place), "no build process was seen"
        run.send_signal(signal.SIGINT)  # the run only, not its build process
        _, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert err.startswith("error: interrupted") and len(err.splitlines()) == 1, err
    assert _left(place) == [] and _builders(place) == []


def test_a_failed_build_process_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    """Should raise the build process's own error, and say whether a later run may succeed
    (an import error may pass: no marker; anything else leaves one); the build process
    imports this copy of the package, not one in the working directory (which ``python -c``
    puts first on its path)."""
    shadow = tmp_path / "elsewhere" / "sdg_automata"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('another copy was imported')\n")
    monkeypatch.chdir(shadow.parent)
    missing = native.Library(name="no_such_library", module=octal.__name__, kernels=(),
                             entries=())
    with pytest.raises(native._BuildFailed, match="^ModuleNotFoundError: No module named "
                                                  "'sdg_automata.kernels.no_such_library'$"
                       ) as passing:
        missing._build(tmp_path / "x.native")
    assert passing.value.passing
    wrong = native.Library(name="protocol", module=octal.__name__, kernels=(), entries=())
    with pytest.raises(native._BuildFailed, match="^AttributeError: .*LIBRARY") as refused:
        wrong._build(tmp_path / "x.native")
    assert not refused.value.passing
    assert not (tmp_path / "x.native").exists()


def test_the_build_process_is_out_of_the_runs_process_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should start the build in a session of its own: a signal to the run's process group
    (the terminal's Ctrl-C, ``kill -INT -PGID``) is the run's to answer (it kills the build
    when it stops), and one the run ignores (a background job's SIGINT) used to kill the
    build, which inherited a handled disposition from ``held_signals``.  The build process
    here is a stand-in that says its process group, then writes a copy of the library."""
    said = tmp_path / "group"
    place = _stand_in(tmp_path, monkeypatch,
                      f"import os\nopen({str(said)!r}, 'w').write(str(os.getpgid(0)))\n")
    assert octal.LIBRARY._native(place) is not None
    assert int(said.read_text()) not in (os.getpgid(0), os.getpid())


def test_a_build_process_killed_by_a_signal_may_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should leave no failure marker when the build process is killed (the OOM killer, a
    ``kill -9``): a later run may build the library; one warning, numba's dispatchers."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    _reset(monkeypatch)
    monkeypatch.setattr(native, "_CHILD", "import os, signal\nos.kill(os.getpid(), "
                                          "signal.SIGKILL)\n")
    place = native.cache_dir()
    assert place is not None
    with pytest.warns(KernelCacheWarning, match=r"\(exit code -9\).*, on every run$"):
        assert octal.LIBRARY._native(place) is None
    assert not octal.LIBRARY._path(place, ".failed").exists()
