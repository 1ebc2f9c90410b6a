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
paths would wait that long. The cache is shared by every grid, so one lock guards it, and the loop
never waits for that lock: a tile fetch runs at once on the loop when the lock is free, else on the
field thread; a dropped grid's fields are forgotten on the field thread. What the loop needs to know
of a field (its grid, tile size and count) it keeps itself. Notifications and the list of who asked
for a field stay on the loop (transports are not thread-safe). Answers are bounded before they are
built: a tile named twice, or tiles past ``max_answer_bytes``, are refused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from bridge.methods.interface import Outcome, Serving
from bridge.methods.params import Params, params_of, unit_size
from bridge.methods.registry import GraphEntry
from bridge.methods.updates import grid_updates
from bridge.wire.answers import AnswerBudget
from bridge.wire.errors import BadRequestError, BridgeError, UnsupportedError, from_exception
from bridge.wire.protocol import Limits
from python_core.errors import UnknownPointError
from python_core.flowfield import FieldCache, FlowField, LatticeField
from python_core.navigation.grid import GridNavigator
from python_core.navigation.updates import SetWalkable, SetWeights, Update

__all__ = ["DEFAULT_FIELD_BUDGET", "FieldMethods"]

_WALL_KEYS = ("id", "cells", "walkable", "weights", "weight_cells")
"""The ``graph.update`` fields that change costs for every field (agents: see docs/flowfield.md)."""

DEFAULT_FIELD_BUDGET = 256 << 20
"""Bytes every field together may hold before the least recently used go."""

DEFAULT_ANSWER_BYTES = Limits().max_answer_bytes

MAX_SHAPES = 4096
"""Fields the loop remembers (the cache holds far fewer within its budget): past it the oldest
request's field answers ``unknown_point``, as an evicted one does: request it again."""


@dataclass(frozen=True, slots=True)
class _FieldShape:
    """What the loop knows of a field without the cache's lock."""

    graph_id: str
    tile_size: int
    tile_count: int


class _BusyError(Exception):
    """The cache's lock is held (a field is being built): the work goes to the field thread."""


