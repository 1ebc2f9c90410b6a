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
from bridge.stream import READ_CHUNK, MessageStream, StreamError, StreamLimits

__all__ = ["Server", "ServerConfig", "hello_limits", "message_limits"]

log = logging.getLogger("bridge.server")

DRAIN_SECONDS = 30.0
"""How long a half-closed connection may wait for its pending answers."""

GRACE_SECONDS = 0.5
"""A second look for bytes after a hello or read deadline passes: when the event loop was held up
(e.g. validating a big load) the timer can fire before bytes that arrived in time are read."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What ``serve`` was asked for.

    Attributes:
        host: address to bind (loopback unless the CLI was told ``--allow-remote``).
        port: 0 lets the OS choose.
        token: the secret ``hello`` must present.
        workers: search threads (the kernels release the GIL: one per core is the natural count).
        limits: message, graph, budget and pending limits.
    """

    host: str = "127.0.0.1"
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    workers: int = 1
    limits: Limits = field(default_factory=Limits)


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
        peer = str(writer.get_extra_info("peername"))
        limits = self.config.limits
        if len(self._connections) >= limits.max_connections:
            log.warning("%s: %d connections are open (the limit); closing", peer, len(self._connections))
            writer.transport.abort()
            return
        self._connections.add(task)
        log.info("%s connected", peer)
        session = Session(
            self.handlers.table,
            send=_sender(writer, peer, limits.max_buffered_bytes),
            connection=Connection(peer),
            limits=limits,
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
        limits = self.config.limits
        stream, wide = MessageStream(hello_limits(limits)), message_limits(limits)
        clock = _Deadlines(limits)
        peer = session.connection.peer
        while True:
            try:
                data = await clock.read(reader, authorized=session.connection.authorized)
            except TimeoutError as exc:
                log.warning("%s: %s; closing", peer, exc)
                return
            if not data:
                break
            stream.feed(data)
            try:
                for message in stream:
                    clock.message_done()
                    session.on_message(message)
                    if session.closing:
                        log.warning("%s: hello with a wrong token; closing", peer)
                        await writer.drain()
                        return
                    if session.connection.authorized and stream.limits is not wide:
                        stream.limits = wide
            except (StreamError, ProtocolViolationError) as exc:
                log.warning("%s: %s; closing", peer, exc)
                return
            clock.pending(stream.pending_bytes)
            await writer.drain()
        # The peer closed its side: answer what is pending, then close ours.
        await session.drain(DRAIN_SECONDS)
        await writer.drain()


def hello_limits(limits: Limits) -> StreamLimits:
    """What one message may be before the connection has said hello."""
    return StreamLimits(limits.hello_message_bytes, limits.hello_depth, limits.hello_items)


def message_limits(limits: Limits) -> StreamLimits:
    """What one message may be after hello."""
    return StreamLimits(limits.max_message_bytes, limits.max_depth, limits.max_message_items)


def _sender(writer: asyncio.StreamWriter, peer: str, cap: int) -> Callable[[bytes], None]:
    """``writer.write`` that closes a connection whose peer leaves more than ``cap`` answer bytes
    unread (answers of pending requests are written whether or not the peer reads)."""

    def send(data: bytes) -> None:
        if writer.is_closing():
            return
        writer.write(data)
        unread = writer.transport.get_write_buffer_size()
        if unread > cap:
            log.warning("%s: %d answer bytes unread, past the limit of %d; closing", peer, unread, cap)
            writer.transport.abort()

    return send


class _Deadlines:
    """A connection's two clocks: ``hello_timeout`` from the connection until a good hello, and
    ``read_timeout`` from a message's first byte until it is whole."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.loop = asyncio.get_running_loop()
        self.hello_by = self.loop.time() + limits.hello_timeout
        self.message_by: float | None = None
        self._completed = False

    def message_done(self) -> None:
        """A message was completed by the last read."""
        self._completed = True

    def pending(self, pending_bytes: int) -> None:
        """After a read: ``pending_bytes`` of an incomplete message wait."""
        if not pending_bytes:
            self.message_by = None
        elif self.message_by is None or self._completed:  # a new message started
            self.message_by = self.loop.time() + self.limits.read_timeout
        self._completed = False

    async def read(self, reader: asyncio.StreamReader, *, authorized: bool) -> bytes:
        """The next bytes (b"" at EOF).

        Raises:
            TimeoutError: a deadline passed first.
        """
        deadlines = [(self.message_by, f"a message stayed incomplete {self.limits.read_timeout:g} s")]
        if not authorized:
            deadlines.append((self.hello_by, f"no hello within {self.limits.hello_timeout:g} s"))
        active = [(when, why) for when, why in deadlines if when is not None]
        if not active:
            return await reader.read(READ_CHUNK)
        when, why = min(active)
        try:
            return await asyncio.wait_for(reader.read(READ_CHUNK), max(0.0, when - self.loop.time()))
        except TimeoutError:
            pass
        try:  # bytes that came in time while the loop was busy (a big load) are in the buffer now
            return await asyncio.wait_for(reader.read(READ_CHUNK), GRACE_SECONDS)
        except TimeoutError:
            raise TimeoutError(why) from None
