"""The method table: one function per protocol method, from a parameter map to a result map.

Handlers check a request's shape, then hand it to the :class:`~bridge.serving.Serving` that runs
the graphs. They run on the event loop and return a result map or an awaitable of one; the serving
layer reserves each request's turn on its graph before the handler returns, so the order in which
requests arrive is the order in which they take effect.

    handlers = Handlers(serving, limits, token="t")
    outcome = handlers.table["graph.list"](connection, [{}])
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from bridge.methods.flow_fields import FieldMethods
from bridge.methods.hierarchy_params import parse_hierarchy
from bridge.methods.interface import BatchOutcome, Connection, Handler, LoadRequest, Outcome, Serving
from bridge.methods.kinds import KINDS, GraphKind
from bridge.methods.params import Params, params_of
from bridge.wire.errors import BadRequestError, TooLargeError, UnauthorizedError
from bridge.wire.protocol import METHODS, PROTOCOL_VERSION, SERVER_NAME, Limits

__all__ = ["Connection", "Handler", "Handlers"]


class Handlers:
    """The protocol methods over one serving layer."""

    def __init__(self, serving: Serving, limits: Limits, *, token: str) -> None:
        self.serving = serving
        self.limits = limits
        self.token = token
        self.table: dict[str, Handler] = {
            "hello": self.hello,
            **{f"graph.load_{kind.name}": self._loader(kind) for kind in KINDS.values()},
            "graph.build_hierarchy": self.build_hierarchy,
            "graph.update": self.update,
            "graph.drop": self.drop,
            "graph.info": self.info,
            "graph.list": self.list_graphs,
            "path.find": self.find,
            "path.find_many": self.find_many,
            "path.find_packed": self.find_packed,
            "path.reachable": self.reachable,
        }
        self.fields = FieldMethods(serving, max_answer_bytes=limits.max_answer_bytes)
        self.table.update(self.fields.table)
        assert tuple(self.table) == METHODS, "PROTOCOL.md, protocol.METHODS and the table must agree"

    def hello(self, conn: Connection, raw: Any) -> Outcome:
        """Authenticate the connection; every other method needs it first."""
        params = params_of("hello", raw)
        params.only("token", "client", "protocol")
        if conn.authorized:
            raise BadRequestError("hello: this connection has said hello already")
        token = params.raw("token")
        if not isinstance(token, str):
            raise UnauthorizedError("hello: a 'token' string is required")
        client = params.text("client") if params.has("client") else ""
        protocol = params.integer("protocol") if params.has("protocol") else PROTOCOL_VERSION
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            raise UnauthorizedError("hello: wrong token")
        if protocol != PROTOCOL_VERSION:
            raise BadRequestError(
                f"hello: this server speaks protocol {PROTOCOL_VERSION}, the client {protocol}",
                {"protocol": PROTOCOL_VERSION},
            )
        conn.authorized, conn.client = True, client
        return {"server": SERVER_NAME, "protocol": PROTOCOL_VERSION, "methods": list(METHODS)}

    def _loader(self, kind: GraphKind) -> Handler:
        return lambda conn, raw: self._load(kind, raw, conn)

    def _load(self, kind: GraphKind, raw: Any, conn: Connection) -> Outcome:
        where = f"graph.load_{kind.name}"
        params = params_of(where, raw)
        graph_id = params.text("id")
        spec = None
        if kind.hierarchy and params.has("hierarchy"):
            spec = parse_hierarchy(params.sub("hierarchy"))
        size = kind.size(params)
        if size > self.limits.max_graph_nodes:
            raise TooLargeError(
                f"{where}: {size} nodes exceed the limit of {self.limits.max_graph_nodes}",
                {"limit": self.limits.max_graph_nodes, "nodes": size},
            )
        record = {k: v for k, v in params.values.items() if k not in ("id", "hierarchy")}
        request = LoadRequest(graph_id, kind, record, spec)
        return self.serving.load(request, None if spec is None else _progress(conn, graph_id))

    def build_hierarchy(self, conn: Connection, raw: Any) -> Outcome:
        """Build (or rebuild with new options) the hierarchy of a loaded grid, reporting progress."""
        params = params_of("graph.build_hierarchy", raw)
        graph_id = params.text("id")
        spec = parse_hierarchy(Params({k: v for k, v in params.values.items() if k != "id"}, params.where))
        return self.serving.build_hierarchy(graph_id, spec, _progress(conn, graph_id))

    def reachable(self, conn: Connection, raw: Any) -> Outcome:
        """Whether the goal can be reached at all, from the hierarchy's components (no search)."""
        return self.serving.reachable(conn, params_of("path.reachable", raw).values)

    def update(self, conn: Connection, raw: Any) -> Outcome:
        """Apply an update (all or nothing) once the requests before it are answered; then repair
        the grid's flow fields, before any request that arrived after the update."""
        params = params_of("graph.update", raw)
        graph_id = params.text("id")
        outcome = self.serving.update(graph_id, params)
        if not self.fields.has_fields(graph_id):
            return outcome
        # The repair's turn is taken now, right behind the update's: a field request that came
        # after the update (a client that did not wait for its answer) sees repaired fields. A turn
        # taken once the update was done let such requests compute tiles in between, which the
        # repair then missed (their field.changed never came).
        repair = self.fields.repair(graph_id, params)  # on the field thread, its turn reserved now
        return self._repaired(outcome, repair)

    async def _repaired(self, outcome: Outcome, repair: Outcome) -> dict[str, Any]:
        """The update's answer once the repair behind it is done too (its turn is always used)."""
        try:
            result = outcome if isinstance(outcome, dict) else await outcome
        finally:
            if not isinstance(repair, dict):
                await repair
        return result

    def drop(self, conn: Connection, raw: Any) -> Outcome:
        """Unload a graph."""
        graph_id = params_of("graph.drop", raw).text("id")
        self.fields.forget_graph(graph_id)
        return self.serving.drop(graph_id)

    def info(self, conn: Connection, raw: Any) -> Outcome:
        """Describe one loaded graph."""
        params = params_of("graph.info", raw)
        params.only("id")
        return self.serving.info(params.text("id"))

    def list_graphs(self, conn: Connection, raw: Any) -> Outcome:
        """Every loaded graph, in load order."""
        params_of("graph.list", raw).only()
        return {"graphs": self.serving.graphs()}

    def find(self, conn: Connection, raw: Any) -> Outcome:
        """One query; an error of the query is the response's error."""
        if type(raw) is list and len(raw) == 1 and type(raw[0]) is dict:  # the usual shape, at once
            return self.serving.find(conn, raw[0])
        return self.serving.find(conn, params_of("path.find", raw).values)

    def find_many(self, conn: Connection, raw: Any) -> BatchOutcome:
        """Many queries; each answers for itself, an error becomes ``{"status": "error"}``."""
        params = params_of("path.find_many", raw)
        params.only("queries")
        return self.serving.find_many(conn, params.array("queries"))

    def find_packed(self, conn: Connection, raw: Any) -> BatchOutcome:
        """Many paths on one grid with one options map, endpoints and answers as ``bin``."""
        return self.serving.find_packed(conn, params_of("path.find_packed", raw).values)


def _progress(conn: Connection, graph_id: str) -> Callable[[int, int], None]:
    def send(done: int, total: int) -> None:
        conn.notify("graph.progress", {"id": graph_id, "done": done, "total": total})

    return send
