"""Typed exceptions of python_core.

Each one also subclasses the builtin a caller would expect (``ValueError``, ``IndexError``,
``KeyError``), so ``except ValueError`` keeps working, and carries a stable ``code`` that the bridge
sends over the wire unchanged.
"""

from __future__ import annotations

__all__ = [
    "AStarError",
    "BlockedEndpointError",
    "GraphFileError",
    "InvalidGraphError",
    "InvalidQueryError",
    "OutOfBoundsError",
    "UnknownPointError",
]


class AStarError(Exception):
    """Base class of every error python_core raises on purpose."""

    code: str = "astar_error"


class InvalidGraphError(AStarError, ValueError):
    """The data given for a graph cannot make a valid graph (the graph is not built)."""

    code = "invalid_graph"


class InvalidQueryError(AStarError, ValueError):
    """A query's arguments or options are malformed (non-finite coordinates, unknown heuristic...)."""

    code = "bad_request"


class OutOfBoundsError(AStarError, IndexError):
    """A cell or point lies outside the graph."""

    code = "out_of_bounds"


class BlockedEndpointError(AStarError, ValueError):
    """A start or goal lies on a blocked cell or disabled point where that is an error."""

    code = "blocked_endpoint"


class UnknownPointError(AStarError, KeyError):
    """A waypoint id, agent id or polygon id that the graph does not hold."""

    code = "unknown_point"

    def __str__(self) -> str:
        # KeyError quotes its argument; keep the plain sentence.
        return str(self.args[0]) if self.args else ""


class GraphFileError(AStarError, ValueError):
    """A graph file is unreadable, of an unknown version, or describes an invalid graph."""

    code = "invalid_graph"
