"""The asyncio TCP server: one :class:`~bridge.serving.connection.ClientProtocol` (stream + session) per
connection over a shared method table.

    config = ServerConfig(token="secret", threads=2)
    asyncio.run(Server(config).run(announce=print))

``run`` returns when :meth:`Server.stop` is called (signals, stdin closing: see :mod:`bridge.cli`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.methods.handlers import Handlers
from bridge.methods.interface import Serving
from bridge.serving.connection import ClientProtocol
from bridge.serving.local import LocalServing
from bridge.wire.idle_spin import SPIN_SECONDS
from bridge.wire.protocol import PROTOCOL_VERSION, Limits

__all__ = ["Server", "ServerConfig"]

log = logging.getLogger("bridge.server")

SWITCH_SECONDS = 0.0005
"""How long a thread running Python may keep the GIL while another wants it (Python's default is
5 ms). The event loop gives the GIL up at every socket call and waits that long to get it back
while a search thread runs Python (a batch's per-query work): at 5 ms, a bystander's one round
trip took 280 ms during eight 100,000-query batches; the kernels release the GIL anyway."""

STOP_SECONDS = 2.0
"""How long a stopping server lets its connections send what they have written before cutting them."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What ``serve`` was asked for.

    Attributes:
        host: address to bind (loopback unless the CLI was told ``--allow-remote``).
        port: 0 lets the OS choose.
        token: the secret ``hello`` must present.
        threads: search threads (the kernels release the GIL: one per core is the natural count).
        limits: message, graph, budget and pending limits.
        ray: a :class:`bridge.serving.ray.cluster.RayOptions` to serve from a Ray cluster
            (``serve --ray``), or None: graphs in this process.
        spin_seconds: how long a lone client's socket is watched after an answer before the
            event loop sleeps (:mod:`bridge.wire.idle_spin`; 0: never).
    """

    host: str = "127.0.0.1"
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    threads: int = 1
    limits: Limits = field(default_factory=Limits)
    ray: Any = None
    spin_seconds: float = SPIN_SECONDS


class Server:
    """Owns the serving layer (graphs, search threads) and the listening socket."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.serving: Serving
        if config.ray is not None:  # Ray is imported only then
            from bridge.serving.ray.serving import RayServing  # noqa: PLC0415 (imports Ray)

            self.serving = RayServing(config.limits, config.ray)
        else:
            self.serving = LocalServing(config.limits, threads=config.threads)
        self.handlers = Handlers(self.serving, config.limits, token=config.token)
        self._stopped = asyncio.Event()
        self._connections: set[ClientProtocol] = set()

    def stop(self) -> None:
        """Ask :meth:`run` to return (safe from signal handlers on the loop)."""
        self._stopped.set()

    async def run(self, announce: Callable[[dict[str, object]], None]) -> None:
        """Start the search threads, listen, announce ``{"event": "listening", ...}``, serve until
        stopped."""
        sys.setswitchinterval(SWITCH_SECONDS)
        await self.serving.start()
        limits = self.config.limits
        server = await asyncio.get_running_loop().create_server(
            lambda: ClientProtocol(
                self.handlers, self.serving, limits, self._connections, self.config.spin_seconds
            ),
            self.config.host,
            self.config.port,
        )
        try:
            host, port = server.sockets[0].getsockname()[:2]
            announce(
                {
                    "event": "listening",
                    "host": host,
                    "port": port,
                    "token": self.config.token,
                    "protocol": PROTOCOL_VERSION,
                }
            )
            await self._stopped.wait()
        finally:
            server.close()
            for connection in list(self._connections):
                log.info("%s: closing, the server is stopping", connection.peer)
                connection.close()
            await self._closed(STOP_SECONDS)
            await self.serving.close()
            self.handlers.fields.close()
            log.info("stopped")

    async def _closed(self, seconds: float) -> None:
        """Wait for the closing connections to go (each leaves the set when its transport is gone);
        abort those still there after ``seconds`` (a peer that does not read)."""
        deadline = asyncio.get_running_loop().time() + seconds
        while self._connections and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        for connection in list(self._connections):
            if connection.transport is not None:
                connection.transport.abort()
        await asyncio.sleep(0)
