"""The method table: one function per protocol method, from a parameter map to a result map.

A handler runs synchronously on the event loop up to the point where it hands work to the pool,
and returns either a result map or an awaitable of one. Because loads and updates finish (and are
broadcast) before the handler returns, and queries are queued before it returns, the order in
which requests arrive is the order in which workers see them.

    handlers = Handlers(registry, pool, limits, token="t")
    outcome = handlers.table["graph.list"](connection, [{}])
"""

from __future__ import annotations

import dataclasses
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bridge.errors import (
    BadRequestError,
    BridgeError,
    GraphRejectedError,
    TooLargeError,
    UnauthorizedError,
    UnsupportedError,
    from_exception,
    from_wire,
)
from bridge.hierarchy_params import HierarchyState, parse_hierarchy, validate_hierarchy
from bridge.kinds import KINDS, GraphKind
from bridge.params import Params, params_of
from bridge.protocol import METHODS, PROTOCOL_VERSION, SERVER_NAME, Limits
from bridge.queries import Query, parse_query, parse_reachable
from bridge.registry import GraphEntry, Registry
from bridge.workers import WorkerPool
from python_core.errors import AStarError

__all__ = ["Connection", "Handler", "Handlers"]

Outcome = dict[str, Any] | Awaitable[dict[str, Any]]
Handler = Callable[["Connection", Any], Outcome]


def _no_notify(method: str, params: dict[str, Any]) -> None:
    """The notifier of a connection that has no session (tests)."""


@dataclass(slots=True)
class Connection:
    """Per-connection state the handlers see; ``notify`` sends a notification to this peer."""

    peer: str
    authorized: bool = False
    client: str = ""
    notify: Callable[[str, dict[str, Any]], None] = _no_notify


class Handlers:
    """The protocol methods over one registry and one worker pool."""

    def __init__(self, registry: Registry, pool: WorkerPool, limits: Limits, *, token: str) -> None:
        self.registry = registry
        self.pool = pool
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
            "path.reachable": self.reachable,
        }
        assert tuple(self.table) == METHODS, "PROTOCOL.md, protocol.METHODS and the table must agree"

    def hello(self, conn: Connection, raw: Any) -> Outcome:
        """Authenticate the connection; every other method needs it first."""
        params = params_of("hello", raw)
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
        self.registry.check_room(graph_id)
        size = kind.size(params)
        if size > self.limits.max_graph_nodes:
            raise TooLargeError(
                f"{where}: {size} nodes exceed the limit of {self.limits.max_graph_nodes}",
                {"limit": self.limits.max_graph_nodes, "nodes": size},
            )
        record = {k: v for k, v in params.values.items() if k not in ("id", "hierarchy")}
        try:
            graph = kind.open(record)
        except AStarError as exc:
            raise GraphRejectedError(f"{where}: {exc}", {"id": graph_id}) from exc
        if spec is not None:
            validate_hierarchy(graph, spec, where, graph_id)
        state = None if spec is None else HierarchyState(spec)
        self.registry.put(GraphEntry(graph_id, kind, graph, hierarchy=state))
        answer = {"id": graph_id, "nodes": graph.node_count}
        if state is None:
            held = self.pool.broadcast_acked(lambda job: ("load", graph_id, kind.name, record, None, job))
            return _held(held, answer)
        build = self.pool.broadcast_build(
            lambda job: ("load", graph_id, kind.name, record, spec, job), _progress(conn, graph_id)
        )
        return _built(build, state, answer)

    def build_hierarchy(self, conn: Connection, raw: Any) -> Outcome:
        """Build (or rebuild with new options) the hierarchy of a loaded grid, reporting progress."""
        params = params_of("graph.build_hierarchy", raw)
        entry = self.registry.get(params.text("id"))
        if not entry.kind.hierarchy:
            raise UnsupportedError(
                f"graph.build_hierarchy: a {entry.kind.name} graph has no hierarchy; only grids do",
                {"graph": entry.graph_id},
            )
        spec = parse_hierarchy(Params({k: v for k, v in params.values.items() if k != "id"}, params.where))
        validate_hierarchy(entry.graph, spec, "graph.build_hierarchy", entry.graph_id)
        state = HierarchyState(spec)
        self.registry.put(dataclasses.replace(entry, hierarchy=state))
        graph_id = entry.graph_id
        build = self.pool.broadcast_build(
            lambda job: ("hierarchy", graph_id, spec, job), _progress(conn, graph_id)
        )
        return _built(build, state, {"id": graph_id})

    def reachable(self, conn: Connection, raw: Any) -> Outcome:
        """Whether the goal can be reached at all, from the hierarchy's components (no search)."""
        return _first(self.pool.submit([parse_reachable(raw, self.registry)]))

    def update(self, conn: Connection, raw: Any) -> Outcome:
        """Apply an update to the main process's graph (all or nothing), then broadcast it."""
        params = params_of("graph.update", raw)
        entry = self.registry.get(params.text("id"))
        batch = entry.kind.parse_update(params, entry.graph)
        entry.graph.apply(batch)
        new = dataclasses.replace(entry, version=entry.version + 1)
        self.registry.put(new)
        if batch:
            self.pool.broadcast(("update", entry.graph_id, batch))
        return {"id": entry.graph_id, "version": new.version}

    def drop(self, conn: Connection, raw: Any) -> Outcome:
        """Unload a graph everywhere."""
        params = params_of("graph.drop", raw)
        entry = self.registry.drop(params.text("id"))
        self.pool.broadcast(("drop", entry.graph_id))
        return {"id": entry.graph_id}

    def info(self, conn: Connection, raw: Any) -> Outcome:
        """Describe one loaded graph."""
        entry = self.registry.get(params_of("graph.info", raw).text("id"))
        return _describe(entry)

    def list_graphs(self, conn: Connection, raw: Any) -> Outcome:
        """Every loaded graph, in load order."""
        params_of("graph.list", raw)
        return {"graphs": [_describe(self.registry.get(i)) for i in self.registry.ids()]}

    def find(self, conn: Connection, raw: Any) -> Outcome:
        """One query; an error of the query is the response's error."""
        query = parse_query(_one_map("path.find", raw), self.registry, self.limits.max_expansions)
        return _first(self.pool.submit([query]))

    def find_many(self, conn: Connection, raw: Any) -> Outcome:
        """Many queries; each answers for itself, an error becomes ``{"status": "error"}``."""
        params = params_of("path.find_many", raw)
        items = params.array("queries")
        if len(items) > self.limits.max_batch:
            raise TooLargeError(
                f"path.find_many: {len(items)} queries exceed the limit of {self.limits.max_batch}",
                {"limit": self.limits.max_batch},
            )
        slots: list[Query | dict[str, Any]] = []
        for i, item in enumerate(items):
            try:
                slots.append(parse_query(item, self.registry, self.limits.max_expansions, f"queries[{i}]"))
            except BridgeError as exc:
                slots.append({"status": "error", "error": exc.to_wire()})
        return _gather(self.pool, slots)


