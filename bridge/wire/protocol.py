"""Wire constants of the A* Bridge protocol: version, message types, method names, limits.

``bridge/PROTOCOL.md`` is the human-readable table of the same facts; keep the two in step.

    from bridge.wire.protocol import PROTOCOL_VERSION, Limits
    limits = Limits(max_message_bytes=1 << 20)
    assert limits.max_message_bytes == 1 << 20
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "AGENT_ID_MAX",
    "COORDINATE_MAX",
    "METHODS",
    "NOTIFICATION",
    "PROTOCOL_VERSION",
    "REQUEST",
    "RESPONSE",
    "SERVER_NAME",
    "STRICT_FIELDS",
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
    "path.find_packed",
    "path.reachable",
    "field.request",
    "field.tiles",
)
"""Every method the server answers, in PROTOCOL.md's order."""

STRICT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "hello": ("token", "client", "protocol"),
    "graph.drop": ("id",),
    "graph.info": ("id",),
    "graph.list": (),
    "path.find_many": ("queries",),
}
"""The whole parameter map of the methods whose handlers read single fields: anything else is
``bad_request`` at the decode boundary (the other methods check their own maps)."""

AGENT_ID_MAX: Final = 2**31 - 1
"""Agent ids are 0..AGENT_ID_MAX: what a Godot ``int`` holds on either side without surprise."""

COORDINATE_MAX: Final = 1e9
"""``cell_size`` and ``origin`` components lie in [-COORDINATE_MAX, COORDINATE_MAX], so a world
position (origin + cell x cell_size) stays finite as float32."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits the server enforces; past one the offender gets an error (or, for the byte stream and
    the connection, a clean close), everyone else is served.

    Every field is also a ``serve`` option: ``--max-message-bytes`` for ``max_message_bytes``...

    Attributes:
        max_message_bytes: largest single msgpack message accepted after ``hello``.
        max_depth: deepest nesting of arrays and maps in one message after ``hello``.
        max_message_items: most decoded values in one message after ``hello`` (every array element,
            map key and map value, plus the message itself): the decoded message costs at most
            about 72 bytes per item, whatever its byte size.
        max_graph_nodes: most cells (grid), points (waypoints) or vertices/polygons (navmesh) per graph.
        max_graphs: most graphs loaded at once.
        max_expansions: cap on every query's expansion budget (a larger request is capped).
        default_expansions: the budget of a query that gives none (``budget_exhausted`` past it; a
            query may ask for more, up to ``max_expansions``): no client can hold a search thread
            for long by accident.
        max_graph_bytes: memory all loaded graphs may take together (estimated from their nodes and
            hierarchies); a load past it is ``too_large`` and the graphs already loaded stay.
        max_pending: most requests one connection may have in flight.
        max_batch: most queries in one ``path.find_many``.
        max_connections: most connections open at once; one more is closed at once, unanswered.
        max_buffered_bytes: most answer bytes waiting for a peer that does not read them; past it,
            that connection is closed.
        max_answer_bytes: largest answer one request may get (its paths, tiles...), and the most
            bytes the batch answers being built at once may take together; a request whose answer
            would pass either is ``too_large``, and what was built for it is freed.
        max_unread_bytes: most answer bytes waiting for every peer together; past it, the connections
            that stopped reading longest ago are closed first until the rest fit.
        hello_message_bytes: largest message before the connection has said ``hello``.
        hello_depth: deepest nesting before ``hello`` (a hello request is 3 deep).
        hello_items: most decoded values in one message before ``hello``.
        hello_timeout: seconds a connection may stay open without a successful ``hello``.
        read_timeout: seconds a started message may stay incomplete.
    """

    max_message_bytes: int = 64 * 1024 * 1024
    max_depth: int = 32
    max_message_items: int = 4 * 1024 * 1024
    max_graph_nodes: int = 16 * 1024 * 1024
    max_graphs: int = 256
    max_expansions: int = 20_000_000
    default_expansions: int = 4_000_000
    max_graph_bytes: int = 4 * 1024**3
    max_pending: int = 256
    max_batch: int = 100_000
    max_connections: int = 128
    max_buffered_bytes: int = 256 * 1024 * 1024
    max_answer_bytes: int = 64 * 1024 * 1024
    max_unread_bytes: int = 256 * 1024 * 1024
    hello_message_bytes: int = 4096
    hello_depth: int = 4
    hello_items: int = 64
    hello_timeout: float = 10.0
    read_timeout: float = 60.0

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive, got {value!r}")
