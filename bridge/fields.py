"""Flow-field methods: ``field.request``, ``field.tiles``, and the ``field.changed`` notification.

    methods = FieldMethods(serving, budget_bytes=256 << 20)
    handlers.table.update(methods.table)          # "field.request", "field.tiles"
    await methods.repair(graph_id, update_params)  # repairs fields, notifies their requesters

Every field lives in one :class:`~python_core.flowfield.FieldCache` shared by all connections:
fields are keyed by grid id and goal set, so units of every client heading to the same goals share
one field. Work runs with the grid held alone, in arrival order with its updates. A wall or weight
change repairs the grid's fields; each connection that requested a field whose tiles changed gets
``field.changed`` with those tile ids (what it must fetch again).

Building and repairing fields runs on one thread of its own, never on the event loop: a field over
a whole 512 x 512 map takes 100-200 ms and a 4096 x 4096 one seconds, and every other client's
paths would wait that long. The cache is shared by every grid, so one lock guards it; a tile fetch
runs at once on the loop when that lock is free and on the field thread otherwise. Notifications
and the list of who asked for a field stay on the loop (transports are not thread-safe).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from bridge.errors import BadRequestError, BridgeError, UnsupportedError
from bridge.params import Params, params_of
from bridge.registry import GraphEntry
from bridge.serving import Outcome, Serving
from bridge.updates import grid_updates
from python_core.flowfield import FieldCache, FlowField
from python_core.navigation.grid import GridNavigator
from python_core.navigation.updates import SetWalkable, SetWeights, Update

__all__ = ["DEFAULT_FIELD_BUDGET", "FieldMethods"]

_WALL_KEYS = ("id", "cells", "walkable", "weights", "weight_cells")
"""The ``graph.update`` fields that change costs for every field (agents: see docs/flowfield.md)."""

DEFAULT_FIELD_BUDGET = 256 << 20
"""Bytes every field together may hold before the least recently used go."""


def _cells(params: Params, key: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Cells as a ``bin`` of int32 ``(x, y)`` pairs or an array of pairs."""
    value = params.raw(key)
    if isinstance(value, bytes | bytearray):
        if len(value) % 8:
            raise BadRequestError(
                f"{params.where}: {key!r} must be int32 (x, y) pairs, got {len(value)} bytes"
            )
        return np.frombuffer(value, dtype="<i4").astype(np.int64).reshape(-1, 2)
    if not isinstance(value, list) or not all(
        isinstance(c, list | tuple) and len(c) == 2 and all(type(v) is int for v in c) for c in value
    ):
        raise BadRequestError(f"{params.where}: {key!r} must be a bin of int32 pairs or [[x, y], ...]")
    return np.array(value, dtype=np.int64).reshape(-1, 2)


