"""Polyanya's pocket pruning (issue 40): a search enters no pocket (a tree-like part of the mesh,
off its 2-core) from the polygon it hangs from unless the goal lies in it. The oracle is the same
search with no pruning at all (every pocket entry -1): the same lengths, on aurora (its merged
view and its own polygons, with and without a mask) and on a ring with a tail."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from python_core._types import I64, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh import NavMesh, polyanya_prepare
from python_core.navmesh.polyanya import _plane, build_landmarks
from python_core.navmesh.polyanya_kernel import SCRATCH_NODES, polyanya_search, search_scratch
from python_core.navmesh.polyanya_landmarks import no_landmarks
from python_core.navmesh.polyanya_places import pockets, polygons_at
from python_core.navmesh.polyanya_prepare import SearchArrays, search_arrays

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def _ring_with_tail() -> NavMesh:
    """Eight unit squares around a hole (a ring), and a tail of three squares off its right side."""
    points = [[x, y] for y in range(4) for x in range(7)]  # index y * 7 + x
    cells = [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2), (3, 1), (4, 1), (5, 1)]
    polys = [[y * 7 + x, y * 7 + x + 1, (y + 1) * 7 + x + 1, (y + 1) * 7 + x] for x, y in cells]
    return NavMesh(points, polys)


@pytest.fixture
def unmerged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mesh's own squares searched (merged, the ring and its tail would be a few rectangles)."""
    monkeypatch.setattr(polyanya_prepare, "MERGED", False)


@pytest.mark.usefixtures("unmerged")
def test_pockets_name_the_polygon_each_pocket_hangs_from() -> None:
    arrays = search_arrays(_ring_with_tail(), None)
    prep = arrays.prep
    up = pockets(prep.ptr, arrays.nbr, np.ones(prep.ptr.shape[0] - 1, dtype=np.bool_))
    assert (arrays.pocket == up).all()
    assert up[:8].tolist() == [-1] * 8  # the ring is the 2-core
    assert up[8:].tolist() == [4, 8, 9]  # the tail hangs off its right side, square by square
    masked = search_arrays(_ring_with_tail(), np.arange(11) != 1)  # the ring cut: all one tree
    assert (masked.pocket >= 0).sum() == 9  # every square of it but its last one hangs from one


Ends = list[tuple[npt.ArrayLike, npt.ArrayLike]]


def _search(
    arrays: SearchArrays, mesh: NavMesh, start: npt.ArrayLike, goal: npt.ArrayLike, pocket: I64
) -> tuple[int, float]:
    prep = arrays.prep
    where = (prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, arrays.usable)
    ps, poly_s = mesh.closest_point(start)
    pg, poly_g = mesh.closest_point(goal)
    poly_s, poly_g = arrays.polygon(poly_s), arrays.polygon(poly_g)
    s_xy, g_xy = _plane(mesh, ps), _plane(mesh, pg)
    if not arrays.usable[poly_s]:
        return SEARCH_NO_PATH, 0.0
    start_polys = polygons_at(*where, poly_s, float(s_xy[0]), float(s_xy[1]))
    goal_polys = polygons_at(*where, poly_g, float(g_xy[0]), float(g_xy[1]))
    args = (prep.xy, prep.ptr, prep.verts, prep.cpoly, prep.nxt, arrays.nbr, prep.twin, arrays.corner, pocket)
    scratch = search_scratch(prep.xy, prep.ptr, SCRATCH_NODES)
    status, roots, _, _ = polyanya_search(
        *args, s_xy, start_polys, g_xy, goal_polys, True, -1, *no_landmarks(prep.xy.shape[0]), scratch
    )
    points = np.vstack([s_xy, prep.xy[roots], g_xy])
    assert not scratch[7].any()  # the goal's flags left all False
    assert not scratch[8].any()
    return status, float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())


def _same_lengths(mesh: NavMesh, ends: Ends, traversable: npt.ArrayLike | None = None) -> int:
    """Searches with and without pocket pruning agree; the count of pruned polygons."""
    arrays = search_arrays(mesh, traversable)
    unpruned = np.full(arrays.pocket.shape[0], -1, dtype=np.int64)
    for start, goal in ends:
        pruned = _search(arrays, mesh, start, goal, arrays.pocket)
        plain = _search(arrays, mesh, start, goal, unpruned)
        assert pruned[0] == plain[0]
        if pruned[0] == SEARCH_FOUND:
            assert pruned[1] == pytest.approx(plain[1], abs=1e-9)
    return int((arrays.pocket >= 0).sum())


@pytest.mark.usefixtures("unmerged")
def test_ring_with_tail_paths_into_out_of_and_past_the_tail() -> None:
    mesh = _ring_with_tail()
    spots: list[npt.ArrayLike] = [
        (0.5, 0.5),
        (2.5, 2.5),
        (5.5, 1.5),
        (4.2, 1.8),
        (3.5, 1.1),
        (1.5, 2.5),
        (2.5, 0.2),
    ]
    ends: Ends = [(a, b) for a in spots for b in spots]
    assert _same_lengths(mesh, ends) == 3
    assert _same_lengths(mesh, ends, np.arange(11) != 1) == 9  # cut open: a tree, one root


@pytest.mark.parametrize("masked", [False, True])
def test_aurora_lengths_as_without_pruning(masked: bool) -> None:
    mesh = load_polyanya_mesh(DATA / "aurora.mesh")
    build_landmarks(mesh, 0)
    rows = read_mesh_scenarios(DATA / "aurora.scen")
    ends: Ends = [(row.start, row.goal) for row in rows[:: max(1, len(rows) // 40)]]
    traversable = None
    if masked:  # a mask: pockets of what is left
        rng = np.random.default_rng(3)
        traversable = rng.random(mesh.polygon_count) > 0.02
    pruned = _same_lengths(mesh, ends, traversable)
    assert pruned > 0
