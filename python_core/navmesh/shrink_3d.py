"""A 3D navigation mesh shrunk for an agent's radius, in the plane across its up axis, as the engine
bakes ``agent_radius`` into a ``NavigationMesh``.

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.navmesh.shrink_3d import shrunk_pieces_3d
    floor = NavMesh([[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 1, 2, 3]])
    vertices, flat, sizes, source = shrunk_pieces_3d(floor, 1.0)
    assert vertices[:, 1].max() == 0.0 and source.tolist() == [0]

Each connected part of the mesh (polygons joined by shared edges) is shrunk on its own, so floors
above each other that do not touch keep their own walls; a part whose polygons overlap in the
plane (a bridge over a floor it is joined to) is refused. Every polygon keeps what lies farther
than the radius from its part's boundary (the polygon less the round bands of the boundary edges
near it, computed locally), split into convex pieces lifted onto the polygon's own plane, so every
piece stays on the surface it came from; a polygon far from every wall is kept as it is.
"""

from __future__ import annotations

import numpy as np
import shapely

from python_core._types import F64, I64
from python_core.errors import UnsupportedOperationError
from python_core.navmesh.build import PLANE_AXES, lift_onto
from python_core.navmesh.carve import Shapes, convex_pieces, polygons_of
from python_core.navmesh.mesh import NavMesh

__all__ = ["parts", "shrunk_pieces_3d"]


def parts(mesh: NavMesh) -> I64:
    """Per polygon, the smallest polygon id of its connected part (joined through shared edges)."""
    owner = np.repeat(np.arange(mesh.polygon_count), np.diff(mesh.poly_ptr))
    a, b = owner[mesh.neighbours >= 0], mesh.neighbours[mesh.neighbours >= 0]
    label = np.arange(mesh.polygon_count)
    while True:  # spread the smallest label along edges until nothing changes
        before = label.copy()
        np.minimum.at(label, a, label[b])
        np.minimum.at(label, b, label[a])
        label = label[label]
        if np.array_equal(label, before):
            return np.asarray(label, dtype=np.int64)


def _boundaries(polygons: Shapes, part: I64, closing: float) -> tuple[Shapes, I64]:
    """The boundary edges of every part's union (gaps up to ``closing`` closed), and their part."""
    lines: list[Shapes] = []
    owners: list[I64] = []
    for label in np.unique(part):
        members = polygons[part == label]
        area = shapely.union_all(members)
        total = float(np.sum(shapely.area(members)))
        if area.area < total * (1.0 - 1e-7):
            raise UnsupportedOperationError(
                f"the mesh part of polygon {label} lies over itself in the plane (a bridge over a floor "
                "it joins): an agent radius cannot shrink it; bake the mesh with the engine's agent_radius"
            )
        if closing > 0.0:
            area = area.buffer(closing, join_style="mitre").buffer(-closing, join_style="mitre")
        for ring in shapely.get_parts(area.boundary):
            c = shapely.get_coordinates(ring)
            lines.append(np.asarray(shapely.linestrings(np.stack([c[:-1], c[1:]], axis=1))))
            owners.append(np.full(c.shape[0] - 1, label, dtype=np.int64))
    if not lines:
        return np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
    return np.concatenate(lines), np.concatenate(owners)


def shrunk_pieces_3d(
    mesh: NavMesh, radius: float, *, arc_segments: int = 4, min_area: float = 1e-10
) -> tuple[F64, I64, I64, I64]:
    """``(vertices, flat, sizes, source)``: the convex pieces of ``mesh`` (3D) shrunk by ``radius``
    (band edges at ``radius / cos(pi / (4 * arc_segments))``, so their arcs stay outside the
    radius), each with its original polygon.

    Raises:
        UnsupportedOperationError: a connected part overlapping itself in the plane.
    """
    axes = list(PLANE_AXES[mesh.up_axis])
    polygons = polygons_of(np.ascontiguousarray(mesh.vertices[:, axes]), mesh.poly_ptr, mesh.poly_verts)
    part = parts(mesh)
    closing = mesh.edge_margin / 2.0 * (1.0 + 1e-9) if np.unique(mesh.region).shape[0] > 1 else 0.0
    lines, owner = _boundaries(polygons, part, closing)
    reach = radius / np.cos(np.pi / (4 * arc_segments))
    near = shapely.STRtree(lines).query(polygons, predicate="dwithin", distance=reach)
    near = near[:, owner[near[1]] == part[near[0]]]  # only the walls of the polygon's own part
    order = np.argsort(near[0], kind="stable")
    near = near[:, order]
    cut = np.unique(near[0])
    starts = np.searchsorted(near[0], cut)
    ends = np.searchsorted(near[0], cut, side="right")
    verts: list[F64] = [mesh.vertices]  # polygons far from every wall keep their own vertices
    flats: list[I64] = []
    sizes: list[I64] = []
    sources: list[I64] = []
    base = mesh.vertices.shape[0]
    whole = np.setdiff1d(np.arange(mesh.polygon_count), cut)
    for p in whole.tolist():
        flats.append(mesh.polygon(p))
        sizes.append(np.array([flats[-1].shape[0]]))
        sources.append(np.array([p]))
    for p, lo, hi in zip(cut.tolist(), starts.tolist(), ends.tolist(), strict=True):
        band = shapely.buffer(shapely.multilinestrings(lines[near[1][lo:hi]]), reach, quad_segs=arc_segments)
        xy, ptr, flat = convex_pieces(polygons[p].difference(band), min_area=min_area)
        if ptr.shape[0] < 2:
            continue
        verts.append(lift_onto(mesh.vertices[mesh.polygon(p)], mesh.up_axis, xy))
        flats.append(flat + base)
        sizes.append(np.diff(ptr))
        sources.append(np.full(ptr.shape[0] - 1, p, dtype=np.int64))
        base += xy.shape[0]
    if not sizes:
        empty = np.zeros(0, dtype=np.int64)
        return mesh.vertices, empty, empty, empty
    return np.vstack(verts), np.concatenate(flats), np.concatenate(sizes), np.concatenate(sources)
