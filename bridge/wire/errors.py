"""Wire errors: one exception class per protocol error code, in the manner of pygls ``exceptions.py``.

Each class carries its wire ``code``; ``to_wire()`` gives the ``{"code", "message", "data"}`` map that
travels in a response's error slot. python_core's exceptions know nothing of the wire:
:data:`CORE_CODES` is the one table from a core exception class to its wire code, and
:func:`from_exception` applies it.

    from bridge.wire.errors import UnknownGraphError, from_exception
    err = from_exception(KeyError("x"))
    assert err.code == "internal" and UnknownGraphError("g").code == "unknown_graph"
"""

from __future__ import annotations

import logging
import reprlib
import threading
import time
from typing import Any, ClassVar

from python_core import errors as core

__all__ = [
    "CORE_CODES",
    "BadRequestError",
    "BridgeError",
    "GraphRejectedError",
    "InternalError",
    "OutOfBoundsError",
    "TooLargeError",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnknownGraphError",
    "UnknownMethodError",
    "UnsupportedError",
    "core_code",
    "error_code",
    "from_exception",
    "from_wire",
    "short_repr",
]

log = logging.getLogger("bridge.errors")

INTERNAL_LOG_SECONDS = 60.0
"""An unexpected failure is logged with its traceback at most once per this many seconds per
failure site (exception type, file and line): a client repeating a crashing request cannot
flood the log."""


class _ShortRepr(reprlib.Repr):
    """reprlib's bounded repr (depth, lengths) plus bytes shown by size, never by content."""

    def repr_bytes(self, value: bytes, level: int) -> str:
        return f"bin({len(value)} bytes)"

    def repr_bytearray(self, value: bytearray, level: int) -> str:
        return f"bin({len(value)} bytes)"


_SHORT = _ShortRepr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 2, 40, 40, 40
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 4


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for an error message, bounded whatever the value: nesting past two levels is
    ``[...]``, long strings, numbers and containers are cut, bytes show their size only, and the
    whole is at most ``limit`` characters. Never recurses deeper than two levels.

    Example:
        >>> short_repr([[[[1]]]]), short_repr(b"x" * 10**6), short_repr("a" * 100, 12)
        ('[[[...]]]', 'bin(1000000 bytes)', "'aaaaaaaa...")
    """
    try:
        text = _SHORT.repr(value)
    except Exception:  # a value whose own repr fails must not fail the error that names it
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class BridgeError(Exception):
    """An error the server answers with; ``code`` is the wire code."""

    code: ClassVar[str] = "internal"

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = dict(data or {})

    def to_wire(self) -> dict[str, Any]:
        """The error map of a response: ``{"code": str, "message": str, "data": map}``."""
        return {"code": self.code, "message": self.message, "data": self.data}


class BadRequestError(BridgeError):
    """Parameters of the wrong type, missing or unknown fields, malformed messages."""

    code = "bad_request"


class UnknownMethodError(BridgeError):
    """The method name is not in the protocol table."""

    code = "unknown_method"


class UnknownGraphError(BridgeError):
    """No graph is loaded under that id."""

    code = "unknown_graph"

    def __init__(self, graph_id: str) -> None:
        super().__init__(f"no graph is loaded with id {short_repr(graph_id)}", {"graph": graph_id[:200]})


class GraphRejectedError(BridgeError):
    """The server rejects a graph (code ``invalid_graph``): the data of a load or update cannot make a
    valid graph, or a hierarchy is missing or cannot be built; the old graph (if any) is untouched."""

    code = "invalid_graph"


class OutOfBoundsError(BridgeError, core.OutOfBoundsError):
    """A cell or point lies outside the graph. Also python_core's ``OutOfBoundsError``: one
    ``except OutOfBoundsError`` catches it from a search in this process and from a sidecar."""

    code = "out_of_bounds"


class TooLargeError(BridgeError):
    """A message, graph or batch exceeds a server limit."""

    code = "too_large"


class TooManyRequestsError(BridgeError):
    """The connection already has the maximum number of requests in flight."""

    code = "too_many_requests"


class UnauthorizedError(BridgeError):
    """The connection has not said ``hello`` with the right token."""

    code = "unauthorized"


class UnsupportedError(BridgeError):
    """The graph type does not support the operation (e.g. updating a navmesh)."""

    code = "unsupported"


class InternalError(BridgeError):
    """An unexpected failure inside the server: ``data`` names the exception type only; the
    traceback stays in the server's log."""

    code = "internal"


