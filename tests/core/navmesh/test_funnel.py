"""The funnel (string pulling) on hand-made corridors."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.navmesh.funnel import funnel_points, string_pull


def test_straight_line_through_wide_portals() -> None:
    left = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    right = np.array([[1.0, -5.0], [2.0, -5.0], [3.0, -5.0]])
    assert funnel_points((0, 0), (4, 0), left, right).tolist() == [[0, 0], [4, 0]]


def test_bends_at_a_right_corner() -> None:
    path = funnel_points((0, 0), (2, 0), [[1.0, 1.5]], [[1.0, 0.5]])
    assert path.tolist() == [[0, 0], [1, 0.5], [2, 0]]


def test_bends_at_a_left_corner() -> None:
    path = funnel_points((0, 0), (2, 0), [[1.0, -0.5]], [[1.0, -1.5]])
    assert path.tolist() == [[0, 0], [1, -0.5], [2, 0]]


def test_indices_refer_to_the_table() -> None:
    # an L-shaped corridor turning left around the corner (1, 1)
    left = np.array([[1.0, 1.0], [1.0, 1.0]])
    right = np.array([[2.0, 0.0], [2.0, 2.0]])
    order = string_pull((0, 0.5), (1.5, 3), left, right)
    assert order[0] == 0
    assert order[-1] == 1
    assert order.tolist() == [0, 2, 1] or order.tolist() == [0, 3, 1]
    pts = funnel_points((0, 0.5), (1.5, 3), left, right)
    assert pts[1].tolist() == [1.0, 1.0]


def test_zigzag_corridor_length() -> None:
    # portals alternate between forcing the path up and down
    left = np.array([[1, 3], [2, 1], [3, 3]], dtype=float)
    right = np.array([[1, 2], [2, 0], [3, 2]], dtype=float)
    pts = funnel_points((0, 2.5), (4, 2.5), left, right)
    assert pts.tolist() == [[0, 2.5], [1, 2], [2, 1], [3, 2], [4, 2.5]]
    length = float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())
    assert length == pytest.approx(2 * np.hypot(1, 0.5) + 2 * np.hypot(1, 1))


def test_no_portals_and_same_points() -> None:
    empty = np.zeros((0, 2))
    assert funnel_points((0, 0), (3, 4), empty, empty).tolist() == [[0, 0], [3, 4]]
    assert funnel_points((1, 1), (1, 1), empty, empty).tolist() == [[1, 1]]


def test_portal_touching_the_straight_line_adds_no_corner() -> None:
    # the corner (1, 0) lies exactly on the straight line: no bend is needed
    path = funnel_points((0, 0), (2, 0), [[1.0, 1.0]], [[1.0, 0.0]])
    assert path[0].tolist() == [0, 0]
    assert path[-1].tolist() == [2, 0]
    assert float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum()) == pytest.approx(2.0)
