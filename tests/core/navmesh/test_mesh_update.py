"""Navmesh obstacle updates patch the mesh where it changed (issue 40): an updated mesh answers as a
fresh build of the same obstacles, and the local re-stitch looks only at the untouched polygons its
caller's index finds beside the changed ones."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import shapely

from python_core import QueryOptions
from python_core.formats.polyanya import load_polyanya_mesh
from python_core.navmesh import NavMesh
from python_core.navmesh.build import flatten
from python_core.navmesh.local_stitch import restitch
from python_core.navmesh.stitch import Conformed
from python_core.obstacles import ObstacleShape
from tests.core.navmesh.shrink_oracle import walkable_area

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def strip() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ten unit squares in a row, square 5 replaced by two triangles (the dirty polygons, last):
    vertices, ptr, flat, the clean squares' pairs (none into the triangles), dirty."""
    verts = np.array([[x, y] for y in (0.0, 1.0) for x in range(11)], dtype=np.float64)
    squares = [[x, x + 1, x + 12, x + 11] for x in range(11 - 1) if x != 5]
    ptr, flat = flatten([*squares, [5, 6, 17], [5, 17, 16]], None)
    clean = NavMesh(verts, squares)
    twin = np.concatenate([clean._twin, np.full(6, -1, dtype=np.int64)])
    dirty = np.arange(ptr.shape[0] - 1) >= len(squares)
    return verts, ptr, flat, twin, dirty


def neighbour_pairs(mesh: NavMesh) -> set[frozenset[frozenset[tuple[float, float]]]]:
    loops = [
        frozenset(map(tuple, np.round(mesh.vertices[mesh.polygon(p)], 9).tolist()))
        for p in range(mesh.polygon_count)
    ]
    owner = np.repeat(np.arange(mesh.polygon_count), np.diff(mesh.poly_ptr))
    return {frozenset((loops[a], loops[b])) for a, b in zip(owner, mesh.neighbours, strict=True) if b >= 0}


def conformed_pairs(out: Conformed) -> set[frozenset[frozenset[tuple[float, float]]]]:
    """The neighbour pairs of a stitched mesh, each polygon named by its corners."""
    owner = np.repeat(np.arange(out.ptr.shape[0] - 1), np.diff(out.ptr))
    loops = [
        frozenset(map(tuple, out.vertices[out.flat[a:b]].tolist())) for a, b in pairwise(out.ptr.tolist())
    ]
    return {frozenset((loops[owner[c]], loops[owner[t]])) for c, t in enumerate(out.twin.tolist()) if t >= 0}


def test_the_restitch_looks_only_at_the_polygons_it_is_told_are_beside() -> None:
    verts, ptr, flat, twin, dirty = strip()
    region = np.zeros(ptr.shape[0] - 1, dtype=np.int64)
    every, _ = restitch(verts, ptr, flat, twin, region, dirty, weld=1e-6, margin=0.0)
    told, order = restitch(
        verts, ptr, flat, twin, region, dirty, weld=1e-6, margin=0.0, beside=np.array([4, 5])
    )
    # untold, the polygons beside are found by a coarse grid (a superset): the same mesh, maybe
    # in another order
    assert conformed_pairs(every) == conformed_pairs(told)
    assert np.array_equal(every.vertices, told.vertices)
    assert order.tolist()[-4:] == [4, 5, 9, 10]  # squares 4 and 6 (now 4, 5) stitched with the triangles
    # told nothing is beside: the triangles stay apart from the squares (the filter is used)
    apart, _ = restitch(verts, ptr, flat, twin, region, dirty, weld=1e-6, margin=0.0, beside=np.zeros(0, int))
    assert int((apart.twin >= 0).sum()) == int((every.twin >= 0).sum()) - 4


def test_a_mesh_updated_many_times_answers_as_a_fresh_build() -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    area = walkable_area(mesh)
    rng = np.random.default_rng(40)
    inner = area.buffer(-3.0)
    x0, y0, x1, y1 = inner.bounds
    pts = rng.uniform((x0, y0), (x1, y1), size=(400, 2))
    centres = pts[shapely.contains_xy(inner, pts[:, 0], pts[:, 1])][:12]
    for step in range(8):
        moving = list(range(len(centres))) if step % 2 == 0 else [step % len(centres)]
        centres[moving] += rng.normal(0.0, 0.7, size=(len(moving), 2))
        mesh.update_obstacles({i: ObstacleShape.circle(centres[i], 1.2) for i in moving})
    mesh.update_obstacles({}, remove=[3])
    final = {i: ObstacleShape.circle(centres[i], 1.2) for i in range(len(centres)) if i != 3}
    fresh = load_polyanya_mesh(DATA / "arena.mesh")
    fresh.update_obstacles(final)
    assert neighbour_pairs(mesh) == neighbour_pairs(fresh)
    free = area.difference(shapely.union_all([s.geometry() for s in final.values()])).buffer(-0.05)
    probe = rng.uniform(area.bounds[:2], area.bounds[2:], size=(200, 2))
    probe = probe[shapely.contains_xy(free, probe[:, 0], probe[:, 1])][:40]
    assert probe.shape[0] == 40
    src = (mesh.polygon_source, fresh.polygon_source)
    assert [int(src[0][mesh.locate(p)]) for p in probe] == [int(src[1][fresh.locate(p)]) for p in probe]
    for s, g in zip(probe[::2], probe[1::2], strict=True):
        for optimal in (False, True):
            a = mesh.find_path(s, g, options=QueryOptions(optimal=optimal))
            b = fresh.find_path(s, g, options=QueryOptions(optimal=optimal))
            assert a.status is b.status
            assert np.allclose(a.points, b.points, atol=1e-9)
            assert abs(a.cost - b.cost) <= 1e-9 * max(1.0, b.cost)
