"""path.find_packed on a navmesh is cut for the search threads by estimated work, not by count
(issue 40): a frame's batch listing short paths first (as scenario files do) left the last piece
most of the work and a thread idle meanwhile."""

from __future__ import annotations

import numpy as np

from bridge.methods.kinds import KINDS
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving.packed import PIECE_OVERHEAD, PackedBatch, packed_pieces
from bridge.serving.packed_mesh import QUERY_SHARE, mesh_work
from python_core.navigation.navmesh import NavMeshNavigator
from python_core.navmesh import NavMesh


def _strip(squares: int) -> NavMesh:
    """``squares`` unit squares in a row along x."""
    top = [[x, 1.0] for x in range(squares + 1)]
    bottom = [[x, 0.0] for x in range(squares + 1)]
    polygons = [[i, i + 1, squares + 2 + i, squares + 1 + i] for i in range(squares)]
    return NavMesh(bottom + top, polygons)


def test_long_queries_share_a_piece_with_fewer() -> None:
    registry = Registry(max_graphs=2)
    registry.put(GraphEntry("strip", KINDS["navmesh"], NavMeshNavigator(_strip(40))))
    starts = np.tile([0.5, 0.5], (80, 1))
    goals = np.array([[1.5, 0.5]] * 60 + [[39.5, 0.5]] * 20)
    pieces = packed_pieces(PackedBatch("strip", starts, goals, None), 2, registry)
    assert [q for p in pieces for q in p] == list(range(80))
    assert len(pieces) == 2
    assert len(pieces[0]) > 60  # by count: 40 and 40, the long 20 in one
    work = mesh_work(starts, goals, PIECE_OVERHEAD)
    assert work[0] < work[-1]
    assert np.isclose(work.mean(), QUERY_SHARE * PIECE_OVERHEAD)


def test_no_estimate_without_distances() -> None:
    """Ends all in place, or a non-finite one (that query's own error later): cut by count."""
    here = np.zeros((4, 2))
    assert not mesh_work(here, here, PIECE_OVERHEAD).any()
    bad = np.array([[0.0, 0.0], [np.inf, 0.0]])
    assert not mesh_work(bad, np.ones((2, 2)), PIECE_OVERHEAD).any()
