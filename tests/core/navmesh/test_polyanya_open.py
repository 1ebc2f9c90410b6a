"""Polyanya's compiled open list and reused scratch (issue 40): the open list pops in exactly the
order ``heapq`` popped the tuples ``(f, -g, node)`` (ties in f and g included), and a search whose
scratch is too small for it runs again with room and answers as one with room from the start."""

from __future__ import annotations

import heapq
from pathlib import Path

import numpy as np

from python_core._types import SEARCH_FOUND
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh.polyanya import _plane
from python_core.navmesh.polyanya_kernel import SCRATCH_NODES, polyanya_search, search_scratch
from python_core.navmesh.polyanya_landmarks import no_landmarks
from python_core.navmesh.polyanya_open import open_list, open_pop, open_push
from python_core.navmesh.polyanya_places import polygons_at
from python_core.navmesh.polyanya_prepare import prepare as _prepare

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def test_the_open_list_pops_in_heapq_order() -> None:
    rng = np.random.default_rng(7)
    keys, nodes = open_list(4096)
    size = 0
    reference: list[tuple[float, float, int]] = []
    popped, expected = [], []
    for node in range(3000):
        f = float(rng.integers(0, 40)) * 0.5  # many equal f, and equal g among them
        ng = -float(rng.integers(0, 6))
        size = open_push(keys, nodes, size, f, ng, node)
        heapq.heappush(reference, (f, ng, node))
        if rng.random() < 0.4:
            got, size = open_pop(keys, nodes, size)
            popped.append(got)
            expected.append(heapq.heappop(reference)[2])
    while size:
        got, size = open_pop(keys, nodes, size)
        popped.append(got)
        expected.append(heapq.heappop(reference)[2])
    assert popped == expected
    assert not reference


def test_a_search_too_big_for_its_scratch_runs_again_with_room() -> None:
    mesh = load_polyanya_mesh(DATA / "aurora.mesh")
    prep = _prepare(mesh)
    arrays = (
        prep.xy,
        prep.ptr,
        prep.verts,
        prep.cpoly,
        prep.nxt,
        prep.nbr,
        prep.twin,
        prep.corner,
        prep.pocket,
    )
    where = (prep.xy, prep.ptr, prep.verts, prep.vp_ptr, prep.vp, prep.all_usable)
    rows = read_mesh_scenarios(DATA / "aurora.scen")
    small = search_scratch(prep.xy, prep.ptr, 1)  # the least room: a longer search runs again
    roomy = search_scratch(prep.xy, prep.ptr, SCRATCH_NODES)
    longer = 0
    for row in rows[-400::50]:  # long queries
        ps, poly_s = mesh.closest_point(row.start)
        pg, poly_g = mesh.closest_point(row.goal)
        s_xy, g_xy = _plane(mesh, ps), _plane(mesh, pg)
        start_polys = polygons_at(*where, poly_s, float(s_xy[0]), float(s_xy[1]))
        goal_polys = polygons_at(*where, poly_g, float(g_xy[0]), float(g_xy[1]))
        lo, hi, act, glo, ghi = no_landmarks(prep.xy.shape[0])
        found = [
            polyanya_search(
                *arrays, s_xy, start_polys, g_xy, goal_polys, True, -1, lo, hi, act, glo, ghi, scratch
            )
            for scratch in (roomy, small)
        ]
        assert found[1][0] == found[0][0] == SEARCH_FOUND
        assert found[1][3] == found[0][3]
        assert found[1][1].tolist() == found[0][1].tolist()
        assert found[1][2].tolist() == found[0][2].tolist()
        longer += int(found[0][2].shape[0] > small[3].shape[0])  # more nodes than it holds
        for scratch in (small, roomy):  # left all inf for the next query
            assert np.isinf(scratch[0]).all()
    assert longer >= 4
