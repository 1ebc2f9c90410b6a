"""The asyncio TCP server: one stream + session per connection over a shared method table.

    config = ServerConfig(token="secret", workers=2)
    asyncio.run(Server(config).run(announce=print))

``run`` returns when :meth:`Server.stop` is called (signals, stdin closing: see :mod:`bridge.cli`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from bridge.handlers import Connection, Handlers
from bridge.protocol import PROTOCOL_VERSION, Limits
from bridge.serving import LocalServing
from bridge.session import ProtocolViolationError, Session
from bridge.stream import READ_CHUNK, MessageStream, StreamError

__all__ = ["Server", "ServerConfig"]

log = logging.getLogger("bridge.server")

DRAIN_SECONDS = 30.0
"""How long a half-closed connection may wait for its pending answers."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What ``serve`` was asked for.

    Attributes:
        host: address to bind (loopback unless the CLI was told ``--allow-remote``).
        port: 0 lets the OS choose.
        token: the secret ``hello`` must present.
        workers: search threads (the kernels release the GIL: one per core is the natural count).
        limits: message, graph, budget and pending limits.
        log_level: the logging level the CLI set (kept for callers that read it).
    """

    host: str = "127.0.0.1"
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    workers: int = 1
    limits: Limits = field(default_factory=Limits)
    log_level: int = logging.WARNING


class Server:
    """Owns the serving layer (graphs, search threads) and the listening socket."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.serving = LocalServing(config.limits, threads=config.workers)
        self.handlers = Handlers(self.serving, config.limits, token=config.token)
        self._stopped = asyncio.Event()
        self._connections: set[asyncio.Task[None]] = set()

    def stop(self) -> None:
        """Ask :meth:`run` to return (safe from signal handlers on the loop)."""
        self._stopped.set()

    async def run(self, announce: Callable[[dict[str, object]], None]) -> None:
        """Start the search threads, listen, announce ``{"event": "listening", ...}``, serve until
        stopped."""
        await self.serving.start()
        server = await asyncio.start_server(
            self._on_connect, self.config.host, self.config.port, limit=READ_CHUNK
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
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self.serving.close()
            log.info("stopped")

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        peer = str(writer.get_extra_info("peername"))
        log.info("%s connected", peer)
        session = Session(
            self.handlers.table,
            send=writer.write,
            connection=Connection(peer),
            limits=self.config.limits,
        )
        try:
            await self._serve(reader, writer, session)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            log.info("%s: connection lost: %s", peer, exc)
        except asyncio.CancelledError:
            log.info("%s: closing, the server is stopping", peer)
        finally:
            self._connections.discard(task)
            session.cancel()
            self.serving.forget(session.connection)
            writer.close()
            log.info("%s closed", peer)

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, session: Session
    ) -> None:
        stream = MessageStream(max_message_bytes=self.config.limits.max_message_bytes)
        peer = session.connection.peer
        while data := await reader.read(READ_CHUNK):
            try:
                messages, failure = stream.feed(data), None
            except StreamError as exc:
                messages, failure = exc.messages, exc
            try:
                for message in messages:
                    session.on_message(message)
            except ProtocolViolationError as exc:
                log.warning("%s: %s; closing", peer, exc)
                return
            if failure is not None:
                log.warning("%s: %s; closing", peer, failure)
                return
            await writer.drain()
        # The peer closed its side: answer what is pending, then close ours.
        await session.drain(DRAIN_SECONDS)
        await writer.drain()
