"""A parent that never reads the sidecar's stderr pipe: at INFO every connection logs, the pipe fills
after a few hundred connections, and the sidecar must lose log lines, never block on them."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from bridge.client.sidecar import Sidecar, start_sidecar

CYCLES = 5000


@pytest.fixture
def unread_stderr() -> Iterator[Sidecar]:
    """A sidecar logging at INFO into a pipe nobody reads (until a test says so)."""
    sidecar = start_sidecar("--threads", "1", "--log-level", "INFO", stderr=subprocess.PIPE)
    try:
        yield sidecar
    finally:
        sidecar.stop()
        assert sidecar.process.stderr is not None
        sidecar.process.stderr.close()


def test_a_full_stderr_pipe_never_blocks_the_sidecar(unread_stderr: Sidecar) -> None:
    sidecar = unread_stderr
    for i in range(CYCLES):
        try:
            socket.create_connection((sidecar.host, sidecar.port), timeout=5).close()
        except OSError as exc:
            pytest.fail(f"connection {i} of {CYCLES} failed: {exc}")
    # The burst may leave up to --max-connections closes not yet seen by the server, which then
    # refuses a new connection at once (a reset); a frozen sidecar would instead never answer.
    for _ in range(40):
        try:
            client = sidecar.connect(timeout=20)
            break
        except ConnectionResetError:
            time.sleep(0.25)
    else:
        pytest.fail("every connection was refused for 10 s after the burst")
    with client:
        client.load_grid("log-g", np.ones((4, 4)))
        assert client.find("log-g", (0, 0), (3, 3))["status"] == "found"


def test_dropped_lines_are_counted_once_the_pipe_is_read(unread_stderr: Sidecar) -> None:
    sidecar = unread_stderr
    for _ in range(2000):  # far more lines than the pipe and the queue hold
        socket.create_connection((sidecar.host, sidecar.port), timeout=5).close()
    stderr = sidecar.process.stderr
    assert stderr is not None
    lines: list[bytes] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(stderr.readline, b"")), daemon=True)
    reader.start()
    for _ in range(200):  # new lines come once the writer thread can write again: bounded wait
        socket.create_connection((sidecar.host, sidecar.port), timeout=5).close()
        if any(b"log lines were dropped" in line for line in list(lines)):
            break
        time.sleep(0.05)
    assert any(b"log lines were dropped" in line for line in list(lines))
