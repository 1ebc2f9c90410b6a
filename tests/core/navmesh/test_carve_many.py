"""carve.convex_pieces_many (an obstacle update's re-cut, shapely called once for every polygon)
gives each area exactly the pieces carve.convex_pieces gives it alone."""

from __future__ import annotations

import numpy as np
import shapely

from python_core.navmesh.carve import convex_pieces, convex_pieces_many


def test_many_areas_at_once_equal_one_by_one_empty_and_split_ones_too() -> None:
    rng = np.random.default_rng(1)
    square = shapely.box(0, 0, 4, 4)
    areas = [
        square.difference(shapely.Point(rng.uniform(0, 4, 2)).buffer(1.0, quad_segs=4)) for _ in range(12)
    ]
    areas += [
        shapely.Polygon(),  # nothing left
        shapely.box(0, 0, 1, 1).difference(shapely.box(-1, -1, 2, 2)),
        shapely.box(0, 0, 4, 1).difference(shapely.box(1.5, -1, 2.5, 2)),  # two parts
        shapely.box(0, 0, 2, 2).difference(shapely.box(0.5, 0.5, 1.5, 1.5)),  # a hole
    ]
    many = convex_pieces_many(np.array(areas, dtype=object), min_area=1e-9)
    assert len(many) == len(areas)
    for area, got in zip(areas, many, strict=True):
        want = convex_pieces(area, min_area=1e-9)
        assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))
    assert many[12][1].tolist() == [0]
    assert len(many[14][1]) - 1 >= 2


def test_nothing_left_of_any() -> None:
    many = convex_pieces_many(np.array([shapely.Polygon(), shapely.Polygon()], dtype=object))
    assert [p[1].tolist() for p in many] == [[0], [0]]
