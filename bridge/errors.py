"""Wire errors: one exception class per protocol error code, in the manner of pygls ``exceptions.py``.

Each class carries its wire ``code``; ``to_wire()`` gives the ``{"code", "message", "data"}`` map that
travels in a response's error slot. python_core's own exceptions already carry a ``code`` and are
converted by :func:`from_exception`.

    from bridge.errors import UnknownGraphError, from_exception
    err = from_exception(KeyError("x"))
    assert err.code == "internal" and UnknownGraphError("g").code == "unknown_graph"
"""

from __future__ import annotations

import traceback
from typing import Any, ClassVar

from python_core.errors import AStarError
from python_core.navigation import UnsupportedOperationError

__all__ = [
    "BadRequestError",
    "BridgeError",
    "InternalError",
    "InvalidGraphError",
    "OutOfBoundsError",
    "TooLargeError",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnknownGraphError",
    "UnknownMethodError",
    "UnsupportedError",
    "error_code",
    "from_exception",
    "from_wire",
]


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
        super().__init__(f"no graph is loaded with id {graph_id!r}", {"graph": graph_id})


class InvalidGraphError(BridgeError):
    """The data of a load or update cannot make a valid graph; the old graph (if any) is untouched."""

    code = "invalid_graph"


class OutOfBoundsError(BridgeError):
    """A cell or point lies outside the graph."""

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
    """An unexpected failure inside the server; the traceback is in ``data`` only."""

    code = "internal"


def from_exception(exc: BaseException) -> BridgeError:
    """Convert any exception into a wire error.

    Bridge errors pass through; python_core errors keep their ``code`` and message (an operation
    the graph kind cannot do is ``unsupported``); anything else becomes ``internal`` with the
    traceback in ``data``.
    """
    if isinstance(exc, BridgeError):
        return exc
    if isinstance(exc, UnsupportedOperationError):
        return UnsupportedError(str(exc), {"type": type(exc).__name__})
    if isinstance(exc, AStarError):
        return from_wire({"code": exc.code, "message": str(exc), "data": {"type": type(exc).__name__}})
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return InternalError("internal server error", {"type": type(exc).__name__, "traceback": tb})


_BY_CODE: dict[str, type[BridgeError]] = {
    cls.code: cls
    for cls in (
        BadRequestError,
        UnknownMethodError,
        InvalidGraphError,
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
    """Rebuild an exception from an error map (as sent by a worker process or the server)."""
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
