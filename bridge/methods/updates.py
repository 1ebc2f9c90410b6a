"""``graph.update`` fields -> a batch of python_core changes.

Which fields a graph type takes is the wire's (``bridge/PROTOCOL.md``, per graph type); what a
change does, and that a batch applies all or nothing, is the core's (``Navigator.apply``). The
serving layer parses and applies a batch on a thread, holding the graph alone.

    from bridge.methods.params import Params
    from bridge.methods.updates import grid_updates
    batch = grid_updates(Params({"agents": [{"op": "remove", "agent": 3}]}, "graph.update"), 16)
    assert type(batch[0]).__name__ == "RemoveAgent"
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bridge.methods.obstacles import obstacle_update
from bridge.methods.params import Params, is_vector
from bridge.wire.errors import BadRequestError, UnsupportedError, short_repr
from python_core.formats.navmap_record import link_from, region_from
from python_core.grid.clearance import MAX_UNIT_SIZE
from python_core.navigation import (
    MoveAgent,
    MoveRegion,
    PlaceAgent,
    RemoveAgent,
    RemoveLink,
    RemoveRegion,
    SetDisabled,
    SetLink,
    SetLinkEnabled,
    SetRegion,
    SetRegionCosts,
    SetRegionLayers,
    SetWalkable,
    SetWeights,
    Update,
)
from python_core.navmesh.links import check_cost, check_layers
from python_core.navmesh.navmap import check_transform

__all__ = ["UPDATE_KEYS", "grid_updates", "navmesh_updates", "waypoint_updates"]

UPDATE_KEYS = (
    "id", "cells", "walkable", "weights", "weight_cells", "agents", "points", "disabled", "regions", "links",
    "obstacles",
)  # fmt: skip


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


def _agent(item: Params) -> Update:
    verb = item.text("op", choices=("place", "move", "remove"))
    item.only("op", "agent", "cell", *(("size",) if verb == "place" else ()))  # a move keeps the size
    agent = item.agent_id("agent")
    if verb == "remove":
        return RemoveAgent(agent)
    value = item.raw("cell")
    if not is_vector(value, (2,)) or any(float(v) != int(v) for v in value):
        raise BadRequestError(f"{item.where}: 'cell' must be [x, y] integers, got {short_repr(value)}")
    cell = (int(value[0]), int(value[1]))
    if verb == "move":
        return MoveAgent(agent, cell)
    size = item.integer("size", minimum=1, maximum=MAX_UNIT_SIZE) if item.has("size") else 1
    return PlaceAgent(agent, cell, size)


def _agents(params: Params) -> list[Update]:
    changes: list[Update] = []
    for i, raw in enumerate(params.array("agents")):
        if not isinstance(raw, dict):
            raise BadRequestError(f"{params.where}: agents[{i}] must be a map")
        changes.append(_agent(Params(raw, f"{params.where}.agents[{i}]")))
    return changes


def _weights(params: Params, cell_count: int) -> SetWeights:
    """``weights`` for every cell (row-major), or for the cells listed in ``weight_cells``."""
    cells = _int_array(params, "weight_cells", 4, 2) if params.has("weight_cells") else None
    count = cell_count if cells is None else len(cells)
    data = params.blob("weights")
    if len(data) != 4 * count:
        raise BadRequestError(f"{params.where}: 'weights' must be {count} float32, got {len(data)} bytes")
    return SetWeights(cells, np.frombuffer(data, dtype="<f4").astype(np.float64))


def grid_updates(params: Params, cell_count: int) -> list[Update]:
    """A grid's fields, in the order they apply: ``cells``, ``weights``, ``agents``, ``obstacles``.

    Raises:
        BadRequestError: fields of the wrong type or size, or a waypoint graph's fields.
    """
    changes: list[Update] = []
    if params.has("cells"):
        cells = _int_array(params, "cells", 4, 2)
        changes.append(SetWalkable(cells, _flags(params, "walkable", len(cells))))
    if params.has("weights"):
        changes.append(_weights(params, cell_count))
    if params.has("agents"):
        changes.extend(_agents(params))
    if params.has("obstacles"):
        changes.append(obstacle_update(params, 2))
    if params.has("points") or params.has("disabled"):
        raise BadRequestError(f"{params.where}: 'points'/'disabled' apply to waypoint graphs only")
    if params.has("regions") or params.has("links"):
        raise BadRequestError(f"{params.where}: 'regions'/'links' apply to navmeshes only")
    return changes


def waypoint_updates(params: Params, point_count: int) -> list[Update]:
    """A waypoint graph's fields: ``points`` with ``disabled``.

    Raises:
        BadRequestError: fields of the wrong type or size, or a grid's fields.
        UnsupportedError: ``obstacles`` (a waypoint graph has no area to cut).
    """
    if params.has("obstacles"):
        raise UnsupportedError(f"{params.where}: waypoint graphs take no obstacles (grids and navmeshes do)")
    if set(params.values) - {"id", "points", "disabled"}:
        raise BadRequestError(f"{params.where}: waypoint graphs take only 'points' and 'disabled'")
    if not params.has("points"):
        return []
    ids = _int_array(params, "points", 8, 1).reshape(-1)
    return [SetDisabled(ids, _flags(params, "disabled", len(ids)))]


def _item_id(item: Params) -> int:
    value = item.raw("id")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRequestError(f"{item.where}: 'id' must be an integer >= 0, got {short_repr(value)}")
    return value


def _region_change(item: Params, dim: int) -> Update:
    verb = item.text("op", choices=("set", "remove", "move", "layers", "costs"))
    values = {k: v for k, v in item.values.items() if k != "op"}
    if verb == "set":
        rid, region = region_from(values, dim, item.where)
        return SetRegion(rid, region)
    rid = _item_id(item)
    if verb == "remove":
        item.only("op", "id")
        return RemoveRegion(rid)
    if verb == "move":
        item.only("op", "id", "transform")
        return MoveRegion(rid, check_transform(np.asarray(item.array("transform"), dtype=np.float64), dim))
    if verb == "layers":
        item.only("op", "id", "layers")
        return SetRegionLayers(rid, check_layers(item.raw("layers"), f"{item.where}: 'layers'"))
    item.only("op", "id", "enter_cost", "travel_cost")
    enter = check_cost(
        item.raw("enter_cost") if item.has("enter_cost") else 0.0, f"{item.where}: 'enter_cost'"
    )
    travel = check_cost(
        item.raw("travel_cost") if item.has("travel_cost") else 1.0, f"{item.where}: 'travel_cost'"
    )
    return SetRegionCosts(rid, enter, travel)


def _link_change(item: Params, dim: int) -> Update:
    verb = item.text("op", choices=("set", "remove", "enable", "disable"))
    if verb == "set":
        lid, link = link_from({k: v for k, v in item.values.items() if k != "op"}, dim, item.where)
        return SetLink(lid, link)
    item.only("op", "id")
    lid = _item_id(item)
    return RemoveLink(lid) if verb == "remove" else SetLinkEnabled(lid, verb == "enable")


def navmesh_updates(params: Params, dim: int, up_axis: int = 1) -> list[Update]:
    """A navmesh's fields: ``regions`` then ``links`` (a map's), each a list of ``{"op", ...}``
    maps, then ``obstacles`` (their ground plane across ``up_axis`` in 3D).

    Raises:
        BadRequestError: fields of the wrong type, or a grid's or waypoint graph's fields.
        InvalidGraphError: a bad region or link (python_core's checks).
    """
    if set(params.values) - {"id", "regions", "links", "obstacles"}:
        raise BadRequestError(f"{params.where}: navmeshes take only 'regions', 'links' and 'obstacles'")
    changes: list[Update] = []
    for key, parse in (("regions", _region_change), ("links", _link_change)):
        if not params.has(key):
            continue
        for i, raw in enumerate(params.array(key)):
            if not isinstance(raw, dict):
                raise BadRequestError(f"{params.where}: {key}[{i}] must be a map")
            changes.append(parse(Params(raw, f"{params.where}.{key}[{i}]"), dim))
    if params.has("obstacles"):
        changes.append(obstacle_update(params, dim, up_axis))
    return changes
