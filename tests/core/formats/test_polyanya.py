"""Polyanya .mesh reader, scenario reader, and navmesh paths on the arena and aurora benchmarks."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from python_core.errors import GraphFileError
from python_core.formats.polyanya import load_polyanya_mesh, parse_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh import NavMesh

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
TRIANGLE = "mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 0\n3 0 1 2 -1 -1 -1\n"


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    return load_polyanya_mesh(DATA / "arena.mesh")


@pytest.fixture(scope="module")
def aurora() -> NavMesh:
    return load_polyanya_mesh(DATA / "aurora.mesh")


def inside_every_polygon_test(mesh: NavMesh, pts: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Independent containment: each point against every polygon, by edge half-planes."""
    ok = np.zeros(pts.shape[0], dtype=bool)
    for p in range(mesh.polygon_count):
        v = mesh.vertices[mesh.polygon(p)]
        d = np.roll(v, -1, axis=0) - v
        cross = d[None, :, 0] * (pts[:, None, 1] - v[None, :, 1]) - d[None, :, 1] * (
            pts[:, None, 0] - v[None, :, 0]
        )
        ok |= np.all(cross >= -eps * np.linalg.norm(d, axis=1)[None, :], axis=1)
    return ok


def sample_path(points: np.ndarray, step: float) -> np.ndarray:
    out = [points[:1]]
    for a, b in itertools.pairwise(points):
        n = max(2, math.ceil(float(np.linalg.norm(b - a)) / step) + 1)
        out.append(a + np.linspace(0, 1, n)[:, None] * (b - a))
    return np.vstack(out)


def test_parse_minimal_mesh() -> None:
    raw = parse_polyanya_mesh(TRIANGLE)
    assert raw.polygons == [[0, 1, 2]]
    assert raw.neighbours == [[-1, -1, -1]]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("nope 2 3 1", "not a Polyanya mesh"),
        ("mesh 3 3 1", "version"),
        ("mesh 2 3 1\n0 0 1 0\n1 0 1 0\n", "ends early"),
        (TRIANGLE.replace("3 0 1 2", "3 0 1 5"), "vertex of polygon 0"),
        (TRIANGLE.replace("0 1 1 0", "0 x 1 0"), "must be a number"),
        (TRIANGLE.replace("-1 -1 -1", "-1 -1 4"), "neighbour of polygon 0"),
        (TRIANGLE + "7\n", "unexpected data"),
        (TRIANGLE.replace("3 1\n", "3 -1\n"), "polygon count"),
    ],
)
def test_bad_mesh_files(text: str, needle: str) -> None:
    with pytest.raises(GraphFileError, match=needle):
        parse_polyanya_mesh(text)


def test_invalid_polygons_and_adjacency_mismatch(tmp_path: Path) -> None:
    bad = tmp_path / "flat.mesh"
    bad.write_text("mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n2 0 1 0\n3 0 1 2 -1 -1 -1\n")
    with pytest.raises(GraphFileError, match="degenerate"):
        load_polyanya_mesh(bad)
    two = "mesh\n2\n4 2\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2 -1 -1 -1\n3 0 2 3 -1 -1 -1\n"
    (tmp_path / "two.mesh").write_text(two)
    with pytest.raises(GraphFileError, match="neighbour"):
        load_polyanya_mesh(tmp_path / "two.mesh")
    assert load_polyanya_mesh(tmp_path / "two.mesh", cross_check=False).polygon_count == 2
    with pytest.raises(GraphFileError):
        load_polyanya_mesh(tmp_path / "missing.mesh")


def test_scenario_reader(tmp_path: Path) -> None:
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    assert len(rows) == 160
    assert rows[0].map_name == "maps/dao/arena.map"
    assert (rows[0].width, rows[0].height) == (49, 49)
    assert rows[0].start == (1.0, 11.0)
    bad = tmp_path / "bad.scen"
    bad.write_text("version 1\n0\tm\t1\t1\t0\t0\t1\n")
    with pytest.raises(GraphFileError, match="line 2"):
        read_mesh_scenarios(bad)
    bad.write_text("version 2\n")
    with pytest.raises(GraphFileError, match="version 1"):
        read_mesh_scenarios(bad)


def test_arena_mesh_matches_its_description(arena: NavMesh) -> None:
    assert arena.polygon_count == 120
    assert arena.vertices.shape == (112, 2)
    areas = []
    for p in range(arena.polygon_count):
        x, y = arena.vertices[arena.polygon(p)].T
        areas.append(abs(float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))) / 2)
    assert sum(areas) == pytest.approx(2054.0)  # the passable cells of arena.map


def test_arena_paths_stay_inside_and_are_never_shorter_than_optimal(arena: NavMesh) -> None:
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    ratios = []
    for row in rows:
        res = arena.find_path(row.start, row.goal)
        assert res.found, row
        assert res.points[0].tolist() == list(row.start)
        assert res.points[-1].tolist() == list(row.goal)
        assert res.cost >= row.length - 1e-4, row
        assert inside_every_polygon_test(arena, sample_path(res.points, 0.1)).all(), row
        if row.length > 0:
            ratios.append(res.cost / row.length)
    mean, worst = float(np.mean(ratios)), float(np.max(ratios))
    print(f"arena: {len(ratios)} queries, mean ratio {mean:.5f}, worst {worst:.5f}")
    assert mean < 1.005
    assert worst < 1.05


@pytest.mark.slow
def test_aurora_sample_paths_inside_and_at_least_straight_line(aurora: NavMesh) -> None:
    rows = read_mesh_scenarios(DATA / "aurora.scen")
    for i in np.linspace(0, len(rows) - 1, 16).astype(int):
        row = rows[i]
        res = aurora.find_path(row.start, row.goal)
        assert res.found, row
        assert res.cost >= math.dist(row.start, row.goal) - 1e-9
        assert res.cost <= row.length + 1e-6  # any-angle is never longer than the octile length
        for p in sample_path(res.points, 0.5):
            assert aurora.locate(p, eps=1e-6) >= 0, (row, p)