class FieldMethods:
    """The field methods over one serving layer and one shared cache."""

    def __init__(self, serving: Serving, *, budget_bytes: int = DEFAULT_FIELD_BUDGET) -> None:
        self.serving = serving
        self.cache = FieldCache(budget_bytes=budget_bytes)
        self._listeners: dict[str, list[Any]] = {}  # field id -> connections that asked for it
        self._cache_lock = threading.Lock()  # the cache is shared by the field thread and the loop
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fields")
        self._grids: set[str] = set()  # grids that may have fields (kept on the loop)
        self.table = {"field.request": self.request, "field.tiles": self.tiles}

    def request(self, conn: Any, raw: Any) -> Outcome:
        """Make or extend the field of a goal set so it covers the start cells (with ``fetch``, the
        answer carries the starts' tiles too)."""
        params = params_of("field.request", raw)
        params.only("graph", "goals", "starts", "agents_block", "fetch", "costs")
        graph_id = params.text("graph")
        goals, starts = _cells(params, "goals"), _cells(params, "starts")
        agents_block = params.flag("agents_block")
        fetch, with_costs = params.flag("fetch"), params.flag("costs")

        def work(entry: GraphEntry) -> dict[str, Any]:
            nav = _grid_navigator(entry, "field.request")
            with self._cache_lock:
                field_id, field, tiles = self.cache.request(
                    graph_id, nav.grid, goals, starts, hierarchy=nav.hierarchy, agents_block=agents_block
                )
                answer = {
                    "field": field_id, "graph": graph_id, "tiles": tiles, "tile_size": field.cs,
                    "tiles_x": field.tiles_x, "tiles_y": field.tiles_y, "computed": len(field.tiles),
                }  # fmt: skip
                if fetch:  # the starts' tiles in this answer: no field.tiles round trip
                    held = list(dict.fromkeys(field.tile_of(cell) for cell in starts.tolist()))
                    answer["fetched"] = held
                    answer.update(_tile_bytes(field, held, with_costs))
            return answer

        return self._listened(conn, graph_id, self.serving.exclusive(graph_id, work, executor=self._thread))

    async def _listened(self, conn: Any, graph_id: str, outcome: Outcome) -> dict[str, Any]:
        """The answer of a ``field.request``, its connection listed for ``field.changed`` (on the loop)."""
        answer: dict[str, Any] = outcome if isinstance(outcome, dict) else await outcome
        self._grids.add(graph_id)
        listeners = self._listeners.setdefault(answer["field"], [])
        if conn not in listeners:
            listeners.append(conn)
        return answer

    def tiles(self, conn: Any, raw: Any) -> Outcome:
        """Direction bytes (and float32 costs when asked) of computed tiles."""
        params = params_of("field.tiles", raw)
        params.only("field", "tiles", "costs")
        field_id = params.text("field")
        wanted = params.array("tiles")
        with_costs = params.flag("costs")
        if not all(type(t) is int for t in wanted):
            raise BadRequestError("field.tiles: 'tiles' must be an array of tile ids (integers)")
        with self._cache_lock:
            graph_id = self.cache.grid_key_of(field_id)

        def work(entry: GraphEntry) -> dict[str, Any]:
            with self._cache_lock:
                field = self.cache.get(field_id)
                tiles = _tile_bytes(field, wanted, with_costs)
            return {"field": field_id, "tile_size": field.cs, "tiles": wanted, **tiles}

        if self._cache_lock.locked():  # the field thread is building: wait there, not on the loop
            return self.serving.exclusive(graph_id, work, executor=self._thread)
        return self.serving.exclusive(graph_id, work)

    def has_fields(self, graph_id: str) -> bool:
        """Whether a field of this grid may be cached (updates of other grids skip the repair)."""
        return graph_id in self._grids

    def repair(self, graph_id: str, params: Params) -> Outcome:
        """After an applied ``graph.update``: repair the grid's fields on the field thread (the
        grid held alone), then tell who asked for them which tiles changed. Opened cells got
        cheaper, closed ones dearer; a weight change may be either."""
        walls = Params({k: v for k, v in params.values.items() if k in _WALL_KEYS}, params.where)

        def work(entry: GraphEntry) -> dict[str, Any]:
            try:
                updates = grid_updates(walls, entry.graph.node_count)
            except BridgeError:
                return {}  # the update was refused for the same reason: the grid did not change
            with self._cache_lock:
                if any(isinstance(u, SetWeights) and u.cells is None for u in updates):
                    return {"dropped": self.cache.drop_grid(graph_id)}  # every weight: start again
                return {"changed": self._repaired(graph_id, updates)}

        return self._after_repair(graph_id, self.serving.exclusive(graph_id, work, executor=self._thread))

    async def _after_repair(self, graph_id: str, outcome: Outcome) -> dict[str, Any]:
        result: dict[str, Any] = outcome if isinstance(outcome, dict) else await outcome
        for field_id in result.get("dropped", []):
            self._listeners.pop(field_id, None)
        if "dropped" in result:
            self._grids.discard(graph_id)
        for message in result.get("changed", []):
            for conn in self._listeners.get(message["field"], []):
                conn.notify("field.changed", message)
        return {}

    def _repaired(self, graph_id: str, updates: Sequence[Update]) -> list[dict[str, Any]]:
        """The ``field.changed`` messages of repairing the grid's fields after ``updates``."""
        dearer: list[np.ndarray[Any, Any]] = []
        cheaper: list[np.ndarray[Any, Any]] = []
        for update in updates:
            if isinstance(update, SetWalkable) and len(update.cells):
                flags = np.broadcast_to(np.asarray(update.walkable, dtype=bool), (len(update.cells),))
                cheaper.append(update.cells[flags])
                dearer.append(update.cells[~flags])
            elif isinstance(update, SetWeights) and update.cells is not None:
                dearer.append(update.cells)
                cheaper.append(update.cells)
        if not dearer and not cheaper:
            return []
        reports = self.cache.cells_changed(graph_id, dearer=_joined(dearer), cheaper=_joined(cheaper))
        return [
            {"field": field_id, "graph": graph_id, "tiles": list(report.changed),
             "recomputed": len(report.recomputed)}
            for field_id, report in reports.items()
            if report.changed
        ]  # fmt: skip

    def forget_graph(self, graph_id: str) -> None:
        """The grid was dropped or replaced: its fields go."""
        with self._cache_lock:
            dropped = self.cache.drop_grid(graph_id)
        for field_id in dropped:
            self._listeners.pop(field_id, None)
        self._grids.discard(graph_id)

    def close(self) -> None:
        """Stop the field thread (after the work it has)."""
        self._thread.shutdown(wait=True)


def _tile_bytes(field: FlowField, tiles: list[int], with_costs: bool) -> dict[str, bytes]:
    """``directions`` (and float32 ``costs``) of computed tiles, in order, as the wire sends them."""
    dirs, costs = [], []
    for tile in tiles:
        d, c = field.tile_arrays(tile)
        dirs.append(d.tobytes())
        if with_costs:
            costs.append(c.astype("<f4").tobytes())
    out = {"directions": b"".join(dirs)}
    if with_costs:
        out["costs"] = b"".join(costs)
    return out


def _joined(parts: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    return np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)


def _grid_navigator(entry: GraphEntry, where: str) -> GridNavigator:
    nav = entry.graph
    if not isinstance(nav, GridNavigator):
        raise UnsupportedError(
            f"{where}: flow fields are for grids; {entry.graph_id!r} is a {entry.kind.name}"
        )
    return nav
