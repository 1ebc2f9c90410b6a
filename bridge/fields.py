"""Flow-field methods: ``field.request``, ``field.tiles``, and the ``field.changed`` notification.

    methods = FieldMethods(serving, budget_bytes=256 << 20)
    handlers.table.update(methods.table)          # "field.request", "field.tiles"
    methods.after_update(graph_id, batch)         # repairs fields, notifies their requesters

Every field lives in one :class:`~python_core.flowfield.FieldCache` shared by all connections:
fields are keyed by grid id and goal set, so units of every client heading to the same goals share
one field. Work runs with the grid held alone, in arrival order with its updates. A wall or weight
change repairs the grid's fields; each connection that requested a field whose tiles changed gets
``field.changed`` with those tile ids (what it must fetch again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bridge.errors import BadRequestError, UnsupportedError
from bridge.params import Params, params_of
from bridge.registry import GraphEntry
from bridge.serving import Outcome, Serving
from bridge.updates import grid_updates
from python_core.flowfield import FieldCache
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
        self.table = {"field.request": self.request, "field.tiles": self.tiles}

    def request(self, conn: Any, raw: Any) -> Outcome:
        """Make or extend the field of a goal set so it covers the start cells."""
        params = params_of("field.request", raw)
        params.only("graph", "goals", "starts", "agents_block")
        graph_id = params.text("graph")
        goals, starts = _cells(params, "goals"), _cells(params, "starts")
        agents_block = params.flag("agents_block")

        def work(entry: GraphEntry) -> dict[str, Any]:
            nav = _grid_navigator(entry, "field.request")
            field_id, field, tiles = self.cache.request(
                graph_id, nav.grid, goals, starts, hierarchy=nav.hierarchy, agents_block=agents_block
            )
            listeners = self._listeners.setdefault(field_id, [])
            if conn not in listeners:
                listeners.append(conn)
            return {
                "field": field_id, "graph": graph_id, "tiles": tiles, "tile_size": field.cs,
                "tiles_x": field.tiles_x, "tiles_y": field.tiles_y, "computed": len(field.tiles),
            }  # fmt: skip

        return self.serving.exclusive(graph_id, work)

    def tiles(self, conn: Any, raw: Any) -> Outcome:
        """Direction bytes (and float32 costs when asked) of computed tiles."""
        params = params_of("field.tiles", raw)
        params.only("field", "tiles", "costs")
        field_id = params.text("field")
        wanted = params.array("tiles")
        with_costs = params.flag("costs")
        if not all(type(t) is int for t in wanted):
            raise BadRequestError("field.tiles: 'tiles' must be an array of tile ids (integers)")
        graph_id = self.cache.grid_key_of(field_id)

        def work(entry: GraphEntry) -> dict[str, Any]:
            field = self.cache.get(field_id)
            dirs, costs = [], []
            for tile in wanted:
                d, c = field.tile_arrays(tile)
                dirs.append(d.tobytes())
                if with_costs:
                    costs.append(c.astype("<f4").tobytes())
            out: dict[str, Any] = {
                "field": field_id,
                "tile_size": field.cs,
                "tiles": wanted,
                "directions": b"".join(dirs),
            }
            if with_costs:
                out["costs"] = b"".join(costs)
            return out

        return self.serving.exclusive(graph_id, work)

    def has_fields(self, graph_id: str) -> bool:
        """Whether a field of this grid is cached (updates of other grids skip the repair)."""
        return self.cache.has_grid(graph_id)

    def after_update(self, graph_id: str, params: Params, entry: GraphEntry) -> dict[str, Any]:
        """Repair the grid's fields after an applied ``graph.update`` and notify who asked for
        them. Opened cells got cheaper, closed ones dearer; a weight change may be either."""
        walls = Params({k: v for k, v in params.values.items() if k in _WALL_KEYS}, params.where)
        updates = grid_updates(walls, entry.graph.node_count)
        if any(isinstance(u, SetWeights) and u.cells is None for u in updates):
            self.forget_graph(graph_id)  # every weight changed: the fields start again
            return {}
        self._repair(graph_id, updates)
        return {}

    def _repair(self, graph_id: str, updates: Sequence[Update]) -> None:
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
            return
        reports = self.cache.cells_changed(graph_id, dearer=_joined(dearer), cheaper=_joined(cheaper))
        for field_id, report in reports.items():
            if not report.changed:
                continue
            message = {
                "field": field_id, "graph": graph_id, "tiles": list(report.changed),
                "recomputed": len(report.recomputed),
            }  # fmt: skip
            for conn in self._listeners.get(field_id, []):
                conn.notify("field.changed", message)
        return

    def forget_graph(self, graph_id: str) -> None:
        """The grid was dropped or replaced: its fields go."""
        for field_id in self.cache.drop_grid(graph_id):
            self._listeners.pop(field_id, None)


def _joined(parts: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    return np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)


def _grid_navigator(entry: GraphEntry, where: str) -> GridNavigator:
    nav = entry.graph
    if not isinstance(nav, GridNavigator):
        raise UnsupportedError(
            f"{where}: flow fields are for grids; {entry.graph_id!r} is a {entry.kind.name}"
        )
    return nav
