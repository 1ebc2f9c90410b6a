"""One connection's msgpack-RPC session: message types, msgids, authorisation, pending requests.

The session gets whole decoded messages (from :mod:`bridge.wire.stream`) and a ``send`` callable for
encoded responses; it knows nothing of sockets. The request boundary answers unknown methods,
known errors and unexpected ones (``internal``, naming only the exception type: the traceback
stays in the server's log) separately. After a ``hello`` with a wrong token is answered,
``closing`` is set: the connection is closed, so a token cannot be guessed on one connection.

    session = Session(handlers.table, send=transport.write, connection=Connection("peer"), limits=limits)
    session.on_message([0, 1, "hello", [{"token": "t", "client": "me", "protocol": 1}]])
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgpack

from bridge.methods.interface import Connection, Handler
from bridge.wire.answers import Encoded
from bridge.wire.errors import (
    BadRequestError,
    TooManyRequestsError,
    UnauthorizedError,
    UnknownMethodError,
    from_exception,
    short_repr,
)
from bridge.wire.protocol import NOTIFICATION, REQUEST, RESPONSE, Limits
from bridge.wire.stream import pack

__all__ = ["ProtocolViolationError", "Session"]

log = logging.getLogger("bridge.session")

MAX_MSGID = 2**32 - 1

ONE_WRITE_BYTES = 1 << 16
"""An encoded answer of this many bytes or fewer leaves with its header in one write (a copy of a
few microseconds); a larger one's header and body are written apart, the body not copied first."""


class ProtocolViolationError(ValueError):
    """A message that is not msgpack-RPC and carries no msgid to answer: the connection closes."""


