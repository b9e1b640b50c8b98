"""runtime.files: regular files only, read with a cap, never blocking."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from sdg_automata.errors import InputError
from sdg_automata.runtime.files import CHUNK, open_regular, read_capped


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"abc" * 1000)
    assert read_capped(p, cap=3000) == b"abc" * 1000
    with open_regular(p) as f:
        assert f.read(3) == b"abc"


def test_a_file_over_the_cap_is_refused_before_reading(tmp_path: Path) -> None:
    p = tmp_path / "big"
    p.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="101 bytes, more than the 100"):
        read_capped(p, cap=100)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            read_capped(fifo, cap=10, what="certificate")
        except BaseException as e:  # noqa: BLE001 -- handed to the test's thread
            done.append(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(30)  # a blocking open would never return: no writer ever comes
    assert not t.is_alive(), "reading a FIFO blocked"
    assert isinstance(done[0], InputError) and "is a FIFO, not a certificate" in str(done[0])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_devices_and_links_to_them_are_refused(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    link = tmp_path / "link"
    link.symlink_to(device)
    for p in (device, link):
        with pytest.raises(InputError, match="is a device, not a file"):
            read_capped(p, cap=1 << 30)


def test_missing_empty_and_directories_say_so(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_capped(tmp_path / "none", cap=1)
    with pytest.raises(InputError, match="name is empty"):
        read_capped("", cap=1)
    with pytest.raises(InputError, match="is a directory, not a file"):
        read_capped(tmp_path, cap=1)


def test_check_is_asked_between_chunks(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"y" * (2 * CHUNK + 5))
    seen: list[int] = []
    assert len(read_capped(p, cap=3 * CHUNK, check=seen.append)) == 2 * CHUNK + 5
    assert seen == [0, CHUNK, 2 * CHUNK, 2 * CHUNK + 5]

    class Stop(Exception):
        pass

    def stop(n: int) -> None:
        if n >= CHUNK:
            raise Stop

    with pytest.raises(Stop):
        read_capped(p, cap=3 * CHUNK, check=stop)
