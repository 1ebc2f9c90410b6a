"""Navigation meshes of convex polygons (2D, or 3D with an up axis), searched with A* + funnel.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    result = mesh.find_path((0.5, 0.5), (2.5, 0.5))
    assert result.found and result.nodes.tolist() == [0, 1]

A* runs on the portal graph: one node per (polygon edge shared with a neighbour, direction), edge
cost the distance between sample points on the portals (ends and middle), heuristic the straight-line
distance to the goal, searched by the compiled CSR kernel (:mod:`python_core.csr.kernel`). That
cost is an estimate of the true length (the chosen corridor is good, not always the optimal one);
the funnel then pulls the path taut inside the corridor and ``PathResult.cost`` is its real length.
Start and goal outside the mesh are snapped to the closest point on it, as Godot's
NavigationServer does. In 3D, location and funnel work in the plane perpendicular to ``up_axis``
and heights come from the polygons' planes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.csr.kernel import astar_kernel, heuristic_code, walk_back
from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.navmesh.build import PLANE_AXES, corner_links, flatten, match_edges, normalise, portal_graph
from python_core.navmesh.funnel import string_pull
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["NavMesh"]


class NavMesh:
    """A navigation mesh of convex polygons (Godot ``NavigationPolygon`` / ``NavigationMesh`` layout).

    Args:
        vertices: ``(n, 2)`` or ``(n, 3)`` finite coordinates.
        polygons: vertex index lists (either winding), or a flat index array with ``sizes``.
        sizes: vertex counts per polygon when ``polygons`` is flat.
        up_axis: 3D only: 0, 1 (Y up, Godot's default) or 2.
        merge_margin: vertices closer than this (per axis, by rounding) count as one when matching
            shared edges, like Godot's edge connection margin for near-coincident edges.
        area_epsilon: polygons with area at most this are degenerate.
        portal_samples: search points per portal (3: both ends and the middle, which lets the
            search hug corners as shortest paths do; 1: midpoints only, smaller and faster).

    Raises:
        InvalidGraphError: bad shapes, non-finite coordinates, indices out of range, fewer than 3
            vertices, zero area, or a non-convex polygon; the message names the polygon.

    Example:
        >>> NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 2, 1]]).polygon_count  # clockwise is fine
        1
        >>> NavMesh([[0, 0], [1, 0], [2, 0]], [[0, 1, 2]])
        Traceback (most recent call last):
        python_core.errors.InvalidGraphError: polygon 0 is degenerate (area 0)
    """

    def __init__(
        self,
        vertices: npt.ArrayLike,
        polygons: Sequence[Sequence[int]] | npt.ArrayLike,
        *,
        sizes: npt.ArrayLike | None = None,
        up_axis: int = 1,
        merge_margin: float = 1e-6,
        area_epsilon: float = 1e-10,
        portal_samples: int = 3,
    ) -> None:
        verts = np.asarray(vertices, dtype=np.float64)
        if verts.ndim != 2 or verts.shape[1] not in (2, 3) or not np.all(np.isfinite(verts)):
            raise InvalidGraphError(f"vertices must be a finite (n, 2|3) array, got shape {verts.shape}")
        if verts.shape[1] == 3 and up_axis not in PLANE_AXES:
            raise InvalidGraphError(f"up_axis must be 0, 1 or 2, got {up_axis!r}")
        ptr, flat = flatten(polygons, sizes)
        if ptr.shape[0] < 2:
            raise InvalidGraphError("a navmesh needs at least one polygon")
        if flat.min() < 0 or flat.max() >= verts.shape[0]:
            p = int(
                np.searchsorted(ptr, np.flatnonzero((flat < 0) | (flat >= verts.shape[0]))[0], "right") - 1
            )
            raise InvalidGraphError(f"polygon {p} has a vertex index outside 0..{verts.shape[0] - 1}")
        self.dim = int(verts.shape[1])
        self.up_axis = up_axis if self.dim == 3 else -1
        self.vertices = verts
        self._xy = verts[:, list(PLANE_AXES[up_axis])] if self.dim == 3 else verts
        self.poly_ptr = ptr
        self.poly_verts = normalise(self._xy, ptr, flat, area_epsilon)
        self._corner_poly, self._next = corner_links(ptr)
        self._twin = match_edges(verts, self.poly_verts, self._next, merge_margin)
        self.neighbours = np.where(self._twin >= 0, self._corner_poly[np.maximum(self._twin, 0)], -1)
        self._samples = int(portal_samples)
        if self._samples < 1:
            raise InvalidGraphError(f"portal_samples must be >= 1, got {portal_samples}")
        self._graph, self._portal_corner = portal_graph(
            verts, self.poly_verts, self._next, self._corner_poly, self._twin, samples=self._samples
        )
        self._build_locator()

    @property
    def polygon_count(self) -> int:
        """Number of polygons."""
        return int(self.poly_ptr.shape[0] - 1)

    def polygon(self, index: int) -> I64:
        """Vertex indices of polygon ``index``, counter-clockwise in the plane frame."""
        return self.poly_verts[self.poly_ptr[index] : self.poly_ptr[index + 1]]

    # ---- location -----------------------------------------------------------------------------
    def _build_locator(self) -> None:
        """A uniform grid over the polygons' bounding boxes (CSR of polygon ids per cell)."""
        xy = self._xy[self.poly_verts]
        lo = np.minimum.reduceat(xy, self.poly_ptr[:-1], axis=0)
        hi = np.maximum.reduceat(xy, self.poly_ptr[:-1], axis=0)
        self._origin = lo.min(axis=0)
        extent = np.maximum(hi.max(axis=0) - self._origin, 1e-9)
        self._cell = float(np.sqrt(extent[0] * extent[1] / self.polygon_count)) * 1.5 or 1.0
        self._cols = int(extent[0] // self._cell) + 1
        c0 = ((lo - self._origin) // self._cell).astype(np.int64)
        c1 = ((hi - self._origin) // self._cell).astype(np.int64)
        w, h = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
        pid = np.repeat(np.arange(self.polygon_count), w * h)
        local = np.arange(pid.shape[0]) - np.repeat(np.cumsum(w * h) - w * h, w * h)
        cell = (c0[pid, 1] + local // w[pid]) * self._cols + c0[pid, 0] + local % w[pid]
        order = np.argsort(cell, kind="stable")
        self._cell_polys = pid[order]
        self._cell_ptr = np.zeros(self._cols * (int(extent[1] // self._cell) + 1) + 1, dtype=np.int64)
        np.cumsum(np.bincount(cell, minlength=self._cell_ptr.shape[0] - 1), out=self._cell_ptr[1:])
        boundary = np.flatnonzero(self._twin < 0)
        self._bnd_corner = boundary
        self._bnd_a = self.vertices[self.poly_verts[boundary]]
        self._bnd_b = self.vertices[self.poly_verts[self._next[boundary]]]

    def _contains(self, poly: int, p: F64, eps: float) -> bool:
        v = self._xy[self.polygon(poly)]
        d = np.roll(v, -1, axis=0) - v
        cross = d[:, 0] * (p[1] - v[:, 1]) - d[:, 1] * (p[0] - v[:, 0])
        return bool(np.all(cross >= -eps * np.linalg.norm(d, axis=1)))

    def locate(self, point: npt.ArrayLike, *, eps: float = 1e-9) -> int:
        """Index of a polygon containing ``point`` (within ``eps``), or -1.

        In 3D the point is projected along the up axis; of several polygons above each other the
        one whose plane is nearest in height wins. In 2D the lowest index wins.

        Example:
            >>> NavMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]).locate((0.8, 0.8))
            -1
        """
        p = self._check_point(point)
        q = self._project(p)
        cx, cy = ((q - self._origin) // self._cell).astype(np.int64)
        if not (0 <= cx < self._cols and 0 <= cy * self._cols + cx < self._cell_ptr.shape[0] - 1):
            return -1
        cell = int(cy * self._cols + cx)
        hits = [int(c) for c in self._cell_polys[self._cell_ptr[cell] : self._cell_ptr[cell + 1]]
                if self._contains(int(c), q, eps)]  # fmt: skip
        if not hits or self.dim == 2:
            return min(hits, default=-1)
        return min(hits, key=lambda c: (abs(self._height(c, q) - p[self.up_axis]), c))

    def closest_point(self, point: npt.ArrayLike) -> tuple[F64, int]:
        """The closest point on the mesh and its polygon (the point itself when inside).

        Example:
            >>> pt, poly = NavMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]).closest_point((2, 0))
            >>> pt.tolist(), poly
            ([1.0, 0.0], 0)
        """
        p = self._check_point(point)
        poly = self.locate(p)
        if poly >= 0:
            return self._lift(self._project(p), poly), poly
        ab = self._bnd_b - self._bnd_a
        t = np.clip(
            np.sum((p - self._bnd_a) * ab, axis=1) / np.maximum(np.sum(ab * ab, axis=1), 1e-300), 0, 1
        )
        proj = self._bnd_a + t[:, None] * ab
        best = int(np.argmin(np.sum((proj - p) ** 2, axis=1)))
        return proj[best], int(self._corner_poly[self._bnd_corner[best]])

    def _check_point(self, point: npt.ArrayLike) -> F64:
        p = np.asarray(point, dtype=np.float64).reshape(-1)
        if p.shape[0] != self.dim or not np.all(np.isfinite(p)):
            raise InvalidQueryError(f"point must be {self.dim} finite numbers, got {p.tolist()}")
        return p

    def _project(self, p: F64) -> F64:
        return p[list(PLANE_AXES[self.up_axis])] if self.dim == 3 else p

    def _height(self, poly: int, q: F64) -> float:
        """Height of polygon ``poly``'s plane above the plane point ``q`` (Newell normal)."""
        v = self.vertices[self.polygon(poly)]
        normal = np.cross(v - v.mean(axis=0), np.roll(v, -1, axis=0) - v.mean(axis=0)).sum(axis=0)
        i, j = PLANE_AXES[self.up_axis]
        u = self.up_axis
        if abs(normal[u]) < 1e-12:
            return float(v[:, u].mean())
        c = v.mean(axis=0)
        return float(c[u] - (normal[i] * (q[0] - c[i]) + normal[j] * (q[1] - c[j])) / normal[u])

    def _lift(self, q: F64, poly: int) -> F64:
        """A plane point back in mesh coordinates, on polygon ``poly``."""
        if self.dim == 2:
            return np.asarray(q, dtype=np.float64)
        out = np.zeros(3)
        out[list(PLANE_AXES[self.up_axis])] = q
        out[self.up_axis] = self._height(poly, q)
        return out

    # ---- search -------------------------------------------------------------------------------
    def find_path(
        self, start: npt.ArrayLike, goal: npt.ArrayLike, *, options: QueryOptions | None = None
    ) -> PathResult:
        """Shortest-looking path on the mesh: A* over portals, then the funnel.

        Args:
            start, goal: points in mesh coordinates (snapped onto the mesh when outside).
            options: heuristic (default Euclidean), allow_partial (to the reachable polygon nearest
                the goal, ending at its closest point to the goal), max_expansions.

        Returns:
            ``points`` = waypoints (start and goal after snapping included), ``nodes`` = polygon
            corridor, ``cost`` = length of the waypoint path, ``expanded`` = portals expanded.

        Raises:
            InvalidQueryError: non-finite or wrongly sized points, unknown heuristic, bad budget.

        Example:
            >>> m = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]])
            >>> m.find_path((0, 0), (5, 1)).points.tolist()  # the goal is snapped to (1, 1)
            [[0.0, 0.0], [1.0, 1.0]]
        """
        opts = options or QueryOptions()
        code = heuristic_code(opts.heuristic)
        if opts.max_expansions is not None and opts.max_expansions < 0:
            raise InvalidQueryError(f"max_expansions must be >= 0, got {opts.max_expansions}")
        ps, poly_s = self.closest_point(start)
        pg, poly_g = self.closest_point(goal)
        if poly_s == poly_g:
            return self._result(
                PathStatus.FOUND, ps, pg, np.array([poly_s]), np.zeros(0, np.int64), expanded=0
            )
        graph, corners = self._graph, self._portal_corner
        k = np.arange(self._samples)
        out = (np.flatnonzero(self._corner_poly[corners] == poly_s)[:, None] * self._samples + k).ravel()
        into = (np.flatnonzero(self.neighbours[corners] == poly_g)[:, None] * self._samples + k).ravel()
        budget = -1 if opts.max_expansions is None else opts.max_expansions
        status, best, expanded, parent, _g = astar_kernel(
            graph.indptr, graph.indices, graph.costs, graph.coords,
            out, np.linalg.norm(graph.coords[out] - ps, axis=1),
            into, np.linalg.norm(graph.coords[into] - pg, axis=1), pg, code, 1.0, budget,
        )  # fmt: skip
        if status == SEARCH_FOUND:
            portals = walk_back(parent, int(parent[graph.node_count])) // self._samples
            kind = PathStatus.FOUND
        elif opts.allow_partial and best >= 0:
            portals = walk_back(parent, best) // self._samples
            last = int(self.neighbours[corners[portals[-1]]])
            pg = self._lift(self._closest_in_polygon(last, self._project(pg)), last)
            kind = PathStatus.PARTIAL if status == SEARCH_NO_PATH else PathStatus.BUDGET_EXHAUSTED
        else:
            kind = PathStatus.NO_PATH if status == SEARCH_NO_PATH else PathStatus.BUDGET_EXHAUSTED
            return PathResult(kind, np.zeros((0, self.dim)), expanded=expanded)
        corridor = np.concatenate([[poly_s], self.neighbours[corners[portals]]]).astype(np.int64)
        return self._result(kind, ps, pg, corridor, corners[portals], expanded=expanded)

    def _closest_in_polygon(self, poly: int, q: F64) -> F64:
        if self._contains(poly, q, 0.0):
            return q
        v = self._xy[self.polygon(poly)]
        ab = np.roll(v, -1, axis=0) - v
        t = np.clip(np.sum((q - v) * ab, axis=1) / np.sum(ab * ab, axis=1), 0.0, 1.0)
        proj = v + t[:, None] * ab
        return np.asarray(proj[int(np.argmin(np.sum((proj - q) ** 2, axis=1)))], dtype=np.float64)

    def _result(
        self,
        kind: PathStatus,
        ps: F64,
        pg: F64,
        corridor: I64,
        corners: I64,
        *,
        expanded: int,
    ) -> PathResult:
        """Funnel the portals of ``corners`` (edge ``v[c] -> v[next c]`` leaves its polygon)."""
        left_v = self.poly_verts[self._next[corners]]
        right_v = self.poly_verts[corners]
        order = string_pull(self._project(ps), self._project(pg), self._xy[left_v], self._xy[right_v])
        table = np.vstack([ps, pg, self.vertices[left_v], self.vertices[right_v]])
        points = table[order]
        cost = float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())
        return PathResult(kind, points, corridor, cost, expanded)