class Session:
    """Dispatch of one connection's messages through the method table.

    Args:
        table: method name -> handler.
        send: writes one encoded response to the peer (a list: its pieces, in order, as one).
        connection: the state handlers see (peer name, authorised flag).
        limits: ``max_pending`` is enforced here.
    """

    def __init__(
        self,
        table: Mapping[str, Handler],
        *,
        send: Callable[[bytes | memoryview | list[bytes | memoryview]], None],
        connection: Connection,
        limits: Limits,
    ) -> None:
        self.table = table
        self.send = send
        self.connection = connection
        self.limits = limits
        self._tasks: set[asyncio.Task[None]] = set()
        # the methods an authorised connection calls, looked up at once (hello is answered by the rules)
        self._served = {name: handler for name, handler in table.items() if name != "hello"}
        self._packer = msgpack.Packer(use_bin_type=True)  # answers are packed on the loop only
        self._max_pending = limits.max_pending
        self.closing = False
        """Set once this connection must be closed after its answers are sent (a wrong token)."""
        connection.notify = self.notify

    @property
    def pending(self) -> int:
        """Requests in flight (answered later: queued behind a write, or on a search thread)."""
        return len(self._tasks)

    def on_message(self, message: Any) -> None:  # noqa: PLR0912 (the usual request in one call)
        """Handle one decoded message (the usual request, authorised with a known method and room to
        be pending, at once: no call per step, a fifth of a microsecond less per request).

        Raises:
            ProtocolViolationError: the message is not a msgpack-RPC request or notification with a
                usable msgid; the caller closes the connection.
        """
        if type(message) is list and len(message) == 4 and message[0] == REQUEST:  # the usual message
            msgid, method = message[1], message[2]
            if type(msgid) is int and 0 <= msgid <= MAX_MSGID:
                handler = None
                if (
                    type(method) is str
                    and self.connection.authorized
                    and len(self._tasks) < self._max_pending
                ):
                    handler = self._served.get(method)  # no rule can refuse it: answered here
                if handler is None:
                    self._request(msgid, method, message[3])
                    return
                try:
                    outcome = handler(self.connection, message[3])
                except BaseException as exc:
                    self._answer_error(msgid, method, exc)
                    return
                if type(outcome) is dict:  # most answers: a result map now, packed here
                    try:
                        data = self._packer.pack([RESPONSE, msgid, None, outcome])
                    except Exception:  # _respond answers it (the packer reset itself)
                        self._respond(msgid, None, outcome)
                        return
                    self.send(data)
                    return
                self._settle(msgid, method, outcome)
                return
        if not isinstance(message, list) or not message or not isinstance(message[0], int):
            raise ProtocolViolationError(f"not a msgpack-RPC message: {short_repr(message)}")
        kind = message[0]
        if kind == REQUEST and len(message) == 4:
            msgid = message[1]
            if not isinstance(msgid, int) or isinstance(msgid, bool) or not 0 <= msgid <= MAX_MSGID:
                raise ProtocolViolationError(f"request msgid must be a uint32, got {short_repr(msgid)}")
            self._request(msgid, message[2], message[3])
        elif kind == NOTIFICATION and len(message) == 3:
            log.debug("%s: ignoring notification %s", self.connection.peer, short_repr(message[1]))
        elif kind == RESPONSE and len(message) == 4:
            log.debug("%s: ignoring a response; this server sends no requests", self.connection.peer)
        else:
            raise ProtocolViolationError(f"unknown message type or length: {short_repr(message)}")

    def _request(self, msgid: int, method: Any, params: Any) -> None:
        """A request :meth:`on_message` did not answer at once: hello, an unauthorised or unknown
        method, or no room left to be pending (the rules below answer those)."""
        try:
            handler = self._handler(method)
            if self.pending >= self.limits.max_pending:
                raise TooManyRequestsError(
                    f"at most {self.limits.max_pending} requests may be pending on one connection",
                    {"limit": self.limits.max_pending},
                )
            outcome = handler(self.connection, params)
        except BaseException as exc:
            self._answer_error(msgid, method, exc)
            return
        self._settle(msgid, method, outcome)

    def _settle(self, msgid: int, method: Any, outcome: Any) -> None:
        """Answer a handler's outcome: a result now, or an awaitable's when it is done."""
        if type(outcome) is dict:  # most answers: a result map now
            self._respond(msgid, None, outcome)
        elif inspect.isawaitable(outcome):
            task = asyncio.ensure_future(self._finish(msgid, method, outcome))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self._respond(msgid, None, outcome)

    def _handler(self, method: Any) -> Handler:
        if not isinstance(method, str):
            raise UnknownMethodError(f"method must be a string, got {type(method).__name__}")
        if method == "hello" and self.connection.authorized:
            raise BadRequestError("hello: this connection has already said hello")
        if method != "hello" and not self.connection.authorized:
            raise UnauthorizedError(f"{method[:80]}: say hello with the server's token first")
        handler = self.table.get(method)
        if handler is None:
            raise UnknownMethodError(f"unknown method {method[:80]!r}", {"method": method[:200]})
        return handler

    async def _finish(self, msgid: int, method: Any, outcome: Awaitable[Any]) -> None:
        try:
            result = await outcome
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._no_longer_pending()
            self._answer_error(msgid, method, exc)
            return
        self._no_longer_pending()
        self._respond(msgid, None, result)

    def _no_longer_pending(self) -> None:
        """Stop counting this task as pending before its answer goes out: its done callback runs a
        loop turn later, and a client that sends its next requests on reading the answer must
        find the room the answer freed (a test on uvloop under load saw its next request refused)."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.discard(task)

    def _answer_error(self, msgid: int, method: Any, exc: BaseException) -> None:
        if not isinstance(exc, Exception):
            raise exc  # KeyboardInterrupt, SystemExit: not ours to answer
        error = from_exception(exc)  # logs an unexpected failure (rate-limited), never sends it
        if method == "hello" and isinstance(error, UnauthorizedError):
            self.closing = True
        self._respond(msgid, error.to_wire(), None)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send the notification ``[2, method, [params]]`` to the peer (e.g. ``graph.progress``)."""
        self.send(pack([NOTIFICATION, method, [params]]))

    def _respond(self, msgid: int, error: Any, result: Any) -> None:
        if isinstance(result, Encoded):  # already encoded: only the header is ours to write
            head = b"\x94" + pack(RESPONSE) + pack(msgid) + b"\xc0"
            if isinstance(result.data, list):  # its pieces: written together, not joined first
                self.send([head, *result.data])
                return
            if len(result.data) <= ONE_WRITE_BYTES:  # one write: the client wakes once
                self.send(head + result.data)
                return
            self.send(head)
            self.send(memoryview(result.data))  # the unsent rest is copied once, not sliced first
            return
        try:
            data = self._packer.pack([RESPONSE, msgid, error, result])  # resets itself on failure
        except Exception as exc:  # a result the encoder cannot take is our bug, not the client's
            data = pack([RESPONSE, msgid, from_exception(exc).to_wire(), None])
        self.send(data)

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) for pending requests to be answered."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    def cancel(self) -> None:
        """Abandon pending requests (the connection is gone)."""
        for task in list(self._tasks):
            task.cancel()
