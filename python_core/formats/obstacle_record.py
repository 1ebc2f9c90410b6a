"""A grid's obstacles <-> the plain list a graph file keeps beside the grid's record.

A grid's record holds its walls as loaded and set (``base_walkable``), never the cells its
obstacles block, so a saved grid loaded again can still move or remove them; the obstacles travel
beside it as ``[{"id": int >= 0, "outline": bin float64 x 2 per vertex, "base": float, "height":
float}]`` (float64: the reloaded outline blocks exactly the cells it blocked).

    from python_core.formats.obstacle_record import obstacles_from, obstacles_to
    shapes = obstacles_from(obstacles_to(grid))  # {id: ObstacleShape}, as grid.obstacles
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from python_core.errors import InvalidGraphError
from python_core.obstacles import ObstacleShape

__all__ = ["obstacles_from", "obstacles_to"]

KEYS = ("id", "outline", "base", "height")


def obstacles_to(graph: object) -> list[dict[str, Any]]:
    """The obstacles placed on ``graph`` (a grid), by id; ``[]`` for a graph without any."""
    shapes: Mapping[int, ObstacleShape] = getattr(graph, "obstacles", {})
    return [
        {
            "id": int(key),
            "outline": np.asarray(shape.outline, dtype="<f8").tobytes(),
            "base": float(shape.base),
            "height": float(shape.height),
        }
        for key, shape in sorted(shapes.items())
    ]


def obstacles_from(value: object) -> dict[int, ObstacleShape]:
    """Validate a list written by :func:`obstacles_to` and build its shapes.

    Raises:
        InvalidGraphError: not a list of maps, an unknown field, a bad or repeated id, an outline
            that is not float64 pairs, or a shape :meth:`ObstacleShape.polygon` refuses.
    """
    if not isinstance(value, list):
        raise InvalidGraphError(f"obstacles must be a list, got {type(value).__name__}")
    shapes: dict[int, ObstacleShape] = {}
    for item in value:
        if not isinstance(item, Mapping) or sorted(item) != sorted(KEYS):
            raise InvalidGraphError(f"an obstacle must be a map of {list(KEYS)}, got {item!r:.80}")
        key, outline = item["id"], item["outline"]
        if not isinstance(key, int) or isinstance(key, bool) or key < 0 or key in shapes:
            raise InvalidGraphError(f"obstacle id must be a new integer >= 0, got {key!r:.40}")
        if not isinstance(outline, bytes) or len(outline) % 16:
            raise InvalidGraphError(f"obstacle {key}: outline must be bin of float64 pairs")
        points = np.frombuffer(outline, dtype="<f8").reshape(-1, 2)
        shapes[key] = ObstacleShape.polygon(points, base=item["base"], height=item["height"])
    return shapes
