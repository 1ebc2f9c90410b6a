"""``graph.update`` parameters -> a picklable list of operations, and applying them to a graph.

The main process applies the operations to a copy of its graph first; only when every one
succeeds is the copy swapped in and the same operations broadcast to the workers.

    from bridge.updates import parse_update
    # ops = parse_update(params, entry)  ->  [("cells", cells, walkable), ("agents", [...]), ...]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bridge.errors import BadRequestError, UnsupportedError
from bridge.params import Params, is_vector
from bridge.registry import GraphEntry

__all__ = ["UPDATE_KEYS", "Operation", "apply_update", "parse_update"]

Operation = tuple[Any, ...]
"""``("cells", xy int64 (k, 2), walkable bool (k,))``, ``("weights", xy int64 (k, 2), float64 (k,))``,
``("agents", [(verb, agent_id, (x, y) | None), ...])``, ``("disabled", ids int64 (k,), bool (k,))``."""

UPDATE_KEYS = ("id", "cells", "walkable", "weights", "weight_cells", "agents", "points", "disabled")


def _flags(params: Params, key: str, count: int) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """A per-item uint8 bin (0 = false) or one bool for all ``count`` items."""
    value = params.raw(key)
    if isinstance(value, bool):
        return np.full(count, value, dtype=bool)
    data = params.blob(key)
    if len(data) != count:
        raise BadRequestError(f"{params.where}: {key!r} holds {len(data)} bytes for {count} items")
    flags: np.ndarray[Any, np.dtype[np.bool_]] = np.frombuffer(data, dtype=np.uint8) != 0
    return flags


def _int_array(params: Params, key: str, width: int, group: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    data = params.blob(key)
    if len(data) % (width * group):
        raise BadRequestError(
            f"{params.where}: {key!r} must be {group} int{8 * width} per item, got {len(data)} bytes"
        )
    return np.frombuffer(data, dtype=f"<i{width}").astype(np.int64).reshape(-1, group)


def _agents(params: Params) -> list[tuple[str, int, tuple[int, int] | None]]:
    verbs: list[tuple[str, int, tuple[int, int] | None]] = []
    for i, raw in enumerate(params.array("agents")):
        if not isinstance(raw, dict):
            raise BadRequestError(f"{params.where}: agents[{i}] must be a map")
        item = Params(raw, f"{params.where}.agents[{i}]")
        item.only("op", "agent", "cell")
        verb = item.text("op", choices=("place", "move", "remove"))
        agent = item.integer("agent")
        cell: tuple[int, int] | None = None
        if verb != "remove":
            value = item.raw("cell")
            if not is_vector(value, (2,)) or any(float(v) != int(v) for v in value):
                raise BadRequestError(f"{item.where}: 'cell' must be [x, y] integers, got {value!r}")
            cell = (int(value[0]), int(value[1]))
        verbs.append((verb, agent, cell))
    return verbs


def _weights(params: Params, entry: GraphEntry) -> Operation:
    """``weights`` for every cell (row-major), or for the cells listed in ``weight_cells``."""
    if params.has("weight_cells"):
        cells = _int_array(params, "weight_cells", 4, 2)
    else:
        height, width = entry.graph.height, entry.graph.width
        ys, xs = np.divmod(np.arange(width * height, dtype=np.int64), width)
        cells = np.stack([xs, ys], axis=1)
    data = params.blob("weights")
    if len(data) != 4 * len(cells):
        raise BadRequestError(
            f"{params.where}: 'weights' must be {len(cells)} float32, got {len(data)} bytes"
        )
    return ("weights", cells, np.frombuffer(data, dtype="<f4").astype(np.float64))


def _grid_ops(params: Params, entry: GraphEntry) -> list[Operation]:
    ops: list[Operation] = []
    if params.has("cells"):
        cells = _int_array(params, "cells", 4, 2)
        ops.append(("cells", cells, _flags(params, "walkable", len(cells))))
    if params.has("weights"):
        ops.append(_weights(params, entry))
    if params.has("agents"):
        ops.append(("agents", _agents(params)))
    if params.has("points") or params.has("disabled"):
        raise BadRequestError(f"{params.where}: 'points'/'disabled' apply to waypoint graphs only")
    return ops


def parse_update(params: Params, entry: GraphEntry) -> list[Operation]:
    """Validate a ``graph.update`` map against the graph it names.

    Raises:
        BadRequestError: fields of the wrong type or size, or for another graph type.
        UnsupportedError: the graph type cannot be updated (navmesh).
    """
    params.only(*UPDATE_KEYS)
    if entry.kind == "grid":
        return _grid_ops(params, entry)
    if entry.kind == "waypoints":
        if set(params.values) - {"id", "points", "disabled"}:
            raise BadRequestError(f"{params.where}: waypoint graphs take only 'points' and 'disabled'")
        if not params.has("points"):
            return []
        ids = _int_array(params, "points", 8, 1).reshape(-1)
        return [("disabled", ids, _flags(params, "disabled", len(ids)))]
    raise UnsupportedError(f"graph.update: a {entry.kind} graph cannot be updated; load it again")


def apply_update(graph: Any, kind: str, ops: list[Operation], hierarchy: Any = None) -> None:
    """Apply validated operations in order (python_core raises on a bad cell, id or weight).

    With a ``hierarchy`` (a HierarchicalGrid over ``graph``) walls and weights change through it,
    so it stays valid; agents always go to the grid.
    """
    cells_target = graph if hierarchy is None else hierarchy
    for op in ops:
        if op[0] == "cells":
            _, cells, walkable = op
            if len(cells):
                cells_target.set_walkable(cells, walkable)
        elif op[0] == "weights":
            cells_target.set_weights(op[1], op[2])
        elif op[0] == "agents":
            for verb, agent, cell in op[1]:
                if verb == "place":
                    graph.place_agent(agent, cell)
                elif verb == "move":
                    graph.move_agent(agent, cell)
                else:
                    graph.remove_agent(agent)
        elif op[0] == "disabled":
            _, ids, disabled = op
            for point_id, flag in zip(ids.tolist(), disabled.tolist(), strict=True):
                graph.set_point_disabled(point_id, flag)
        else:
            raise ValueError(f"unknown update operation {op[0]!r} for a {kind} graph")
