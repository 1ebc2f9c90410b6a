"""Every graph type <-> a plain dict of str, numbers, bools and bytes (what graph files hold).

A record holds only str, int, float, bool, bytes, lists and dicts, so it can travel (msgpack, a
pipe, a file) unchanged; the bridge's ``graph.load_*`` methods take the same layout. Bulk arrays
are little-endian ``bytes``: float32 coordinates and weights, int32 (or int64) ids and indices,
one byte per grid cell or flag. ``from_record`` validates
everything and builds a new graph, raising :class:`InvalidGraphError` on anything bad.

    from python_core.grid import GridGraph
    from python_core.formats.records import from_record, to_record
    kind, record = to_record(GridGraph.from_strings(["..", "@."]))
    assert kind == "grid" and from_record(kind, record).walkable.tolist() == [[True, True], [False, True]]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.csr import WaypointGraph
from python_core.errors import AStarError, InvalidGraphError
from python_core.formats.navmap_record import navmap_from
from python_core.grid import DiagonalMode, GridGraph
from python_core.grid.layouts import TileGrid, TileLayout, TileShape
from python_core.navmesh import NavMesh
from python_core.navmesh.navmap import NavMap

__all__ = ["GRAPH_KINDS", "from_record", "kind_of", "to_record"]

GRAPH_KINDS = ("grid", "waypoints", "navmesh")

GRID_KEYS = ("width", "height", "cells", "diagonal", "weights", "cell_size", "origin", "layout")
WAYPOINT_KEYS = ("dim", "ids", "positions", "weights", "edges", "bidirectional", "disabled")
NAVMESH_KEYS = ("dim", "vertices", "indices", "sizes", "up_axis")


# ---- field readers: each names the field and the bad value -----------------------------------
def _check_keys(record: Mapping[str, Any], allowed: tuple[str, ...], required: tuple[str, ...]) -> None:
    if not isinstance(record, Mapping):
        raise InvalidGraphError(f"a graph record must be a map, got {type(record).__name__}")
    extra = sorted(str(k) for k in record if k not in allowed)
    if extra:
        raise InvalidGraphError(f"unknown record field(s) {extra}; expected some of {list(allowed)}")
    missing = [k for k in required if record.get(k) is None]
    if missing:
        raise InvalidGraphError(f"missing record field(s) {missing}")


def _int(record: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = record.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidGraphError(f"{key} must be an integer in [{low}, {high}], got {value!r:.60}")
    return value


def _bin(record: Mapping[str, Any], key: str, item: int, count: int | None = None) -> bytes:
    """A bytes field whose length is a multiple of ``item`` (exactly ``count`` items if given)."""
    value = record.get(key)
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidGraphError(f"{key} must be bin (bytes), got {type(value).__name__}")
    data = bytes(value)
    if len(data) % item or (count is not None and len(data) != count * item):
        want = f"{count} items of {item} bytes" if count is not None else f"a multiple of {item} bytes"
        raise InvalidGraphError(f"{key} must be {want}, got {len(data)} bytes")
    return data


def _floats(data: bytes, key: str) -> npt.NDArray[np.float64]:
    values = np.frombuffer(data, dtype="<f4").astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise InvalidGraphError(f"{key} must be finite, got {values[bad][0]} at item {int(np.argmax(bad))}")
    return values


def _pair(record: Mapping[str, Any], key: str, default: tuple[float, float]) -> tuple[float, float]:
    value = record.get(key)
    if value is None:
        return default
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        or not all(math.isfinite(v) for v in value)
    ):
        raise InvalidGraphError(f"{key} must be two finite numbers, got {value!r:.60}")
    return (float(value[0]), float(value[1]))


def _flags(record: Mapping[str, Any], key: str, count: int, default: bool) -> npt.NDArray[np.bool_]:
    value = record.get(key)
    if value is None or isinstance(value, bool):
        return np.full(count, default if value is None else value, dtype=np.bool_)
    flags: npt.NDArray[np.bool_] = np.frombuffer(_bin(record, key, 1, count), dtype=np.uint8) != 0
    return flags


def _ids(record: Mapping[str, Any], key: str, count: int) -> tuple[npt.NDArray[np.int64], int]:
    """Ids as int32 or int64, the width told by the byte length; returns (ids, width in bytes)."""
    data = _bin(record, key, 4)
    width = 4 if len(data) == 4 * count else 8
    if len(data) != width * count:
        raise InvalidGraphError(f"{key} must be {count} int32 or int64, got {len(data)} bytes")
    return np.frombuffer(data, dtype=f"<i{width}").astype(np.int64), width


# ---- grids ------------------------------------------------------------------------------------
def _grid_from(record: Mapping[str, Any]) -> GridGraph:
    _check_keys(record, GRID_KEYS, ("width", "height", "cells", "diagonal"))
    width = _int(record, "width", 1, 1 << 31)
    height = _int(record, "height", 1, 1 << 31)
    cells = np.frombuffer(_bin(record, "cells", 1, width * height), dtype=np.uint8)
    diagonal = record.get("diagonal")
    if diagonal not in [m.value for m in DiagonalMode]:
        raise InvalidGraphError(
            f"diagonal must be one of {[m.value for m in DiagonalMode]}, got {diagonal!r:.40}"
        )
    weights = None
    if record.get("weights") is not None:
        weights = _floats(_bin(record, "weights", 4, width * height), "weights").reshape(height, width)
    grid = GridGraph(
        cells.reshape(height, width) != 0,
        diagonal=str(diagonal),
        weights=weights,
        cell_size=_pair(record, "cell_size", (1.0, 1.0)),
        origin=_pair(record, "origin", (0.0, 0.0)),
    )
    if record.get("layout") is None:
        return grid
    layout = TileLayout.from_map(record["layout"])  # a square TileSet is the plain grid, bit for bit
    return grid if layout.kind is TileShape.SQUARE else TileGrid.from_grid(grid, layout)


def _grid_to(graph: GridGraph) -> dict[str, Any]:
    record: dict[str, Any] = {
        "width": graph.width,
        "height": graph.height,
        # the walls only: a graph file keeps the obstacles beside the record (obstacle_record.py)
        "cells": np.asarray(graph.base_walkable, dtype=np.uint8).tobytes(),
        "diagonal": graph.diagonal.value,
    }
    weights = np.asarray(graph.weights, dtype=np.float64)
    if not np.all(weights == 1.0):
        record["weights"] = weights.astype("<f4").tobytes()
    if graph.cell_size != (1.0, 1.0):
        record["cell_size"] = list(graph.cell_size)
    if graph.origin != (0.0, 0.0):
        record["origin"] = list(graph.origin)
    if isinstance(graph, TileGrid):
        record["layout"] = graph.layout.describe()
    return record


# ---- waypoint graphs --------------------------------------------------------------------------
def _waypoints_from(record: Mapping[str, Any]) -> WaypointGraph:
    _check_keys(record, WAYPOINT_KEYS, ("dim", "ids", "positions"))
    dim = _int(record, "dim", 2, 3)
    positions = _floats(_bin(record, "positions", 4 * dim), "positions").reshape(-1, dim)
    count = positions.shape[0]
    ids, width = _ids(record, "ids", count)
    weights = None
    if record.get("weights") is not None:
        weights = _floats(_bin(record, "weights", 4, count), "weights")
    edges = np.zeros((0, 2), dtype=np.int64)
    if record.get("edges") is not None:
        edges = np.frombuffer(_bin(record, "edges", 2 * width), dtype=f"<i{width}").astype(np.int64)
        edges = edges.reshape(-1, 2)
    return WaypointGraph.from_arrays(
        ids,
        positions,
        weights,
        edges,
        bidirectional=_flags(record, "bidirectional", edges.shape[0], True),
        disabled=_flags(record, "disabled", count, False),
    )


def _waypoint_edges(graph: WaypointGraph) -> tuple[list[tuple[int, int]], list[bool]]:
    """Each connection once: two-way as (lo, hi, True), one-way as (from, to, False)."""
    edges: list[tuple[int, int]] = []
    both: list[bool] = []
    for a in graph.get_point_ids().tolist():
        for b in graph.get_point_connections(a).tolist():
            two_way = graph.are_points_connected(b, a, bidirectional=False)
            if not two_way or a < b:
                edges.append((a, b))
                both.append(two_way)
    return edges, both


def _waypoints_to(graph: WaypointGraph) -> dict[str, Any]:
    ids = graph.get_point_ids()
    fits32 = bool(ids.size == 0 or (ids.max() < 2**31))
    id_type = "<i4" if fits32 else "<i8"
    positions = np.array([graph.get_point_position(i) for i in ids.tolist()]).reshape(-1, graph.dim)
    edges, both = _waypoint_edges(graph)
    record: dict[str, Any] = {
        "dim": graph.dim,
        "ids": ids.astype(id_type).tobytes(),
        "positions": positions.astype("<f4").tobytes(),
        "edges": np.asarray(edges, dtype=np.int64).reshape(-1, 2).astype(id_type).tobytes(),
        "bidirectional": bool(all(both)) if all(both) else np.asarray(both, dtype=np.uint8).tobytes(),
    }
    weights = np.array([graph.get_point_weight_scale(i) for i in ids.tolist()], dtype=np.float64)
    if not np.all(weights == 1.0):
        record["weights"] = weights.astype("<f4").tobytes()
    disabled = np.array([graph.is_point_disabled(i) for i in ids.tolist()], dtype=np.uint8)
    if disabled.any():
        record["disabled"] = disabled.tobytes()
    return record


# ---- navigation meshes ------------------------------------------------------------------------
_UP_AXES = {"x": 0, "y": 1, "z": 2}


def _navmesh_from(record: Mapping[str, Any]) -> NavMesh | NavMap:
    if isinstance(record, Mapping) and "regions" in record:  # a map of regions and links
        return navmap_from(record)
    _check_keys(record, NAVMESH_KEYS, ("dim", "vertices", "indices", "sizes"))
    dim = _int(record, "dim", 2, 3)
    vertices = _floats(_bin(record, "vertices", 4 * dim), "vertices").reshape(-1, dim)
    indices = np.frombuffer(_bin(record, "indices", 4), dtype="<i4").astype(np.int64)
    sizes = np.frombuffer(_bin(record, "sizes", 4), dtype="<i4").astype(np.int64)
    up = record.get("up_axis", "y")
    if up not in _UP_AXES:
        raise InvalidGraphError(f"up_axis must be one of {list(_UP_AXES)}, got {up!r:.20}")
    return NavMesh(vertices, indices, sizes=sizes, up_axis=_UP_AXES[str(up)])


def _navmesh_to(graph: NavMesh) -> dict[str, Any]:
    ptr = np.asarray(graph.poly_ptr, dtype=np.int64)
    record: dict[str, Any] = {
        "dim": graph.dim,
        "vertices": np.asarray(graph.vertices).astype("<f4").tobytes(),
        "indices": np.asarray(graph.poly_verts).astype("<i4").tobytes(),
        "sizes": np.diff(ptr).astype("<i4").tobytes(),
    }
    if graph.dim == 3:
        record["up_axis"] = "xyz"[graph.up_axis]
    return record


# ---- dispatch ---------------------------------------------------------------------------------
def kind_of(graph: object) -> str:
    """The record kind of a graph object (``grid``, ``waypoints`` or ``navmesh``)."""
    if isinstance(graph, GridGraph):
        return "grid"
    if isinstance(graph, WaypointGraph):
        return "waypoints"
    if isinstance(graph, NavMesh):
        return "navmesh"
    raise TypeError(f"not a python_core graph: {type(graph).__name__}")


def to_record(graph: object) -> tuple[str, dict[str, Any]]:
    """``(kind, record)`` for a graph; ``from_record(kind, record)`` rebuilds an equal graph.

    Coordinates and weights travel as float32, so a graph built from float64 values comes back
    rounded to float32; a graph built from a record round-trips exactly. A grid's obstacles are
    not in its record (its cells are the walls without them): graph files keep them beside it.
    """
    kind = kind_of(graph)
    if isinstance(graph, GridGraph):
        return kind, _grid_to(graph)
    if isinstance(graph, WaypointGraph):
        return kind, _waypoints_to(graph)
    assert isinstance(graph, NavMesh)
    return kind, _navmesh_to(graph)


def from_record(kind: str, record: Mapping[str, Any]) -> Any:
    """Validate a record and build a new graph of ``kind``.

    Raises:
        InvalidGraphError: unknown kind, unknown or missing fields, wrong types or lengths,
            non-finite values, bad indices; also any other python_core error the build raises
            (an unknown edge id, say), re-raised as ``InvalidGraphError`` naming it.

    Example:
        >>> from_record("grid", {"width": 2, "height": 1, "cells": b"\\x01", "diagonal": "never"})
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: cells must be 2 items of 1 bytes, got 1 bytes
    """
    try:
        if kind == "grid":
            return _grid_from(record)
        if kind == "waypoints":
            return _waypoints_from(record)
        if kind == "navmesh":
            return _navmesh_from(record)
    except InvalidGraphError:
        raise
    except AStarError as exc:
        raise InvalidGraphError(f"invalid {kind} graph: {exc}") from exc
    raise InvalidGraphError(f"unknown graph kind {kind!r:.40}; expected one of {list(GRAPH_KINDS)}")
