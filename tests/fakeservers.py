"""Servers that are not Dask schedulers, on 127.0.0.1, for the tests of ``--scheduler``
addresses: :func:`serving` gives each connection to a handler and keeps it open until the
end."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def serving(handle: Callable[[socket.socket], None]) -> Iterator[int]:
    """A free port whose connections are each passed to ``handle`` (in the one serving
    thread), then held open until the block ends; yields the port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        held = []
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(conn)
            with contextlib.suppress(OSError):
                handle(conn)
        for c in held:
            c.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        listener.close()
