"""``graph.update``'s ``obstacles`` list -> one :class:`SetObstacles` change (``bridge/PROTOCOL.md``,
"Obstacles").

    from bridge.methods.obstacles import obstacle_update
    from bridge.methods.params import Params
    items = [{"op": "set", "id": 1, "center": [4.0, 2.0], "radius": 1.5}, {"op": "remove", "id": 2}]
    change = obstacle_update(Params({"obstacles": items}, "graph.update"), dim=2)
    assert list(change.shapes) == [1] and change.remove == (2,)

The wire checks types and sizes (``invalid_params``); the shapes' own checks (a simple polygon of
non-zero area) are python_core's (``invalid_graph``), as are unknown ids, which only the graph knows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bridge.methods.params import Params
from bridge.wire.errors import BadRequestError, short_repr
from bridge.wire.protocol import COORDINATE_MAX
from python_core.navigation import SetObstacles
from python_core.obstacles import ObstacleShape

__all__ = ["OBSTACLE_ID_MAX", "obstacle_update"]

OBSTACLE_ID_MAX = 2**63 - 1
"""Obstacle ids are integers ``0..OBSTACLE_ID_MAX`` (what a Godot int holds)."""

_PLANE = {0: (1, 2), 1: (0, 2), 2: (0, 1)}
"""The ground-plane axes of a 3D graph by its up axis (the navmesh's ``up_axis``)."""


def obstacle_update(params: Params, dim: int, up_axis: int = 1) -> SetObstacles:
    """The ``obstacles`` list of a ``graph.update`` as one change: ``clear`` (only as the first
    item), then the removes, then the sets; an id at most once in a message.

    Args:
        params: the update's fields (``obstacles`` required).
        dim: coordinates per point of the graph (2, or 3 for a 3D navmesh).
        up_axis: a 3D graph's up axis; its other two axes are the obstacles' ground plane.

    Raises:
        BadRequestError: an item of the wrong form, an id twice, ``clear`` after other items.
        InvalidGraphError: a shape python_core refuses (too few vertices, zero area, not simple).
    """
    shapes: dict[int, ObstacleShape] = {}
    remove: list[int] = []
    clear = False
    seen: set[int] = set()
    for i, raw in enumerate(params.array("obstacles")):
        if not isinstance(raw, dict):
            raise BadRequestError(f"{params.where}: obstacles[{i}] must be a map, got {short_repr(raw)}")
        item = Params(raw, f"{params.where}.obstacles[{i}]")
        verb = item.text("op", choices=("set", "remove", "clear"))
        if verb == "clear":
            item.only("op")
            if i:
                raise BadRequestError(f"{item.where}: 'clear' must be the first item", {"field": "obstacles"})
            clear = True
            continue
        oid = item.integer("id", minimum=0, maximum=OBSTACLE_ID_MAX)
        if oid in seen:
            raise BadRequestError(f"{item.where}: obstacle {oid} is named twice", {"field": "obstacles"})
        seen.add(oid)
        if verb == "remove":
            item.only("op", "id")
            remove.append(oid)
        else:
            shapes[oid] = _shape(item, dim, up_axis)
    return SetObstacles(shapes, tuple(remove), clear)


def _shape(item: Params, dim: int, up_axis: int) -> ObstacleShape:
    """A ``set`` item's shape: a ``polygon`` or a ``center`` and ``radius``; in 3D, its elevation."""
    item.only("op", "id", "polygon", "center", "radius", "base", "height")
    if item.has("polygon") == item.has("center") or item.has("polygon") == item.has("radius"):
        raise BadRequestError(
            f"{item.where}: give either 'polygon' or 'center' with 'radius'", {"field": "polygon"}
        )
    if item.has("polygon"):
        data = item.blob("polygon")
        if len(data) % (4 * dim) or len(data) < 3 * 4 * dim:
            raise BadRequestError(
                f"{item.where}: 'polygon' must be >= 3 vertices of {dim} float32, got {len(data)} bytes",
                {"field": "polygon"},
            )
        points = np.frombuffer(data, dtype="<f4").astype(np.float64).reshape(-1, dim)
    else:
        points = np.array([item.vector("center", (dim,))], dtype=np.float64)
    _check_range(item, points)
    ground = points[:, list(_PLANE[up_axis])] if dim == 3 else points
    base, height = _elevation(item, dim, float(points[0, up_axis]) if dim == 3 else 0.0)
    if item.has("polygon"):
        return ObstacleShape.polygon(ground, base=base, height=height)
    radius = item.number("radius", minimum=0.0, maximum=COORDINATE_MAX)
    if radius <= 0.0:
        raise BadRequestError(
            f"{item.where}: 'radius' must be > 0, got {short_repr(radius)}", {"field": "radius"}
        )
    return ObstacleShape.circle(ground[0], radius, base=base, height=height)


def _check_range(item: Params, points: np.ndarray[Any, Any]) -> None:
    """Finite coordinates within ``COORDINATE_MAX`` (float32 world positions stay meaningful)."""
    if not np.isfinite(points).all() or (np.abs(points) > COORDINATE_MAX).any():
        bound = f"{COORDINATE_MAX:g}"
        raise BadRequestError(
            f"{item.where}: obstacle coordinates must be finite and within [-{bound}, {bound}]",
            {"field": "polygon" if item.has("polygon") else "center"},
        )


def _elevation(item: Params, dim: int, up: float) -> tuple[float, float]:
    """``(base, height)`` (3D only): unbounded when neither is given; ``base`` alone bounds it
    below; with ``height``, ``base`` defaults to the up coordinate of the centre or first vertex."""
    if dim != 3:
        if item.has("base") or item.has("height"):
            raise BadRequestError(
                f"{item.where}: 'base'/'height' apply to 3D graphs only", {"field": "height"}
            )
        return -np.inf, np.inf
    base = item.number("base", minimum=-COORDINATE_MAX, maximum=COORDINATE_MAX) if item.has("base") else None
    if not item.has("height"):
        return (-np.inf if base is None else base), np.inf
    height = item.number("height", minimum=0.0, maximum=COORDINATE_MAX)
    if height <= 0.0:
        raise BadRequestError(
            f"{item.where}: 'height' must be > 0, got {short_repr(height)}", {"field": "height"}
        )
    return (up if base is None else base), height
