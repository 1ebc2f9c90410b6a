"""The graph the navmesh's corridor search runs on: points on portals, and the ends of links.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    graph = mesh.search_graph
    assert graph.node_count == 2 * 3  # one shared edge, both directions, three points each

A node is a place where the path passes from one polygon (``src``) into another (``dst``): one of
``samples`` evenly spaced points of a portal (an edge shared by two polygons, per direction), the
start of a link (``dst = -1``: the link itself) or the end of a link (``src = -1``). An edge
``u -> v`` joins nodes with ``dst[u] == src[v]``: it crosses polygon ``dst[u]`` in a straight line,
at that polygon's travel cost, plus its enter cost when ``u`` came from another region; the edge from
a link's start to its end costs the link's cost. Layers are checked per query on ``layers[v]`` (the
mask of the polygon or link a node leads into), so changing them needs no rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from python_core._types import F64, I64
from python_core.navmesh.graph_kernel import group_nodes, search_edges, writable

__all__ = ["LinkEnds", "SearchGraph", "build_search_graph", "group_by", "portal_points"]


@dataclass(slots=True, eq=False)
class SearchGraph:
    """CSR adjacency plus what each node is (see the module docstring).

    Attributes:
        indptr, indices, costs: CSR edges (costs include travel and enter costs).
        pos: ``(n, d)`` node positions in mesh coordinates.
        src, dst: polygon left and polygon entered (-1: a link).
        left, right: for portal nodes, the portal's vertex ids as seen walking through it
            (``-1`` for link nodes).
        link: the link direction a link node belongs to (-1 for portal nodes).
        layers: per node, the mask a query must share to use it (0: never, e.g. a disabled link).
        out_ptr, out_nodes: nodes leaving each polygon (``src == p``), CSR by polygon.
        in_ptr, in_nodes: nodes entering each polygon (``dst == p``), CSR by polygon.
        enter: per node, the enter cost paid on arriving in ``dst`` (0 inside one region).
        portal_count: portal nodes come first: ``node // samples`` is the portal for those.
        portal_corner: per portal, the mesh corner it is the edge of (-1: a portal gone since,
            whose nodes lead nowhere; see :mod:`~python_core.navmesh.patch`).
    """

    indptr: I64
    indices: I64
    costs: F64
    pos: F64
    src: I64
    dst: I64
    left: I64
    right: I64
    link: I64
    layers: I64
    out_ptr: I64
    out_nodes: I64
    in_ptr: I64
    in_nodes: I64
    enter: F64
    portal_count: int
    portal_corner: I64 = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.indptr.shape[0] - 1)


def group_by(keys: I64, count: int) -> tuple[I64, I64]:
    """``(ptr, items)``: the indices ``i`` with ``keys[i] == k`` are ``items[ptr[k]:ptr[k+1]]``
    (negative keys are left out)."""
    return group_nodes(writable(keys), int(count))


@dataclass(frozen=True, slots=True, eq=False)
class LinkEnds:
    """Connected link directions: ``start``/``end`` snapped points, their polygons, cost, mask."""

    start: F64
    end: F64
    poly_a: I64
    poly_b: I64
    cost: F64
    layers: I64

    @property
    def count(self) -> int:
        """Number of link directions."""
        return int(self.poly_a.shape[0])


def build_search_graph(  # noqa: PLR0917 - the mesh's arrays, built once
    vertices: F64,
    flat: I64,
    nxt: I64,
    corner_poly: I64,
    twin: I64,
    poly_region: I64,
    poly_travel: F64,
    poly_enter: F64,
    poly_layers: I64,
    links: LinkEnds,
    *,
    samples: int,
) -> SearchGraph:
    """The search graph of a conformal mesh (twins paired) and its connected link directions."""
    polys = int(poly_region.shape[0])
    dim = vertices.shape[1]
    corners = np.flatnonzero(twin >= 0)
    k = corners.shape[0]
    m = links.count
    pos = np.vstack([portal_points(vertices, flat, nxt, corners, samples), links.start.reshape(-1, dim),
                     links.end.reshape(-1, dim)])  # fmt: skip
    src = np.concatenate([np.repeat(corner_poly[corners], samples), links.poly_a, np.full(m, -1, np.int64)])
    dst = np.concatenate(
        [np.repeat(corner_poly[twin[corners]], samples), np.full(m, -1, np.int64), links.poly_b]
    )
    # Walking from src into dst through the edge v[c] -> v[next c] of src (counter-clockwise),
    # the portal's left end is v[next c] and its right end v[c].
    left = np.concatenate([np.repeat(flat[nxt[corners]], samples), np.full(2 * m, -1, np.int64)])
    right = np.concatenate([np.repeat(flat[corners], samples), np.full(2 * m, -1, np.int64)])
    link = np.concatenate([np.full(k * samples, -1, np.int64), np.arange(m), np.arange(m)])
    enter = _enter_costs(src, dst, poly_region, poly_enter)
    out_ptr, out_nodes = group_by(src, polys)
    in_ptr, in_nodes = group_by(dst, polys)
    c = np.ascontiguousarray
    indptr, indices, costs = search_edges(
        c(pos), c(dst), c(left), c(right), c(out_ptr), c(out_nodes), c(poly_travel, dtype=np.float64),
        c(enter), c(links.cost, dtype=np.float64), k * samples,
    )  # fmt: skip
    layers = np.where(dst >= 0, poly_layers[np.maximum(dst, 0)], 0)
    layers[k * samples : k * samples + m] = links.layers
    return SearchGraph(
        indptr, indices, costs, pos, src, dst, left, right, link, layers.astype(np.int64, copy=False),
        out_ptr, out_nodes, in_ptr, in_nodes, enter, k * samples, corners.astype(np.int64),
    )  # fmt: skip


def portal_points(vertices: F64, flat: I64, nxt: I64, corners: I64, samples: int) -> F64:
    """``samples`` evenly spaced points of each portal corner's edge (one: its midpoint)."""
    ts = np.array([0.5]) if samples == 1 else np.linspace(0.0, 1.0, samples)
    pa, pb = vertices[flat[corners]], vertices[flat[nxt[corners]]]
    return (pa[:, None, :] + ts[None, :, None] * (pb - pa)[:, None, :]).reshape(-1, vertices.shape[1])


def _enter_costs(src: I64, dst: I64, poly_region: I64, poly_enter: F64) -> F64:
    """Per node, the enter cost of ``dst`` when the node comes from another region (a link's
    end counts from the link's start polygon, ``src`` of the link's start node)."""
    n = src.shape[0]
    m = int(np.count_nonzero(src < 0))
    came = np.concatenate([np.arange(n - 2 * m), np.arange(n - m, n)])  # the nodes entering a polygon
    origin = np.concatenate([src[: n - 2 * m], src[n - 2 * m : n - m]])  # portals', then links' starts
    into = dst[came]
    changed = poly_region[origin] != poly_region[into]
    enter = np.zeros(n)
    enter[came[changed]] = poly_enter[into[changed]]
    return enter
