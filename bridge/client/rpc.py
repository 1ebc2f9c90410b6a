"""One msgpack-RPC connection over a plain socket: requests out, answers and notifications in
(:class:`bridge.Client` adds the protocol's methods).

    with RpcConnection.connect("127.0.0.1", port) as rpc:
        rpc.call("hello", {"token": token, "client": "me", "protocol": 1})
"""

from __future__ import annotations

import itertools
import socket
import struct
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

import msgpack

from bridge.wire.errors import from_wire
from bridge.wire.idle_spin import SPIN_SECONDS, IdleSpin
from bridge.wire.protocol import NOTIFICATION, REQUEST, RESPONSE
from bridge.wire.stream import READ_CHUNK

__all__ = ["ClosedError", "RpcConnection", "kernel_timeouts"]

_C = TypeVar("_C", bound="RpcConnection")


class ClosedError(ConnectionError):
    """The server closed the connection before answering."""


class RpcConnection:
    """One connection; :meth:`call` blocks until its answer (other answers that arrive are kept).

    Args:
        sock: a connected socket (see :meth:`connect`).
        spin: seconds the socket is watched busily before a read blocks
            (:mod:`bridge.wire.idle_spin`; 0: never).

    Attributes:
        notifications: ``(method, params map)`` of every notification received, oldest first.
        on_notification: called with ``(method, params map)`` as each one arrives, or None.
    """

    def __init__(self, sock: socket.socket, spin: float = SPIN_SECONDS) -> None:
        self.sock = sock
        self._spin = IdleSpin(sock.fileno(), spin)
        self._unpacker = msgpack.Unpacker(raw=False, max_buffer_size=0)
        self._fed = 0  # bytes fed to the unpacker (all taken when its tell() is this)
        self._packer = msgpack.Packer(use_bin_type=True)  # one for every request: packb makes one a call
        self._ids = itertools.count(1)
        self._answers: dict[int, tuple[Any, Any]] = {}
        self.notifications: list[tuple[str, dict[str, Any]]] = []
        self.on_notification: Callable[[str, dict[str, Any]], None] | None = None

    @classmethod
    def connect(cls: type[_C], host: str = "127.0.0.1", port: int = 0, *, timeout: float | None = 60.0) -> _C:
        """Open a TCP connection (Nagle off: requests are small); ``timeout``: the seconds a connect,
        a send or a read may wait (None: no limit), after which it raises :class:`TimeoutError`.

        Where the system allows, the socket then blocks and the kernel keeps the send and read
        timeouts (``SO_SNDTIMEO``, ``SO_RCVTIMEO``): a Python socket timeout polls before every
        send and read, two system calls more a request (:func:`kernel_timeouts`)."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if timeout is not None:
            kernel_timeouts(sock, timeout)
        return cls(sock)

    # ---- raw RPC ------------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any]) -> int:
        """Send a request without waiting; returns its msgid (see :meth:`receive`)."""
        msgid = next(self._ids)
        try:
            self.sock.sendall(self._packer.pack([REQUEST, msgid, method, [params]]))
        except BlockingIOError as exc:  # the kernel's send timeout ran out (kernel_timeouts)
            raise TimeoutError("timed out") from exc
        return msgid

    def receive(self, msgid: int) -> Any:
        """Wait for the answer to ``msgid``; raise its error as a :class:`BridgeError`."""
        answers = self._answers
        answer = None
        if msgid not in answers and self._fed == self._unpacker.tell():  # nothing half-read
            answer = self._read_one(msgid)
        if answer is None:
            while msgid not in answers:
                self._read()
            answer = answers.pop(msgid)
        error, result = answer
        if error is not None:
            raise from_wire(error if isinstance(error, dict) else {"message": str(error)})
        return result

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and wait for its result."""
        return self.receive(self.send(method, params or {}))

    def _read_one(self, msgid: int) -> tuple[Any, Any] | None:
        """One read, when nothing is buffered: the usual answer, the read being exactly it, decoded
        straight from the bytes (``(error, result)``: 1.6 us less a call than the unpacker's feed
        and iteration); None when the read held anything else (it is then taken as :meth:`_read`
        takes it)."""
        data = self._recv()
        if len(data) == READ_CHUNK:  # a full read: most likely part of a large answer
            self._take(data)
            return None
        try:
            message = msgpack.unpackb(data, raw=False)
        except Exception:  # part of a message, several, or bad bytes: the unpacker's to take
            self._take(data)
            return None
        if type(message) is list and len(message) == 4 and message[0] == RESPONSE and message[1] == msgid:
            return message[2], message[3]
        self._keep(message)
        return None

    def _read(self) -> None:
        self._take(self._recv())

    def _recv(self) -> bytes:
        """The bytes of one read (some)."""
        self._spin.watch()  # the answer often comes within it: the read then never sleeps
        try:
            data = self.sock.recv(READ_CHUNK)
        except BlockingIOError as exc:  # the kernel's read timeout ran out (kernel_timeouts)
            raise TimeoutError("timed out") from exc
        if not data:
            raise ClosedError("the server closed the connection")
        return data

    def _take(self, data: bytes) -> None:
        """Feed ``data`` to the unpacker and keep every whole message."""
        self._unpacker.feed(data)
        self._fed += len(data)
        for message in self._unpacker:
            self._keep(message)

    def _keep(self, message: Any) -> None:
        """An answer is kept for :meth:`receive`; a notification is noted and passed on."""
        if isinstance(message, list) and len(message) == 4 and message[0] == RESPONSE:
            self._answers[message[1]] = (message[2], message[3])
        elif isinstance(message, list) and len(message) == 3 and message[0] == NOTIFICATION:
            args = message[2]
            params = args[0] if isinstance(args, list) and args and isinstance(args[0], dict) else {}
            self.notifications.append((str(message[1]), params))
            if self.on_notification is not None:
                self.on_notification(str(message[1]), params)

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def kernel_timeouts(sock: socket.socket, seconds: float) -> None:
    """Make ``sock`` blocking with its send and read timeouts kept by the kernel (``SO_SNDTIMEO``,
    ``SO_RCVTIMEO``; a call past one fails with ``EAGAIN``, which :class:`RpcConnection` raises as
    :class:`TimeoutError`), where the system has them; elsewhere (Windows) Python's ``seconds``
    timeout stays. A Python socket timeout waits in ``poll`` before every send and read: two
    system calls more a request than a blocking socket's ``sendto`` and ``recvfrom``."""
    if sys.platform == "win32" or not hasattr(socket, "SO_RCVTIMEO"):
        return
    whole = int(seconds)
    micro = min(999_999, max(0 if whole else 1, round((seconds - whole) * 1e6)))  # 0 s would mean never
    timeval = struct.pack("ll", whole, micro)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
    sock.settimeout(None)
