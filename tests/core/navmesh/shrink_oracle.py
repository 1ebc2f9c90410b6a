"""Independent checks for paths on a navmesh shrunk for an agent radius, written with shapely and
scipy only (no search or shrink code of python_core): the walkable area as the union of the mesh's
polygons, each segment's distance to its boundary, and the any-angle optimum inside the eroded
area by Dijkstra over the visibility graph of that area's reflex vertices.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from python_core.navmesh import NavMesh

ARC_SEGMENTS = 4
"""As the product's arcs: vertices at r / cos(pi / 16) keep every chord at least r from a corner."""


def walkable_area(mesh: NavMesh) -> shapely.Geometry:
    """The union of a 2D mesh's polygons."""
    return shapely.union_all(
        [shapely.Polygon(mesh.vertices[mesh.polygon(p)]) for p in range(mesh.polygon_count)]
    )


def eroded_area(area: shapely.Geometry, radius: float) -> shapely.Geometry:
    """The points a disc of ``radius`` fits at, as the product approximates them: round around
    obstacle corners with chords outside the disc, exact along straight walls."""
    rounded = area.buffer(-radius / math.cos(math.pi / (4 * ARC_SEGMENTS)), quad_segs=ARC_SEGMENTS)
    return shapely.union(rounded, area.buffer(-radius, join_style="mitre"))


def segments(points: np.ndarray) -> list[shapely.Geometry]:
    """The path's pieces (a point where two waypoints coincide)."""
    pts = np.asarray(points, dtype=float)[:, :2]
    return [
        shapely.LineString(pts[i : i + 2]) if np.any(pts[i] != pts[i + 1]) else shapely.Point(pts[i])
        for i in range(len(pts) - 1)
    ]


class VisibilityOnArea:
    """Exact shortest lengths inside ``area`` (a shapely polygon or multipolygon)."""

    def __init__(self, area: shapely.Geometry, tolerance: float = 1e-7) -> None:
        self.area = area
        self.cover = area.buffer(tolerance)
        shapely.prepare(self.cover)
        nodes = []
        for poly in shapely.get_parts(shapely.orient_polygons(area)):
            for ring in [poly.exterior, *poly.interiors]:
                c = shapely.get_coordinates(ring)[:-1]
                prev, nxt = np.roll(c, 1, axis=0), np.roll(c, -1, axis=0)
                d0, d1 = c - prev, nxt - c
                turn = d0[:, 0] * d1[:, 1] - d0[:, 1] * d1[:, 0]
                nodes.append(c[turn < 0])  # a right turn with the inside on the left: reflex
        self.nodes = np.vstack(nodes)
        n = len(self.nodes)
        i, j = np.triu_indices(n, 1)
        seen = self._visible(self.nodes[i], self.nodes[j])
        w = np.hypot(*(self.nodes[j[seen]] - self.nodes[i[seen]]).T)
        self.graph = (i[seen], j[seen], w)

    def _visible(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        lines = shapely.linestrings(np.stack([a, b], axis=1))
        return np.asarray(shapely.covers(self.cover, lines), dtype=bool)

    def length(self, start: np.ndarray, goal: np.ndarray) -> float:
        """The shortest length from ``start`` to ``goal`` inside the area (inf when unreachable)."""
        if self._visible(start[None, :], goal[None, :])[0]:
            return float(np.hypot(*(goal - start)))
        n = len(self.nodes)
        i, j, w = self.graph
        ends = np.stack([start, goal])
        rows, cols, weights = [i, j], [j, i], [w, w]
        for k, end in enumerate(ends):
            seen = self._visible(np.repeat(end[None, :], n, axis=0), self.nodes)
            d = np.hypot(*(self.nodes[seen] - end).T)
            idx = np.flatnonzero(seen)
            rows += [np.full(idx.size, n + k), idx]
            cols += [idx, np.full(idx.size, n + k)]
            weights += [d, d]
        matrix = csr_matrix(
            (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))), shape=(n + 2, n + 2)
        )
        return float(dijkstra(matrix, indices=n)[n + 1])
