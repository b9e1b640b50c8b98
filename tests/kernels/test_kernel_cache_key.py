"""numba's on-disk cache of the kernels is keyed on every kernel source (kernels/cachekey.py).

A kernel calls kernels of other files, which numba's own per-file stamp does not
see: the stamp of every kernel is a hash of all of ``kernels/*.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sdg_automata.kernels.cachekey import KERNELS, sources_key


def test_the_key_changes_with_any_kernel_source(tmp_path: Path) -> None:
    copy = tmp_path / "kernels"
    shutil.copytree(KERNELS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    key = sources_key(copy)
    assert key == sources_key(KERNELS) and key == sources_key(copy)  # the contents, no more
    assert len({p.name for p in copy.glob("*.py")}) >= 4  # several kernel modules
    for name in ("automaton.py", "octal.py", "__init__.py"):
        path = copy / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text + "\n# changed\n", encoding="utf-8")
        assert sources_key(copy) != key, name
        path.write_text(text, encoding="utf-8")
        assert sources_key(copy) == key
    (copy / "new.py").write_text("", encoding="utf-8")  # a new kernel module counts too
    with_new = sources_key(copy)
    assert with_new != key
    (copy / "notes.txt").write_text("", encoding="utf-8")  # only sources do
    assert sources_key(copy) == with_new


def test_every_kernel_is_stamped_with_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    from sdg_automata.kernels import _caching

    if not _caching():
        pytest.skip("SDG_AUTOMATA_NUMBA_CACHE=0: nothing is cached")
    from sdg_automata.kernels import automaton, octal, step
    from sdg_automata.kernels.cachekey import install

    locator = install()
    from numba.core.caching import CacheImpl

    assert CacheImpl._locator_classes[0] is locator
    for kernel in (step.step, automaton.bfs, octal.LIBRARY.jitted()["sparse"]):
        cache = kernel._cache
        assert isinstance(cache._impl._locator, locator)
        assert cache._cache_file._source_stamp == ("sdg_automata kernels", sources_key())


def test_other_functions_keep_numbas_own_stamp(tmp_path: Path) -> None:
    numba = pytest.importorskip("numba")
    from sdg_automata.kernels.cachekey import install

    install()
    source = tmp_path / "elsewhere.py"
    source.write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    compiled = numba.njit(cache=True)(namespace["f"])
    assert compiled(1) == 2
    assert not isinstance(compiled._cache._impl._locator, install())
