"""Typed exceptions of python_core.

Each one also subclasses the builtin a caller would expect (``ValueError``, ``IndexError``,
``KeyError``), so ``except ValueError`` keeps working. They know nothing of the wire: the bridge maps
each class to its protocol error code in one table at its edge (``bridge/wire/errors.py``).
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
    "UnsupportedOperationError",
]


class AStarError(Exception):
    """Base class of every error python_core raises on purpose."""


class InvalidGraphError(AStarError, ValueError):
    """The data given for a graph cannot make a valid graph (the graph is not built)."""


class InvalidQueryError(AStarError, ValueError):
    """A query's arguments or options are malformed (non-finite coordinates, unknown heuristic...)."""


class OutOfBoundsError(AStarError, IndexError):
    """A cell or point lies outside the graph."""


class BlockedEndpointError(AStarError, ValueError):
    """A start or goal lies on a blocked cell or disabled point where that is an error."""


class UnknownPointError(AStarError, KeyError):
    """A waypoint id, agent id or polygon id that the graph does not hold."""

    def __str__(self) -> str:
        # KeyError quotes its argument; keep the plain sentence.
        return str(self.args[0]) if self.args else ""


class GraphFileError(AStarError, ValueError):
    """A graph file is unreadable, of an unknown version, or describes an invalid graph."""


class UnsupportedOperationError(AStarError, TypeError):
    """The graph kind cannot do that at all (a hierarchy over a waypoint graph, changing a navmesh);
    unlike bad arguments, no other input would make it work."""
