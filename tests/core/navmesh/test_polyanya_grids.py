"""Polyanya against the visibility-graph optimum on random meshes of unit squares and 2 x 1 blocks.

The blocks have a vertex in the middle of their long sides (where a neighbouring square's corner
is), so the polygons carry collinear vertices as meshes made conformal at T-junctions do; holes make
corners to bend around; some endpoints lie on vertices and edges.
"""

from __future__ import annotations

import numpy as np
import pytest

from python_core.navmesh import NavMesh
from python_core.navmesh.polyanya import find_optimal_path
from tests.core.navmesh.mesh_oracle import MeshOracle, VisibilityOptimum


def _no_pinches(free: np.ndarray) -> None:
    """Cells that would touch only at a corner get their two common neighbours opened (polygons
    meeting at a point are not connected, while the visibility graph would pass through it)."""
    changed = True
    while changed:
        changed = False
        for y in range(free.shape[0] - 1):
            for x in range(free.shape[1] - 1):
                b = free[y : y + 2, x : x + 2]
                if b[0, 0] == b[1, 1] and b[0, 1] == b[1, 0] and b[0, 0] != b[0, 1]:
                    free[y : y + 2, x : x + 2] = True
                    changed = True


def _grid_mesh(rng: np.random.Generator, w: int, h: int) -> tuple[NavMesh, np.ndarray]:
    free = rng.random((h, w)) > 0.25
    _no_pinches(free)

    def vid(x: int, y: int) -> int:
        return y * (w + 1) + x

    polys: list[list[int]] = []
    taken = np.zeros((h, w), dtype=bool)
    for y in range(h):
        for x in range(w):
            if not free[y, x] or taken[y, x]:
                continue
            if x + 1 < w and free[y, x + 1] and rng.random() < 0.3:
                polys.append(
                    [
                        vid(x, y),
                        vid(x + 1, y),
                        vid(x + 2, y),
                        vid(x + 2, y + 1),
                        vid(x + 1, y + 1),
                        vid(x, y + 1),
                    ]
                )
                taken[y, x + 1] = True
            else:
                polys.append([vid(x, y), vid(x + 1, y), vid(x + 1, y + 1), vid(x, y + 1)])
    used = sorted({v for p in polys for v in p})
    remap = {v: i for i, v in enumerate(used)}
    verts = np.array([[x, y] for y in range(h + 1) for x in range(w + 1)], dtype=float)[used]
    return NavMesh(verts, [[remap[v] for v in p] for p in polys]), np.argwhere(free)


@pytest.mark.parametrize("seed", range(8))
def test_random_grid_meshes_match_the_visibility_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mesh, cells = _grid_mesh(rng, 7, 6)
    oracle = MeshOracle(mesh)
    exact = VisibilityOptimum(oracle)
    for q in range(12):
        a = cells[rng.integers(len(cells))][::-1] + rng.random(2)
        b = cells[rng.integers(len(cells))][::-1] + rng.random(2)
        if q % 3 == 0:
            a = np.round(a * 2) / 2  # on a vertex, an edge or a cell's centre
        ps, _ = mesh.closest_point(a)
        pg, _ = mesh.closest_point(b)
        res = find_optimal_path(mesh, a, b)
        best = exact.length(ps, pg)
        if np.isinf(best):
            assert not res.found, (seed, q)
            continue
        assert res.found, (seed, q)
        assert res.cost == pytest.approx(best, rel=1e-9), (seed, q, res.points.tolist())
        assert oracle.path_inside(res.points), (seed, q)
