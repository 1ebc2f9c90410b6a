"""Independent checks for navmesh paths: segment-in-mesh and a visibility-graph optimum.

Written with numpy and scipy only from the mesh's polygons (no search code of python_core): a
segment lies in the mesh when every piece between its contacts with the boundary has its middle
inside some usable polygon; the any-angle optimum is Dijkstra over the visibility graph of the
mesh's vertices, the start and the goal (shortest paths in a polygonal domain bend only there).
"""

from __future__ import annotations

import heapq

import numpy as np

from python_core.navmesh import NavMesh

TOL = 1e-7


class MeshOracle:
    """The polygons of a 2D mesh (optionally only the ``usable`` ones) as arrays for the checks."""

    def __init__(self, mesh: NavMesh, usable: np.ndarray | None = None) -> None:
        self.mesh = mesh
        self.usable = np.ones(mesh.polygon_count, dtype=bool) if usable is None else usable
        self.xy = mesh.vertices[:, :2]
        polys = [mesh.polygon(p) for p in range(mesh.polygon_count) if self.usable[p]]
        # Boundary: usable polygons' edges whose neighbour is missing or unusable.
        a, b = [], []
        for p in range(mesh.polygon_count):
            if not self.usable[p]:
                continue
            v = mesh.polygon(p)
            for i in range(len(v)):
                q = int(mesh.neighbours[mesh.poly_ptr[p] + i])
                if q < 0 or not self.usable[q]:
                    a.append(v[i])
                    b.append(v[(i + 1) % len(v)])
        self.ea, self.eb = self.xy[np.array(a, dtype=int)], self.xy[np.array(b, dtype=int)]
        size = max(len(v) for v in polys)
        # Polygons padded to one size by repeating the last vertex (a zero-length edge tests true).
        self.pv = np.array([self.xy[np.concatenate([v, np.repeat(v[-1:], size - len(v))])] for v in polys])
        self.brute = len(polys) <= 3000

    def inside(self, pts: np.ndarray) -> np.ndarray:
        """Per point: inside (or on the border of) some usable polygon."""
        if not self.brute:
            out = np.zeros(len(pts), dtype=bool)
            for i, p in enumerate(pts):
                poly = self.mesh.locate(p, eps=1e-7)
                out[i] = poly >= 0 and bool(self.usable[poly])
            return out
        a = self.pv[None, :, :, :]
        b = np.roll(self.pv, -1, axis=1)[None, :, :, :]
        p = pts[:, None, None, :]
        d = b - a
        cross = d[..., 0] * (p[..., 1] - a[..., 1]) - d[..., 1] * (p[..., 0] - a[..., 0])
        scale = np.maximum(np.hypot(d[..., 0], d[..., 1]), 1.0)
        return np.asarray(np.any(np.all(cross >= -TOL * scale, axis=2), axis=1), dtype=bool)

    def segment_inside(self, s: np.ndarray, t: np.ndarray) -> bool:
        """True when the segment ``s``-``t`` stays in the mesh (touching the boundary is fine)."""
        d = t - s
        length = float(np.hypot(*d))
        if length < 1e-12:
            return bool(self.inside(s[None, :])[0])
        e = self.eb - self.ea
        den = d[0] * e[:, 1] - d[1] * e[:, 0]
        w = self.ea - s
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (w[:, 0] * e[:, 1] - w[:, 1] * e[:, 0]) / den  # along the segment
            v = (w[:, 0] * d[1] - w[:, 1] * d[0]) / den  # along the edge
        hit = (np.abs(den) > 1e-12) & (u > -TOL) & (u < 1 + TOL) & (v > -TOL) & (v < 1 + TOL)
        cuts = [u[hit]]
        # Edges along the segment's line: their ends split it too.
        par = np.abs(den) <= 1e-12
        for ends in (self.ea[par], self.eb[par]):
            along = ((ends - s) @ d) / length**2
            off = np.abs((ends[:, 0] - s[0]) * d[1] - (ends[:, 1] - s[1]) * d[0]) / length
            cuts.append(along[off < TOL])
        ts = np.unique(np.clip(np.concatenate([[0.0, 1.0], *cuts]), 0.0, 1.0))
        mids = (ts[:-1] + ts[1:]) / 2
        return bool(np.all(self.inside(s + mids[:, None] * d)))

    def path_inside(self, points: np.ndarray) -> bool:
        """Every segment of the polyline stays in the mesh."""
        pts = np.asarray(points, dtype=float)[:, :2]
        return all(self.segment_inside(pts[i], pts[i + 1]) for i in range(len(pts) - 1))


class VisibilityOptimum:
    """Exact any-angle shortest path lengths by Dijkstra over the visibility graph."""

    def __init__(self, oracle: MeshOracle) -> None:
        self.oracle = oracle
        self.nodes = oracle.xy
        n = len(self.nodes)
        self.adj: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                if oracle.segment_inside(self.nodes[i], self.nodes[j]):
                    w = float(np.hypot(*(self.nodes[j] - self.nodes[i])))
                    self.adj[i].append((j, w))
                    self.adj[j].append((i, w))

    def length(self, start: np.ndarray, goal: np.ndarray) -> float:
        """The shortest length from ``start`` to ``goal`` (inf when unreachable)."""
        if self.oracle.segment_inside(start, goal):
            return float(np.hypot(*(goal - start)))
        n = len(self.nodes)
        dist = np.full(n, np.inf)
        heap: list[tuple[float, int]] = []
        for i in range(n):
            if self.oracle.segment_inside(start, self.nodes[i]):
                dist[i] = float(np.hypot(*(self.nodes[i] - start)))
                heap.append((dist[i], i))
        heapq.heapify(heap)
        to_goal = np.array(
            [np.hypot(*(goal - self.nodes[i])) if self.oracle.segment_inside(self.nodes[i], goal) else np.inf
             for i in range(n)]
        )  # fmt: skip
        best = np.inf
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u] or d >= best:
                continue
            best = min(best, d + to_goal[u])
            for v, w in self.adj[u]:
                if d + w < dist[v]:
                    dist[v] = d + w
                    heapq.heappush(heap, (d + w, v))
        return float(best)
