"""Graph <-> record round trips, and from_record refusing every kind of bad field."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core import InvalidGraphError
from python_core.csr.waypoints import WaypointGraph
from python_core.formats.records import from_record, kind_of, to_record
from python_core.grid import GridGraph
from python_core.navmesh import NavMesh


def _f32(values: Any) -> bytes:
    return np.asarray(values, dtype="<f4").tobytes()


def _i32(values: Any) -> bytes:
    return np.asarray(values, dtype="<i4").tobytes()


@settings(max_examples=40, deadline=None)
@given(
    cells=st.lists(st.lists(st.booleans(), min_size=1, max_size=7), min_size=1, max_size=7).filter(
        lambda rows: len({len(r) for r in rows}) == 1
    ),
    diagonal=st.sampled_from(["always", "never", "at_least_one_walkable", "only_if_no_obstacles"]),
    weighted=st.booleans(),
)
def test_grid_round_trip_is_exact(cells: list[list[bool]], diagonal: str, weighted: bool) -> None:
    walkable = np.array(cells)
    weights = np.arange(walkable.size, dtype=np.float32).reshape(walkable.shape) / 4 if weighted else None
    grid = GridGraph(walkable, diagonal=diagonal, weights=weights, cell_size=(0.5, 2.0), origin=(1.0, -3.0))
    kind, record = to_record(grid)
    again = from_record(kind, record)
    assert to_record(again) == (kind, record)
    assert again.walkable.tolist() == grid.walkable.tolist()
    assert again.diagonal == grid.diagonal
    np.testing.assert_array_equal(again.weights, grid.weights)
    assert (again.cell_size, again.origin) == ((0.5, 2.0), (1.0, -3.0))


def test_grid_defaults_are_left_out_of_the_record() -> None:
    assert to_record(GridGraph.from_strings(["..", ".@"])) == (
        "grid",
        {"width": 2, "height": 2, "cells": b"\x01\x01\x01\x00", "diagonal": "always"},
    )


def test_waypoint_round_trip_keeps_one_way_edges_weights_and_disabled_points() -> None:
    graph = WaypointGraph.from_arrays(
        [3, 9, 12, 40],
        [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]],
        [1.0, 2.5, 1.0, 0.5],
        [[3, 9], [9, 12], [12, 3], [40, 3]],
        bidirectional=[True, False, True, False],
        disabled=[False, False, True, False],
    )
    kind, record = to_record(graph)
    assert kind == "waypoints"
    assert record["dim"] == 3
    assert len(record["ids"]) == 16
    again = from_record(kind, record)
    assert to_record(again) == (kind, record)
    for a in (3, 9, 12, 40):
        assert again.get_point_connections(a).tolist() == graph.get_point_connections(a).tolist()
        assert again.is_point_disabled(a) == graph.is_point_disabled(a)
        assert again.get_point_weight_scale(a) == graph.get_point_weight_scale(a)


def test_waypoint_ids_may_be_int64_with_int64_edges() -> None:
    record = {
        "dim": 2,
        "ids": np.array([2**40, 7], "<i8").tobytes(),
        "positions": _f32([[0, 0], [3, 4]]),
        "edges": np.array([2**40, 7], "<i8").tobytes(),
        "bidirectional": True,
    }
    graph = from_record("waypoints", record)
    assert graph.find_path(2**40, 7).cost == 5.0
    assert to_record(graph)[1]["ids"] == record["ids"]


def test_navmesh_round_trip_2d_and_3d() -> None:
    flat = NavMesh([[0, 0], [2, 0], [2, 2], [0, 2], [4, 0], [4, 2]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    kind, record = to_record(flat)
    assert kind == "navmesh"
    assert "up_axis" not in record
    assert to_record(from_record(kind, record)) == (kind, record)
    solid = NavMesh([[0, 0, 0], [0, 2, 0], [0, 2, 2], [0, 0, 2]], [[0, 1, 2, 3]], up_axis=0)
    kind, record = to_record(solid)
    assert record["up_axis"] == "x"
    assert from_record(kind, record).up_axis == 0


GOOD_GRID = {"width": 2, "height": 1, "cells": b"\x01\x01", "diagonal": "never"}
GOOD_WP = {"dim": 2, "ids": _i32([1, 2]), "positions": _f32([[0, 0], [1, 0]]), "edges": _i32([1, 2])}
GOOD_NAV = {
    "dim": 2,
    "vertices": _f32([[0, 0], [1, 0], [1, 1]]),
    "indices": _i32([0, 1, 2]),
    "sizes": _i32([3]),
}


@pytest.mark.parametrize(
    ("kind", "change", "words"),
    [
        ("grid", {"width": "2"}, "width"),
        ("grid", {"width": True}, "width"),
        ("grid", {"cells": b"\x01"}, "cells"),
        ("grid", {"cells": "11"}, "cells"),
        ("grid", {"diagonal": "sideways"}, "diagonal"),
        ("grid", {"weights": _f32([1, math.nan])}, "weights"),
        ("grid", {"weights": _f32([1, -1])}, "weight"),
        ("grid", {"weights": _f32([1])}, "weights"),
        ("grid", {"cell_size": [1, math.inf]}, "cell_size"),
        ("grid", {"origin": "here"}, "origin"),
        ("grid", {"colour": "red"}, "unknown"),
        ("grid", {"cells": None}, "missing"),
        ("waypoints", {"dim": 4}, "dim"),
        ("waypoints", {"positions": _f32([0, 0, 1])}, "positions"),
        ("waypoints", {"positions": _f32([[0, 0], [math.nan, 0]])}, "positions"),
        ("waypoints", {"ids": _i32([1, 2, 3])}, "ids"),
        ("waypoints", {"ids": _i32([1, 1])}, "distinct"),
        ("waypoints", {"ids": _i32([-1, 2]), "edges": b""}, "id"),
        ("waypoints", {"edges": _i32([1, 5])}, "invalid waypoints graph"),
        ("waypoints", {"edges": _i32([1, 1])}, "itself"),
        ("waypoints", {"edges": _i32([1, 2, 2])}, "edges"),
        ("waypoints", {"bidirectional": b"\x01\x01"}, "bidirectional"),
        ("waypoints", {"weights": _f32([1, -2])}, "weight"),
        ("navmesh", {"indices": _i32([0, 1, 9])}, "outside"),
        ("navmesh", {"indices": _i32([0, 1, -1])}, "outside"),
        ("navmesh", {"sizes": _i32([4])}, "sizes"),
        ("navmesh", {"vertices": _f32([[0, 0], [1, 0], [math.inf, 1]])}, "vertices"),
        ("navmesh", {"vertices": _f32([[0, 0], [1, 0], [2, 0]])}, "degenerate"),
        ("navmesh", {"up_axis": "w"}, "up_axis"),
    ],
)
def test_from_record_refuses_bad_fields(kind: str, change: dict[str, Any], words: str) -> None:
    base = {"grid": GOOD_GRID, "waypoints": GOOD_WP, "navmesh": GOOD_NAV}[kind]
    record = {**base, **change}
    with pytest.raises(InvalidGraphError) as info:
        from_record(kind, record)
    assert words in str(info.value)


def test_from_record_refuses_unknown_kinds_and_non_maps() -> None:
    with pytest.raises(InvalidGraphError, match="unknown graph kind"):
        from_record("hexgrid", GOOD_GRID)
    with pytest.raises(InvalidGraphError, match="must be a map"):
        from_record("grid", [1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kind_of(object())