class FieldMethods:
    """The field methods over one serving layer and one shared cache."""

    def __init__(
        self,
        serving: Serving,
        *,
        budget_bytes: int = DEFAULT_FIELD_BUDGET,
        max_answer_bytes: int = DEFAULT_ANSWER_BYTES,
    ) -> None:
        self.serving = serving
        self.max_answer_bytes = max_answer_bytes
        self.cache = FieldCache(budget_bytes=budget_bytes)
        self._shapes: dict[str, _FieldShape] = {}  # field id -> its grid and tiles (kept on the loop)
        self._listeners: dict[str, list[Any]] = {}  # field id -> connections that asked for it
        self._cache_lock = threading.Lock()  # the cache is shared by the field thread and the loop
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fields")
        self._grids: set[str] = set()  # grids that may have fields (kept on the loop)
        self.table = {"field.request": self.request, "field.tiles": self.tiles}

    def request(self, conn: Any, raw: Any) -> Outcome:
        """Make or extend the field of a goal set so it covers the start cells (with ``fetch``, the
        answer carries the starts' tiles too)."""
        params = params_of("field.request", raw)
        params.only("graph", "goals", "starts", "agents_block", "fetch", "costs", "size", "radius")
        graph_id = params.text("graph")
        goals, starts = params.cells("goals"), params.cells("starts")
        agents_block = params.flag("agents_block")
        fetch, with_costs = params.flag("fetch"), params.flag("costs")
        size, radius = unit_size(params)

        def work(entry: GraphEntry) -> dict[str, Any]:
            nav = _grid_navigator(entry, "field.request")
            k = size if radius is None else nav.grid.size_for_radius(radius)
            with self._cache_lock:
                field_id, field, tiles = self.cache.request(
                    graph_id, nav.grid, goals, starts, hierarchy=nav.hierarchy, agents_block=agents_block,
                    size=k,
                )  # fmt: skip
                answer = {
                    "field": field_id, "graph": graph_id, "tiles": tiles, "tile_size": field.cs,
                    "tiles_x": field.tiles_x, "tiles_y": field.tiles_y, "computed": len(field.tiles),
                    "size": k,
                }  # fmt: skip
                if isinstance(field, LatticeField):  # a byte names a move of the layout's own table
                    answer["layout_moves"] = field.move_table()
                if fetch:  # the starts' tiles in this answer: no field.tiles round trip
                    held = list(dict.fromkeys(field.tile_of(cell) for cell in starts.tolist()))
                    self._check_size("field.request", len(held), field.cs, with_costs)
                    answer["fetched"] = held
                    answer.update(_tile_bytes(field, held, with_costs))
            return answer

        return self._listened(conn, graph_id, self.serving.exclusive(graph_id, work, executor=self._thread))

    async def _listened(self, conn: Any, graph_id: str, outcome: Outcome) -> dict[str, Any]:
        """The answer of a ``field.request``, its connection listed for ``field.changed`` (on the loop)."""
        answer: dict[str, Any] = outcome if isinstance(outcome, dict) else await outcome
        self._grids.add(graph_id)
        count = answer["tiles_x"] * answer["tiles_y"]
        self._shapes.pop(answer["field"], None)  # re-inserted: the oldest entries are the first to go
        self._shapes[answer["field"]] = _FieldShape(graph_id, answer["tile_size"], count)
        while len(self._shapes) > MAX_SHAPES:  # fields evicted from the cache are not told to the loop
            del self._shapes[next(iter(self._shapes))]
        listeners = self._listeners.setdefault(answer["field"], [])
        if conn not in listeners:
            listeners.append(conn)
        return answer

    def tiles(self, conn: Any, raw: Any) -> Outcome:
        """Direction bytes (and float32 costs when asked) of computed tiles, each named once."""
        params = params_of("field.tiles", raw)
        params.only("field", "tiles", "costs")
        field_id = params.text("field")
        wanted = params.array("tiles")
        with_costs = params.flag("costs")
        if not all(type(t) is int for t in wanted):
            raise BadRequestError("field.tiles: 'tiles' must be an array of tile ids (integers)")
        shape = self._shapes.get(field_id)
        if shape is None:
            raise from_exception(
                UnknownPointError(f"no flow field with id {field_id[:80]!r} (never made, dropped or evicted)")
            )
        if len(set(wanted)) != len(wanted):
            raise BadRequestError("field.tiles: a tile id is named more than once", {"field": "tiles"})
        outside = [t for t in wanted if not 0 <= t < shape.tile_count]
        if outside:
            raise BadRequestError(
                f"field.tiles: tile {outside[0]} is not one of the field's {shape.tile_count}",
                {"field": "tiles"},
            )
        self._check_size("field.tiles", len(wanted), shape.tile_size, with_costs)

        def work(entry: GraphEntry, *, wait: bool) -> dict[str, Any]:
            if not self._cache_lock.acquire(blocking=wait):
                raise _BusyError
            try:
                field = self.cache.get(field_id)
                tiles = _tile_bytes(field, wanted, with_costs)
            finally:
                self._cache_lock.release()
            return {"field": field_id, "tile_size": field.cs, "tiles": wanted, **tiles}

        def on_thread() -> Outcome:
            return self.serving.exclusive(shape.graph_id, lambda e: work(e, wait=True), executor=self._thread)

        try:  # at once on the loop when nobody holds the graph or the cache, else on the field thread
            outcome = self.serving.exclusive(shape.graph_id, lambda e: work(e, wait=False))
        except _BusyError:
            return on_thread()
        return outcome if isinstance(outcome, dict) else _unless_busy(outcome, on_thread)

    def _check_size(self, where: str, count: int, tile_size: int, with_costs: bool) -> None:
        """``too_large`` when ``count`` tiles would pass ``max_answer_bytes``."""
        AnswerBudget(self.max_answer_bytes, where).add(
            count * tile_size * tile_size * (5 if with_costs else 1)
        )

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
                nav = entry.graph
                if params.has("obstacles") and isinstance(nav, GridNavigator) and nav.obstacle_flips.size:
                    flips, w = nav.obstacle_flips, nav.grid.width  # the cells its obstacles opened or closed
                    cells = np.stack([flips % w, flips // w], axis=1)
                    updates = [*updates, SetWalkable(cells, nav.grid.walkable.ravel()[flips])]
                return {"changed": self._repaired(graph_id, updates)}

        return self._after_repair(graph_id, self.serving.exclusive(graph_id, work, executor=self._thread))

    async def _after_repair(self, graph_id: str, outcome: Outcome) -> dict[str, Any]:
        result: dict[str, Any] = outcome if isinstance(outcome, dict) else await outcome
        for field_id in result.get("dropped", []):
            self._listeners.pop(field_id, None)
            self._shapes.pop(field_id, None)
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
        """The grid was dropped or replaced: its fields go (from the cache on the field thread, after
        the work queued there; the loop never waits for the cache's lock)."""
        if graph_id not in self._grids:
            return  # no field of this grid was made: nothing to forget
        self._grids.discard(graph_id)
        for field_id in [f for f, shape in self._shapes.items() if shape.graph_id == graph_id]:
            del self._shapes[field_id]
            self._listeners.pop(field_id, None)
        self._thread.submit(self._drop_fields, graph_id)

    def _drop_fields(self, graph_id: str) -> None:
        with self._cache_lock:
            self.cache.drop_grid(graph_id)

    def close(self) -> None:
        """Stop the field thread (after the work it has)."""
        self._thread.shutdown(wait=True)


def _tile_bytes(field: FlowField | LatticeField, tiles: list[int], with_costs: bool) -> dict[str, bytes]:
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


async def _unless_busy(outcome: Outcome, on_thread: Callable[[], Outcome]) -> dict[str, Any]:
    """A tile fetch that waited its turn on the loop: on the field thread if the cache is busy then."""
    try:
        return outcome if isinstance(outcome, dict) else await outcome
    except _BusyError:
        retry = on_thread()
        return retry if isinstance(retry, dict) else await retry


def _joined(parts: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    return np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)


def _grid_navigator(entry: GraphEntry, where: str) -> GridNavigator:
    nav = entry.graph
    if not isinstance(nav, GridNavigator):
        raise UnsupportedError(
            f"{where}: flow fields are for grids; {entry.graph_id!r} is a {entry.kind.name}"
        )
    return nav
