"""Wire errors: one exception class per protocol error code, in the manner of pygls ``exceptions.py``.

Each class carries its wire ``code``; ``to_wire()`` gives the ``{"code", "message", "data"}`` map that
travels in a response's error slot. python_core's exceptions know nothing of the wire:
:data:`CORE_CODES` is the one table from a core exception class to its wire code, and
:func:`from_exception` applies it.

    from bridge.errors import UnknownGraphError, from_exception
    err = from_exception(KeyError("x"))
    assert err.code == "internal" and UnknownGraphError("g").code == "unknown_graph"
"""

from __future__ import annotations

import traceback
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


class GraphRejectedError(BridgeError):
    """The server rejects a graph (code ``invalid_graph``): the data of a load or update cannot make a
    valid graph, or a hierarchy is missing or cannot be built; the old graph (if any) is untouched."""

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
    class and keep their message; anything else becomes ``internal`` with the traceback in ``data``.
    """
    if isinstance(exc, BridgeError):
        return exc
    if isinstance(exc, core.AStarError):
        return from_wire({"code": core_code(exc), "message": str(exc), "data": {"type": type(exc).__name__}})
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return InternalError("internal server error", {"type": type(exc).__name__, "traceback": tb})


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
