"""Graph files keep a grid's obstacles beside its walls: a saved grid loaded again blocks the same
cells, holds the same obstacles, and can still move or remove them (the walls as loaded come back,
which a file that baked the obstacles into its cells could not give). Bad obstacle entries are
refused with a GraphFileError naming them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

from python_core import GraphFileError
from python_core.formats.graph_file import load_graph, read_graph_record, save_graph
from python_core.formats.records import to_record
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.obstacles import ObstacleShape

SHAPES = {
    3: ObstacleShape.polygon([(2.5, 1.0), (6.0, 1.5), (4.0, 4.2)]),
    2**40: ObstacleShape.circle((9.3, 6.1), 1.7),  # the addon's node ids are this large
}


def _grids() -> list[GridGraph]:
    walls = np.ones((9, 13), dtype=bool)
    walls[5, 2:8] = False
    square = GridGraph(walls, cell_size=(1.0, 1.0))
    hexes = TileGrid(walls, layout=TileLayout("hexagon"), cell_size=(1.0, 1.0))
    return [square, hexes]


@pytest.mark.parametrize("grid", _grids(), ids=["square", "hexagon"])
def test_a_saved_grid_keeps_its_obstacles_apart_from_its_walls(grid: GridGraph, tmp_path: Path) -> None:
    walls = grid.walkable.copy()
    grid.update_obstacles(SHAPES)
    assert not np.array_equal(grid.walkable, walls), "the obstacles block cells"
    save_graph(tmp_path / "level.agraph", grid)
    loaded = load_graph(tmp_path / "level.agraph")
    assert type(loaded) is type(grid)
    assert np.array_equal(loaded.walkable, grid.walkable)
    assert np.array_equal(loaded.base_walkable, walls)
    assert sorted(loaded.obstacles) == sorted(SHAPES)
    for key, shape in SHAPES.items():
        assert np.array_equal(loaded.obstacles[key].outline, shape.outline)
    loaded.update_obstacles(remove=list(SHAPES))
    assert np.array_equal(loaded.walkable, walls), "removing them gives back the walls"
    kind, record = read_graph_record(tmp_path / "level.agraph")
    assert kind == "grid"
    assert record == to_record(loaded)[1], "the record holds the walls alone"


def test_a_grid_without_obstacles_writes_no_obstacles_field(tmp_path: Path) -> None:
    save_graph(tmp_path / "plain.agraph", _grids()[0])
    assert "obstacles" not in msgpack.unpackb((tmp_path / "plain.agraph").read_bytes())


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("nope", "must be a list"),
        ([{"id": 1}], "must be a map of"),
        ([{"id": -1, "outline": b"", "base": 0.0, "height": 1.0}], "id must be a new integer"),
        ([{"id": 1, "outline": b"\0" * 20, "base": -np.inf, "height": np.inf}], "float64 pairs"),
        ([{"id": 1, "outline": np.zeros(6).tobytes(), "base": -np.inf, "height": np.inf}], "distinct"),
        ([{"id": 1, "outline": np.arange(6.0).tobytes(), "base": 0.0, "height": -2.0}], "height"),
    ],
)
def test_bad_obstacle_entries_are_refused(entry: Any, message: str, tmp_path: Path) -> None:
    grid = _grids()[0]
    grid.update_obstacles(SHAPES)
    save_graph(tmp_path / "level.agraph", grid)
    document = msgpack.unpackb((tmp_path / "level.agraph").read_bytes())
    document["obstacles"] = entry
    (tmp_path / "bad.agraph").write_bytes(msgpack.packb(document))
    with pytest.raises(GraphFileError, match=message):
        load_graph(tmp_path / "bad.agraph")