CORE_CODES: dict[type[core.AStarError], str] = {
    core.AStarError: "astar_error",
    core.InvalidGraphError: "invalid_graph",
    core.GraphFileError: "invalid_graph",
    core.InvalidQueryError: "bad_request",
    core.OutOfBoundsError: "out_of_bounds",
    core.BlockedEndpointError: "blocked_endpoint",
    core.UnknownPointError: "unknown_point",
    core.UnsupportedOperationError: "unsupported",
}
"""The wire code of each python_core exception class (a subclass takes its nearest listed base's)."""


def core_code(exc: core.AStarError) -> str:
    """The wire code of a python_core exception, by the nearest class of it in :data:`CORE_CODES`.

    Example:
        >>> core_code(core.OutOfBoundsError("x")), core_code(core.GraphFileError("x"))
        ('out_of_bounds', 'invalid_graph')
    """
    for cls in type(exc).__mro__:
        if cls in CORE_CODES:
            return CORE_CODES[cls]
    return CORE_CODES[core.AStarError]


def from_exception(exc: BaseException) -> BridgeError:
    """Convert any exception into a wire error.

    Bridge errors pass through; python_core errors get the code :data:`CORE_CODES` gives their
    class and keep their message; anything else becomes ``internal`` naming only the exception
    type, and is logged here with its traceback (see :data:`INTERNAL_LOG_SECONDS`).
    """
    if isinstance(exc, BridgeError):
        return exc
    if isinstance(exc, core.AStarError):
        return from_wire({"code": core_code(exc), "message": str(exc), "data": {"type": type(exc).__name__}})
    _log_internal(exc)
    return InternalError("internal server error", {"type": type(exc).__name__})


_last_logged: dict[tuple[str, str, int], float] = {}
_log_lock = threading.Lock()


def _log_internal(exc: BaseException) -> None:
    """Log ``exc`` with its traceback unless the same site was logged in the last minute."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    site = (
        type(exc).__name__,
        frame.tb_frame.f_code.co_filename if frame else "",
        frame.tb_lineno if frame else 0,
    )
    now = time.monotonic()
    with _log_lock:
        if now - _last_logged.get(site, -INTERNAL_LOG_SECONDS) < INTERNAL_LOG_SECONDS:
            return
        if len(_last_logged) > 1000:  # bounded: forget old sites rather than grow forever
            _last_logged.clear()
        _last_logged[site] = now
    log.error("internal error (%s line %d)", site[1], site[2], exc_info=exc)


_BY_CODE: dict[str, type[BridgeError]] = {
    cls.code: cls
    for cls in (
        BadRequestError,
        UnknownMethodError,
        GraphRejectedError,
        OutOfBoundsError,
        TooLargeError,
        TooManyRequestsError,
        UnauthorizedError,
        UnsupportedError,
        InternalError,
    )
}


class _CodedError(BridgeError):
    """A wire error whose code has no class of its own (e.g. python_core's ``blocked_endpoint``)."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message, data)
        self.instance_code = code

    def to_wire(self) -> dict[str, Any]:
        return {"code": self.instance_code, "message": self.message, "data": self.data}


def from_wire(error: dict[str, Any]) -> BridgeError:
    """Rebuild an exception from an error map (as the server sends it)."""
    code = str(error.get("code", "internal"))
    message = str(error.get("message", ""))
    data = error.get("data")
    data_map = data if isinstance(data, dict) else {}
    if code == UnknownGraphError.code:
        err: BridgeError = UnknownGraphError(str(data_map.get("graph", "")))
        err.message = message or err.message
        return err
    cls = _BY_CODE.get(code)
    if cls is None:
        return _CodedError(code, message, data_map)
    return cls(message, data_map)


def error_code(err: BridgeError) -> str:
    """The wire code of ``err`` (instance-level for codes without a class)."""
    return str(err.to_wire()["code"])