def _progress(conn: Connection, graph_id: str) -> Callable[[int, int], None]:
    def send(done: int, total: int) -> None:
        conn.notify("graph.progress", {"id": graph_id, "done": done, "total": total})

    return send


async def _held(acks: Awaitable[Any], answer: dict[str, Any]) -> dict[str, Any]:
    """Answer a load once every worker holds the graph: a worker still loading its compiled
    kernels (the first second or two after start) then delays the load, not the first queries."""
    try:
        await acks
    except Exception as exc:  # a dead worker fails the request, not the server
        raise from_exception(exc) from exc
    return answer


async def _built(
    build: Awaitable[list[dict[str, Any]]], state: HierarchyState, answer: dict[str, Any]
) -> dict[str, Any]:
    """Wait for the reporting worker's build, record its size and time, answer with them."""
    try:
        report = (await build)[0]
    except Exception as exc:  # a dead worker fails the request, not the server
        raise from_exception(exc) from exc
    if report.get("status") == "error":
        raise from_wire(report["error"])
    state.built, state.nbytes, state.build_seconds = (
        True,
        int(report["bytes"]),
        float(report["build_seconds"]),
    )
    return {**answer, "hierarchy": state.describe()}


def _one_map(method: str, raw: Any) -> dict[str, Any]:
    return params_of(method, raw).values


async def _first(future: Awaitable[list[dict[str, Any]]]) -> dict[str, Any]:
    result = (await future)[0]
    if result.get("status") == "error":
        raise from_wire(result["error"])
    return result


async def _gather(pool: WorkerPool, slots: list[Query | dict[str, Any]]) -> dict[str, Any]:
    queries = [s for s in slots if isinstance(s, Query)]
    try:
        answers = iter(await pool.submit_many(queries))
    except Exception as exc:  # a dead worker fails the batch, not the server
        raise from_exception(exc) from exc
    return {"results": [next(answers) if isinstance(s, Query) else s for s in slots]}


def _describe(entry: GraphEntry) -> dict[str, Any]:
    graph = entry.graph
    info: dict[str, Any] = {
        "id": entry.graph_id,
        "kind": entry.kind.name,
        "dim": graph.dim,
        "nodes": graph.node_count,
        "version": entry.version,
        **graph.describe(),
    }
    if entry.kind.hierarchy:
        info["hierarchy"] = None if entry.hierarchy is None else entry.hierarchy.describe()
    return info
