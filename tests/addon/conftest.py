"""Fixtures of the addon's integration tests: a real sidecar (``python -m bridge serve``).

The sidecar is started the way a user would run it by hand; its announcement (host, port, token)
reaches Godot through environment variables (see :func:`sidecar_env`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.godot_env import REPO


@pytest.fixture(scope="module")
def sidecar() -> Iterator[dict[str, Any]]:
    """A running sidecar's announcement ``{"event", "host", "port", "token", "protocol"}``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge", "serve", "--threads", "1", "--log-level", "ERROR"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        announcement: dict[str, Any] = json.loads(line)
        assert announcement["event"] == "listening", line
        yield announcement
    finally:
        if process.stdin is not None:
            process.stdin.close()  # the sidecar stops when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def sidecar_env(announcement: dict[str, Any]) -> dict[str, str]:
    """The environment that points the GDScript external tests at ``announcement``'s sidecar."""
    return {
        "ASTAR_BRIDGE_HOST": str(announcement["host"]),
        "ASTAR_BRIDGE_PORT": str(announcement["port"]),
        "ASTAR_BRIDGE_TOKEN": str(announcement["token"]),
    }
