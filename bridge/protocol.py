"""Wire constants of the A* Bridge protocol: version, message types, method names, limits.

``bridge/PROTOCOL.md`` is the human-readable table of the same facts; keep the two in step.

    from bridge.protocol import PROTOCOL_VERSION, Limits
    limits = Limits(max_message_bytes=1 << 20)
    assert limits.max_message_bytes == 1 << 20
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "METHODS",
    "NOTIFICATION",
    "PROTOCOL_VERSION",
    "REQUEST",
    "RESPONSE",
    "SERVER_NAME",
    "Limits",
]

PROTOCOL_VERSION: Final = 1
"""Bumped on any incompatible change of a method, parameter, result or error code."""

SERVER_NAME: Final = "astar-bridge"

REQUEST: Final = 0
RESPONSE: Final = 1
NOTIFICATION: Final = 2

METHODS: Final = (
    "hello",
    "graph.load_grid",
    "graph.load_waypoints",
    "graph.load_navmesh",
    "graph.build_hierarchy",
    "graph.update",
    "graph.drop",
    "graph.info",
    "graph.list",
    "path.find",
    "path.find_many",
    "path.reachable",
)
"""Every method the server answers, in PROTOCOL.md's order."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits the server enforces; past one the offender gets an error, everyone else is served.

    Attributes:
        max_message_bytes: largest single msgpack message accepted (checked before allocating).
        max_graph_nodes: most cells (grid), points (waypoints) or vertices/polygons (navmesh) per graph.
        max_graphs: most graphs loaded at once.
        max_expansions: cap on every query's expansion budget (a larger or absent request is capped).
        max_pending: most requests one connection may have in flight.
        max_batch: most queries in one ``path.find_many``.
    """

    max_message_bytes: int = 64 * 1024 * 1024
    max_graph_nodes: int = 16 * 1024 * 1024
    max_graphs: int = 256
    max_expansions: int = 20_000_000
    max_pending: int = 256
    max_batch: int = 100_000
