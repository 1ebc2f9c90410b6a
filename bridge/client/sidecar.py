"""Start ``python -m bridge serve`` as a subprocess and read its one JSON line.

    with start_sidecar("--threads", "2") as sidecar:
        with sidecar.connect() as client:      # already said hello
            client.load_grid("g", [[1, 1]])

The sidecar's stdin is a pipe held by us: closing it (``stop``) is how it learns to exit, exactly
as when the game that started it goes away.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any

from bridge.client.sync_client import Client

__all__ = ["Sidecar", "SidecarError", "start_sidecar"]


class SidecarError(RuntimeError):
    """The sidecar did not announce itself (it exited or printed something else)."""


@dataclass
class Sidecar:
    """A running sidecar subprocess and what it announced."""

    process: subprocess.Popen[bytes]
    host: str
    port: int
    token: str
    protocol: int

    def connect(self, *, hello: bool = True, timeout: float | None = 60.0) -> Client:
        """A new client connection (after ``hello`` with the token unless told otherwise)."""
        client = Client.connect(self.host, self.port, timeout=timeout)
        if hello:
            client.hello(self.token)
        return client

    def stop(self, timeout: float = 10.0) -> int:
        """Close its stdin (it exits by itself), kill it if it does not; returns its exit code."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout)

    def __enter__(self) -> Sidecar:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _read_line(stream: IO[bytes], timeout: float) -> bytes:
    """One line from ``stream`` or b"" after ``timeout`` seconds (a thread: pipes have no timeout)."""
    box: list[bytes] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return box[0] if box else b""


def start_sidecar(
    *args: str,
    python: str = sys.executable,
    timeout: float = 60.0,
    stderr: int | IO[Any] | None = None,
    env: dict[str, str] | None = None,
) -> Sidecar:
    """Run ``python -m bridge serve *args`` and wait for its ``listening`` line.

    Args:
        args: extra ``serve`` options, e.g. ``"--threads", "2"``.
        python: the interpreter to run.
        timeout: seconds to wait for the announcement.
        stderr: where its logs go (default: inherited).
        env: environment (default: ours).

    Raises:
        SidecarError: it exited or printed something that is not the announcement.
    """
    process = subprocess.Popen(
        [python, "-m", "bridge", "serve", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env if env is not None else dict(os.environ),
    )
    assert process.stdout is not None
    line = _read_line(process.stdout, timeout)
    try:
        event = json.loads(line)
        if event.get("event") != "listening":
            raise ValueError(f"unexpected event {event!r}")
    except ValueError as exc:
        process.kill()
        process.wait()
        raise SidecarError(f"the sidecar did not announce itself: {line[:200]!r}") from exc
    return Sidecar(
        process, str(event["host"]), int(event["port"]), str(event["token"]), int(event["protocol"])
    )
