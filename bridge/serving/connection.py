"""One client connection as an asyncio protocol: bytes -> whole messages -> the session, answers
back, with the connection's deadlines and back-pressure.

A protocol, not a stream reader and a task: the bytes of a request are cut and handled in the
event loop's own read callback, so an answer inline (most paths) costs no task wake-up and no
second pass of the loop: 4 us less per request on the benchmark VM, a sixth of a small path's
trip (docs/architecture.md, "Serving: why one process").

- **Deadlines.** ``hello_timeout`` from the connection until a good ``hello``; ``read_timeout`` from
  a message's first byte until it is whole. When one passes, the connection gets ``GRACE_SECONDS``
  more (the loop may have been held up, e.g. validating a big load, with the bytes already in the
  socket) and is closed if it still has not made it.
- **Back-pressure.** While the peer leaves answers unread past the transport's high-water mark,
  its requests are not read either; past ``max_buffered_bytes`` unread it is closed. Past
  ``max_unread_bytes`` unread by every peer together, the peers that stopped reading longest ago
  are closed first, until the rest fit.
- **Slices.** The requests of one read are handled for at most :data:`SLICE_SECONDS` (their inline
  searches included); the rest wait, unread, for a later turn of the loop, after every other
  connection's: a client pipelining thousands of small queries delays another's by one slice. The
  first request of a slice may always run inline, however late the loop came to it.
- **Large answers in pieces.** An answer larger than :data:`WRITE_PIECE_BYTES` is held as its
  encoded bytes and handed to the transport a piece at a time, as the peer takes the last: an
  unread answer costs its encoded size once (the transport would copy all of it), and the loop
  never copies tens of MB in one callback. Held bytes count as unread.
- **Half close.** When the peer closes its side, the answers still pending are sent (up to
  ``DRAIN_SECONDS``), then ours closes.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from typing import cast

from bridge.methods.handlers import Handlers
from bridge.methods.interface import Connection, Serving
from bridge.serving.session import ProtocolViolationError, Session
from bridge.wire.idle_spin import IdleSpin
from bridge.wire.protocol import Limits
from bridge.wire.stream import NOT_WHOLE, MessageStream, StreamError, StreamLimits

__all__ = [
    "DRAIN_SECONDS",
    "GRACE_SECONDS",
    "SLICE_SECONDS",
    "WRITE_PIECE_BYTES",
    "ClientProtocol",
    "hello_limits",
    "message_limits",
]

log = logging.getLogger("bridge.server")

DRAIN_SECONDS = 30.0
"""How long a half-closed connection may wait for its pending answers."""

GRACE_SECONDS = 0.5
"""A second look after a hello or read deadline passes: when the event loop was held up the timer
can fire before bytes that arrived in time are read."""

SLICE_SECONDS = 0.004
"""Event-loop time one connection's requests may take before the loop serves the others (a query
running inline then is not cut: it takes at most ``INLINE_EXPANSIONS``)."""

WRITE_PIECE_BYTES = 1 << 20
"""The most of an answer handed to the transport at once; the rest waits, held, until the peer
has taken it."""

_NO_SPIN = IdleSpin(-1, 0.0)  # a connection's watch before it is made and once it is lost

UNREAD_CHECK_BYTES = 64 * 1024
"""A write leaving fewer bytes than this unread skips the server-wide count (the common case)."""


def hello_limits(limits: Limits) -> StreamLimits:
    """What one message may be before the connection has said hello."""
    return StreamLimits(limits.hello_message_bytes, limits.hello_depth, limits.hello_items)


def message_limits(limits: Limits) -> StreamLimits:
    """What one message may be after hello."""
    return StreamLimits(limits.max_message_bytes, limits.max_depth, limits.max_message_items)


class ClientProtocol(asyncio.Protocol):
    """One connection of :class:`bridge.serving.server.Server`.

    Args:
        handlers: the method table's owner (shared by every connection).
        serving: told when the client leaves (its queued work is dropped).
        limits: the server's limits.
        registry: the server's open connections; this one adds itself while open (or closes at
            once, unanswered, past ``max_connections``).
        spin: seconds its socket is watched after an answer while alone (``idle_spin``).
    """

    def __init__(
        self,
        handlers: Handlers,
        serving: Serving,
        limits: Limits,
        registry: set[ClientProtocol],
        spin: float = 0.0,
    ) -> None:
        self.handlers, self.serving, self.limits, self.registry = handlers, serving, limits, registry
        self._spin_seconds, self._spin = spin, _NO_SPIN
        self.loop = asyncio.get_running_loop()
        self.peer = "?"
        self.transport: asyncio.Transport | None = None
        self.session: Session | None = None
        self.stream = MessageStream(hello_limits(limits))
        self._wide = message_limits(limits)
        self._timer: asyncio.TimerHandle | None = None
        self._message_started = False  # a message's first bytes are buffered (its clock runs)
        self._closing = False
        self._backlog = False  # whole messages may wait in the stream for a later slice
        self._writing_paused = False  # the peer leaves answers unread past the high-water mark
        self.slow_since: float | None = None  # when it began to (the oldest is cut first)
        # Answer bytes not yet given to the transport, in order: once anything is held, every
        # later answer queues behind it (answers never overtake one another).
        self._held: deque[memoryview] = deque()
        self._held_bytes = 0
        self._close_when_sent = False  # close() came while answers were held

    # ---- asyncio callbacks --------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a TCP transport (uvloop's is one without being asyncio.Transport's subclass)
        self.transport = stream = cast(asyncio.Transport, transport)
        self.peer = str(stream.get_extra_info("peername"))
        if len(self.registry) >= self.limits.max_connections:
            log.warning("%s: %d connections are open (the limit); closing", self.peer, len(self.registry))
            self._closing = True
            stream.abort()
            return
        self.registry.add(self)
        log.info("%s connected", self.peer)
        self.session = Session(
            self.handlers.table, send=self._send, connection=Connection(self.peer), limits=self.limits
        )
        sock = stream.get_extra_info("socket")
        if sock is not None:  # a watch of 0 seconds registers nothing and never polls
            self._spin = IdleSpin(sock.fileno(), self._spin_seconds)
        self._arm(self.limits.hello_timeout, self._hello_late)

    def data_received(self, data: bytes) -> None:
        if self._closing or self.session is None:
            return
        if not self._backlog:  # one whole small request, the usual read: decoded from the bytes
            message = self.stream.decode_whole(data)
            if message is not NOT_WHOLE:
                self._handle_one(message)
                return
        self.stream.feed(data)
        self._handle()

    def _handle_one(self, message: object) -> None:
        """:meth:`_handle` for a read that was exactly one message (nothing else buffered)."""
        deadline, serving, session = time.perf_counter() + SLICE_SECONDS, self.serving, self.session
        if session is None:
            return
        # the slice's first request (see _handle); alone: no other connection, nothing pending
        serving.allow_inline_until(math.inf, alone=len(self.registry) == 1 and not session.pending)
        self._message_started = False
        try:  # _dispatch, its usual case without the call
            session.on_message(message)
        except ProtocolViolationError as exc:
            log.warning("%s: %s; closing", self.peer, exc)
            self.close()
            return
        finally:
            serving.allow_inline_until(deadline)
        if session.closing or not session.connection.authorized or self.stream.limits is not self._wide:
            self._after_dispatch(session)  # a hello's outcome, or a wrong token
            return
        # nothing is buffered (the read was one whole message): _clock_message's case of no
        # pending bytes, and reading goes on (no backlog; a paused writer resumes it later)
        if self._timer is not None and not self._closing:
            self._disarm()
        if len(self.registry) == 1 and not session.pending and not self._closing:
            self._spin.watch()  # answered, alone: the next request may come before the CPU sleeps

    def _handle(self) -> None:
        """Handle the buffered messages for one slice; when some are left, stop reading and come
        back after the loop has served the others."""
        self._backlog = False
        session = self.session
        if self._closing or session is None:
            return
        deadline = time.perf_counter() + SLICE_SECONDS
        # The slice's first request may run inline whatever the clock says: when the loop was held
        # up (a busy machine) before it, the search threads may all be running long searches, and
        # a one-step query handed to them waited seconds. It takes INLINE_EXPANSIONS at most.
        self.serving.allow_inline_until(math.inf)
        try:
            for message in self.stream:
                if not self._dispatch(message):
                    return
                self.serving.allow_inline_until(deadline)
                if self.stream.pending_bytes and time.perf_counter() >= deadline:
                    self._defer()
                    return
        except StreamError as exc:
            log.warning("%s: %s; closing", self.peer, exc)
            self.close()
            return
        finally:
            self.serving.allow_inline_until(deadline)  # as before for queries answered later
        self._clock_message()
        self._read_again()

    def _dispatch(self, message: object) -> bool:
        """Hand one message to the session; False when the connection is closing after it."""
        session = self.session
        if session is None:
            return False
        self._message_started = False
        try:
            session.on_message(message)
        except ProtocolViolationError as exc:
            log.warning("%s: %s; closing", self.peer, exc)
            self.close()
            return False
        return self._after_dispatch(session)

    def _after_dispatch(self, session: Session) -> bool:
        """After a message: close after a wrong token, widen the limits after a good hello; False
        when the connection is closing."""
        if session.closing:
            log.warning("%s: hello with a wrong token; closing", self.peer)
            self.close()
            return False
        if session.connection.authorized and self.stream.limits is not self._wide:
            self.stream.limits = self._wide
            self._disarm()
        return not self._closing  # an answer past the unread cap closed us

    def _defer(self) -> None:
        """The slice is spent with messages left: read no more until they are handled."""
        self._backlog = True
        if self.transport is not None and self.transport.is_reading():
            self.transport.pause_reading()
        if not self._writing_paused:
            self.loop.call_soon(self._handle)

    def _read_again(self) -> None:
        transport = self.transport
        ready = transport is not None and not self._closing and not self._writing_paused
        if ready and transport is not None and not transport.is_reading():
            transport.resume_reading()

    def eof_received(self) -> bool:
        """The peer closed its side: answer what is pending, then close ours."""
        if self.session is not None and not self._closing:
            self.loop.create_task(self._drain_then_close(self.session))
            return True  # keep our side open for the answers
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.session is None:
            return
        if exc is not None:
            log.info("%s: connection lost: %s", self.peer, exc)
        self.registry.discard(self)
        self._spin = _NO_SPIN  # its socket is closed: the fd number may be another's soon
        self._drop_held()
        self.session.cancel()
        self.serving.forget(self.session.connection)
        log.info("%s closed", self.peer)
        self.session = None

    def pause_writing(self) -> None:
        """The peer does not read its answers: stop reading its requests until it does."""
        self._writing_paused = True
        if self.slow_since is None:
            self.slow_since = time.monotonic()
        if self.transport is not None and not self._closing:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self._writing_paused = False
        self.slow_since = None
        self._give_held()
        if self._writing_paused or self._held:  # the next piece is under way: keep waiting
            return
        if self._backlog:
            self.loop.call_soon(self._handle)
        else:
            self._read_again()

    # ---- ours ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Close after the answers already written (the server is stopping, or the peer broke a rule)."""
        self._closing = True
        self._disarm()
        if self._held:
            self._close_when_sent = True  # the last piece given closes the transport
        elif self.transport is not None:
            self.transport.close()

    def _send(self, data: bytes | memoryview | list[bytes | memoryview]) -> None:
        """Write one answer (a list: its pieces, in order, in one ``writelines``); a peer leaving
        more than ``max_buffered_bytes`` unread is cut off, and past ``max_unread_bytes`` unread in
        all, the slowest readers are."""
        transport = self.transport
        if transport is None or transport.is_closing() or self._close_when_sent:
            return
        if isinstance(data, list):  # an answer's pieces: written together, not joined first
            pieces = [memoryview(piece).cast("B") for piece in data]
            if self._held or sum(len(piece) for piece in pieces) > WRITE_PIECE_BYTES:
                self._hold(pieces)
            else:
                transport.writelines(pieces)
        elif self._held or len(data) > WRITE_PIECE_BYTES:
            self._hold([memoryview(data).cast("B")])
        else:
            transport.write(data)
        unread = self.unread()
        if unread > self.limits.max_buffered_bytes:
            log.warning(
                "%s: %d answer bytes unread, past the limit of %d; closing",
                self.peer,
                unread,
                self.limits.max_buffered_bytes,
            )
            self._cut()
        elif unread > UNREAD_CHECK_BYTES:
            self._check_unread()

    def _hold(self, pieces: list[memoryview]) -> None:
        """Queue ``pieces`` (byte views) behind the answers held already, and give what fits."""
        self._held.extend(pieces)
        self._held_bytes += sum(len(piece) for piece in pieces)
        self._give_held()

    def _give_held(self) -> None:
        """Hand the transport held answer bytes a piece at a time until it pauses us (past its
        high-water mark): resume_writing comes back for the next once the peer has taken most."""
        transport = self.transport
        while self._held and not self._writing_paused:
            if transport is None or transport.is_closing():
                return
            first = self._held[0]
            piece = first[:WRITE_PIECE_BYTES]
            if len(piece) == len(first):
                self._held.popleft()
            else:
                self._held[0] = first[WRITE_PIECE_BYTES:]
            self._held_bytes -= len(piece)
            transport.write(piece)
        if not self._held and self._close_when_sent and transport is not None:
            transport.close()

    def _drop_held(self) -> None:
        self._held.clear()
        self._held_bytes = 0

    def _cut(self) -> None:
        self._closing = True
        self._drop_held()
        if self.transport is not None:
            self.transport.abort()  # frees its unread answers now

    def unread(self) -> int:
        """Answer bytes written or held and not yet taken by the peer's socket."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return 0
        return transport.get_write_buffer_size() + self._held_bytes

    def _check_unread(self) -> None:
        """Past ``max_unread_bytes`` unread across every connection: cut the peers that stopped
        reading longest ago (this one last, if it is not one of them) until the rest fit."""
        cap = self.limits.max_unread_bytes
        sizes = {c: c.unread() for c in self.registry}
        total = sum(sizes.values())
        if total <= cap:
            return
        now = time.monotonic()
        order = sorted(
            (c for c, size in sizes.items() if size),
            key=lambda c: (c is self, now if c.slow_since is None else c.slow_since),
        )
        for connection in order:
            if total <= cap:
                break
            total -= sizes[connection]
            log.warning(
                "%s: %d answer bytes unread by every peer, past the limit of %d; closing the slowest "
                "reader (%d bytes unread)",
                connection.peer,
                total + sizes[connection],
                cap,
                sizes[connection],
            )
            connection._cut()

    async def _drain_then_close(self, session: Session) -> None:
        deadline = self.loop.time() + DRAIN_SECONDS
        while self._backlog and not self._closing and self.loop.time() < deadline:
            await asyncio.sleep(SLICE_SECONDS)  # requests still waiting for their slice
        await session.drain(DRAIN_SECONDS)
        self.close()

    def _clock_message(self) -> None:
        """After a read: start the read clock when a message began, stop it between messages."""
        if self.session is None or not self.session.connection.authorized:
            return  # the hello clock runs, whatever the message
        if not self.stream.pending_bytes:
            self._message_started = False
            self._disarm()
        elif not self._message_started:
            self._message_started = True
            self._arm(self.limits.read_timeout, self._read_late)

    def _arm(self, seconds: float, late: Callable[[], None]) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, late)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _hello_late(self) -> None:
        self._timer = self.loop.call_later(GRACE_SECONDS, self._give_up, self._no_hello)

    def _read_late(self) -> None:
        self._timer = self.loop.call_later(GRACE_SECONDS, self._give_up, self._incomplete)

    def _no_hello(self) -> str | None:
        authorized = self.session is not None and self.session.connection.authorized
        return None if authorized else f"no hello within {self.limits.hello_timeout:g} s"

    def _incomplete(self) -> str | None:
        if not self._message_started:
            return None
        return f"a message stayed incomplete {self.limits.read_timeout:g} s"

    def _give_up(self, why: Callable[[], str | None]) -> None:
        self._timer = None
        reason = why()
        if reason is not None:
            log.warning("%s: %s; closing", self.peer, reason)
            self.close()
