"""ObstacleShape: the checks of its constructors, its orientation and the circumscribing circle."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import shapely

from python_core.errors import InvalidGraphError
from python_core.obstacles import CIRCLE_SIDES, ObstacleShape

SQUARE_CW = [(0.0, 0.0), (0.0, 2.0), (2.0, 2.0), (2.0, 0.0)]


def test_polygon_is_normalised_to_counter_clockwise() -> None:
    shape = ObstacleShape.polygon(SQUARE_CW)
    assert shape.geometry().exterior.is_ccw
    assert shapely.Polygon(shape.outline).exterior.is_ccw
    assert shape.geometry().area == pytest.approx(4.0)
    assert shape.outline.dtype == np.float64
    assert shape.outline.shape == (4, 2)


def test_ccw_input_is_kept_as_given() -> None:
    points = [(0.0, 0.0), (3.0, 0.0), (0.0, 1.0)]
    assert ObstacleShape.polygon(points).outline.tolist() == [list(p) for p in points]


def test_closing_vertex_and_repeats_are_dropped() -> None:
    ring = [(0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 0)]
    assert len(ObstacleShape.polygon(ring).outline) == 4


def test_outline_is_a_read_only_copy() -> None:
    points = np.array([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)])
    shape = ObstacleShape.polygon(points)
    points[0, 0] = 9.0
    assert shape.outline[0, 0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        shape.outline[0, 0] = 5.0


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ([(0, 0), (1, 1)], ">= 3 distinct"),
        ([(0, 0), (0, 0), (0, 0), (0, 0)], ">= 3 distinct"),
        ([(0, 0), (1, 1), (2, 2)], "zero area"),
        ([(0, 0), (2, 2), (2, 0), (0, 2)], "not simple"),  # a bow-tie
        ([(0, 0), (1, 0), (math.nan, 1)], "non-finite"),
        ([(0, 0), (1, 0), (math.inf, 1)], "non-finite"),
        ([(0, 0, 0), (1, 0, 0), (0, 1, 0)], "shape"),
        ([0, 1, 2], "shape"),
        ([("a", 0), (1, 0), (0, 1)], "list of"),
        ([[0, 0], [1, 0], [1]], "list of"),
    ],
)
def test_bad_polygons_are_refused(points: object, message: str) -> None:
    with pytest.raises(InvalidGraphError, match=message):
        ObstacleShape.polygon(points)  # type: ignore[arg-type]


def test_direct_construction_applies_the_same_checks() -> None:
    with pytest.raises(InvalidGraphError, match="zero area"):
        ObstacleShape(np.array([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]))
    direct = ObstacleShape(np.array(SQUARE_CW))
    assert direct == ObstacleShape.polygon(SQUARE_CW)


def test_circle_circumscribes_the_disc() -> None:
    shape = ObstacleShape.circle((3.0, -1.0), 2.0)
    assert len(shape.outline) == CIRCLE_SIDES
    assert shape.geometry().exterior.is_ccw
    reach = np.hypot(shape.outline[:, 0] - 3.0, shape.outline[:, 1] + 1.0)
    np.testing.assert_allclose(reach, 2.0 / math.cos(math.pi / CIRCLE_SIDES))
    disc = shapely.Point(3.0, -1.0).buffer(2.0, quad_segs=256)
    assert shape.geometry().buffer(1e-9).contains(disc)
    # Its edges touch the circle: the polygon's inner radius is the radius.
    assert shape.geometry().exterior.distance(shapely.Point(3.0, -1.0)) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("center", "radius", "message"),
    [
        ((0.0, 0.0), 0.0, "radius"),
        ((0.0, 0.0), -1.0, "radius"),
        ((0.0, 0.0), math.inf, "radius"),
        ((0.0, 0.0), math.nan, "radius"),
        ((0.0, 0.0), "1", "radius"),
        ((0.0, math.nan), 1.0, "center"),
        ((0.0, 0.0, 0.0), 1.0, "center"),
        ("ab", 1.0, "center"),
    ],
)
def test_bad_circles_are_refused(center: object, radius: object, message: str) -> None:
    with pytest.raises(InvalidGraphError, match=message):
        ObstacleShape.circle(center, radius)  # type: ignore[arg-type]


def test_elevation_span() -> None:
    flat = ObstacleShape.polygon(SQUARE_CW)
    assert flat.base == -math.inf
    assert flat.height == math.inf
    assert flat.overlaps_elevation(-1e9, -1e9)
    pillar = ObstacleShape.circle((0.0, 0.0), 1.0, base=2.0, height=3.0)
    assert pillar.overlaps_elevation(4.0, 6.0)
    assert pillar.overlaps_elevation(5.0, 5.0)
    assert not pillar.overlaps_elevation(5.5, 9.0)
    assert not pillar.overlaps_elevation(0.0, 1.9)
    assert ObstacleShape.polygon(SQUARE_CW, base=1.0).overlaps_elevation(50.0, 60.0)


@pytest.mark.parametrize(
    ("base", "height", "message"),
    [
        (0.0, 0.0, "height"),
        (0.0, -2.0, "height"),
        (0.0, math.nan, "height"),
        (math.nan, 1.0, "base"),
        (math.inf, 1.0, "base"),
        (-math.inf, 1.0, "finite base"),
        (True, 1.0, "number"),
    ],
)
def test_bad_elevation_span_is_refused(base: object, height: object, message: str) -> None:
    with pytest.raises(InvalidGraphError, match=message):
        ObstacleShape.polygon(SQUARE_CW, base=base, height=height)  # type: ignore[arg-type]


def test_equality_hash_and_bounds() -> None:
    a = ObstacleShape.polygon(SQUARE_CW)
    b = ObstacleShape.polygon(list(reversed(SQUARE_CW)))
    assert a.geometry().equals(b.geometry())
    assert len({a, ObstacleShape.polygon(SQUARE_CW)}) == 1
    assert a != ObstacleShape.polygon(SQUARE_CW, base=0.0, height=1.0)
    assert a.bounds == (0.0, 0.0, 2.0, 2.0)


def test_pickles_as_itself() -> None:
    shape = ObstacleShape.circle((1.0, 2.0), 3.0, base=0.5, height=2.0)
    back = pickle.loads(pickle.dumps(shape))
    assert back == shape
    assert not back.outline.flags.writeable
    assert back.geometry().equals(shape.geometry())
