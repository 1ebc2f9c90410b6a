"""A navigation mesh shrunk for an agent's radius, as the engine's ``agent_radius`` bakes it: the
walkable area less a band of the radius along every wall, cached per radius.

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.navmesh.shrink import shrink_mesh
    room = NavMesh([[0, 0], [10, 0], [10, 4], [0, 4]], [[0, 1, 2, 3]])
    shrunk = shrink_mesh(room, 1.0)
    assert shrunk.mesh is not None and abs(shrunk.mesh.closest_point((0, 0))[0][0] - 1.0) < 0.01

How: the mesh's polygons (in the plane) are united, gaps between regions that ``edge_margin``
joins are closed, and the union is eroded by the radius (shapely's negative buffer, round at the
corners of obstacles). Each group of polygons that share a region, layers and costs keeps its part
of the eroded area, split into convex polygons (:mod:`~python_core.navmesh.carve`), so layers and
area costs stay where they were. Links keep their ends, moved to the nearest point a unit of that
radius can stand on, or are dropped (disabled, with the reason) when that point is farther than
``link_radius + radius``. Every point of the shrunk mesh is at least ``radius`` from every wall:
exactly that along straight walls, and at most 2 % more around an obstacle's corner, whose arc
is a polygon with its edges outside the circle of the radius. 3D meshes are shrunk in the plane
across their up axis, part by part (:mod:`~python_core.navmesh.shrink_3d`).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import shapely

from python_core._types import F64, I64
from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.navmesh.carve import Shapes, convex_pieces, polygons_of
from python_core.navmesh.cut import loaded_of, obstacles_of
from python_core.navmesh.links import NavLink
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.shrink_3d import shrunk_pieces_3d
from python_core.obstacles import ObstacleShape
from python_core.result import PathResult

__all__ = ["ARC_SEGMENTS", "ShrinkCache", "ShrunkMesh", "check_radius", "grown", "shrink_mesh"]

ARC_SEGMENTS = 4
"""Segments per quarter circle where the shrunk area rounds an obstacle's corner (pixel-stepped
walls have many corners: more segments would multiply the shrunk mesh's polygons)."""

_OUTSIDE = 1.0 / math.cos(math.pi / (4 * ARC_SEGMENTS))
"""The arcs' vertices sit this much farther than the radius, so their chords stay outside it."""

_MIN_AREA = 1e-10
"""Pieces of at most this area are slivers of rounding (a mesh refuses them as degenerate)."""


def check_radius(radius: object, what: str = "radius") -> float:
    """``radius`` as a finite float > 0, or :class:`InvalidQueryError` naming ``what``.

    Example:
        >>> check_radius(0)
        Traceback (most recent call last):
        python_core.errors.InvalidQueryError: radius must be a finite number > 0, got 0
    """
    if isinstance(radius, bool) or not isinstance(radius, int | float | np.number):
        raise InvalidQueryError(f"{what} must be a finite number > 0, got {radius!r:.40}")
    value = float(radius)
    if not math.isfinite(value) or value <= 0.0:
        raise InvalidQueryError(f"{what} must be a finite number > 0, got {radius!r:.40}")
    return value


@dataclass(frozen=True, slots=True, eq=False)
class ShrunkMesh:
    """A mesh shrunk for one radius.

    Attributes:
        radius: the agent radius.
        mesh: the shrunk mesh (same regions, layers, costs and links, in the same order), or None
            when no point of the mesh has room for the radius.
        source: per polygon of ``mesh`` as shrunk (before obstacle cuts: ``mesh.polygon_source``
            leads there), the polygon of the original mesh it lies in.
        dropped_links: ``(link index, why)`` for each link whose ends have no room: it stays in
            ``mesh.links`` (so indices match), disabled.
    """

    radius: float
    mesh: NavMesh | None
    source: I64
    dropped_links: tuple[tuple[int, str], ...] = ()

    def original(self, result: PathResult) -> PathResult:
        """``result`` of a search on :attr:`mesh` with its polygon corridor in the original mesh's
        polygon ids (consecutive repeats dropped)."""
        if result.nodes.shape[0] == 0 or self.mesh is None:
            return result
        nodes = self.source[self.mesh.polygon_source[result.nodes]]  # pieces of obstacle cuts too
        keep = np.concatenate([[True], nodes[1:] != nodes[:-1]])
        return replace(result, nodes=np.ascontiguousarray(nodes[keep]))


def _union(polygons: Shapes) -> shapely.Geometry:
    """The polygons' union: as a coverage (polygons meeting edge to edge, ten times faster) when
    that gives a valid area of the polygons' total, else by the general overlay."""
    total = float(np.sum(shapely.area(polygons)))
    try:
        area = shapely.coverage_union_all(polygons)
    except shapely.errors.GEOSException:
        area = None
    if area is not None and area.is_valid and abs(area.area - total) <= 1e-9 * max(total, 1.0):
        return area
    return shapely.union_all(polygons)


def _eroded(mesh: NavMesh, polygons: Shapes, radius: float) -> shapely.Geometry:
    """The union of the polygons, its gaps within ``edge_margin`` closed, eroded by ``radius``."""
    area = _union(polygons)
    if mesh.edge_margin > 0.0 and np.unique(mesh.region).shape[0] > 1:
        half = mesh.edge_margin / 2.0 * (1.0 + 1e-9)
        area = area.buffer(half, join_style="mitre").buffer(-half, join_style="mitre")
    # Both erosions keep every point at least ``radius`` from the walls: the round one (arcs
    # outside the circle) is close around obstacle corners, the mitred one exact along straight
    # walls; their union is both.
    rounded = area.buffer(-radius * _OUTSIDE, quad_segs=ARC_SEGMENTS)
    return shapely.union(rounded, area.buffer(-radius, join_style="mitre"))


def _groups(mesh: NavMesh) -> tuple[I64, int]:
    """Per polygon, its group (polygons of one region with equal layers and costs); group count."""
    keys = np.stack(
        [mesh.region.astype(np.float64), mesh.layers.astype(np.float64), mesh.enter_costs, mesh.travel_costs],
        axis=1,
    )
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.reshape(-1).astype(np.int64)
    return group, int(group.max()) + 1


def _sources(polygons: Shapes, centre: F64, ids: I64) -> I64:
    """Per point, the id of a polygon holding it (of the nearest one, for points rounding left out)."""
    tree = shapely.STRtree(polygons)
    points = shapely.points(centre)
    hit = tree.query(points, predicate="intersects")
    out = np.full(centre.shape[0], -1, dtype=np.int64)
    out[hit[0][::-1]] = ids[hit[1][::-1]]  # reversed: of several holders, the first hit wins
    lost = np.flatnonzero(out < 0)
    if lost.size:
        nearest = tree.query_nearest(points[lost], all_matches=False)
        out[lost[nearest[0]]] = ids[nearest[1]]
    return out


def _pieces(polygons: Shapes, eroded: shapely.Geometry, group: I64, groups: int) -> tuple[F64, I64, I64, I64]:
    """Convex pieces of each group's share of ``eroded`` and, per piece, its original polygon."""
    xys: list[F64] = []
    flats: list[I64] = []
    sizes: list[I64] = []
    sources: list[I64] = []
    base = 0
    for g in range(groups):
        members = np.flatnonzero(group == g)
        share = eroded if groups == 1 else shapely.intersection(shapely.union_all(polygons[members]), eroded)
        xy, ptr, flat = convex_pieces(share, min_area=_MIN_AREA)
        if ptr.shape[0] < 2:
            continue
        count = np.diff(ptr)
        centre = np.add.reduceat(xy[flat], ptr[:-1], axis=0) / count[:, None]
        source = _sources(polygons[members], centre, members)
        xys.append(xy)
        flats.append(flat + base)
        sizes.append(count)
        sources.append(source)
        base += xy.shape[0]
    if not xys:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2)), empty, empty, empty
    return np.vstack(xys), np.concatenate(flats), np.concatenate(sizes), np.concatenate(sources)


def _links(mesh: NavMesh, bare: NavMesh, radius: float) -> tuple[list[NavLink], list[tuple[int, str]]]:
    """Each link with its ends moved to their closest points of ``bare`` (the shrunk mesh without
    links), or disabled when an end is farther than ``link_radius + radius`` from it."""
    out: list[NavLink] = []
    dropped: list[tuple[int, str]] = []
    reach = mesh.link_radius + radius * _OUTSIDE
    for index, link in enumerate(mesh.links):
        ends = []
        for end in (link.start, link.end):
            near = bare.closest_point(end)[0]
            ends.append((near, float(np.linalg.norm(near - end))))
        far = [(pt, d) for pt, d in ends if d > reach]
        if far:
            where = ", ".join(f"{pt.tolist()} is {d:.3g} away" for pt, d in far)
            dropped.append((index, f"link {index}: no room for radius {radius:g} within "
                                   f"link_radius + radius = {reach:.3g} of its end ({where})"))  # fmt: skip
            out.append(replace(link, enabled=False))
        else:
            out.append(replace(link, start=ends[0][0], end=ends[1][0]))
    return out, dropped


def _pieces_2d(mesh: NavMesh, radius: float) -> tuple[F64, I64, I64, I64]:
    polygons = polygons_of(mesh.vertices, mesh.poly_ptr, mesh.poly_verts)
    eroded = _eroded(mesh, polygons, radius)
    if eroded.is_empty:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2)), empty, empty, empty
    group, groups = _groups(mesh)
    return _pieces(polygons, eroded, group, groups)


def shrink_mesh(mesh: NavMesh, radius: float) -> ShrunkMesh:
    """``mesh`` shrunk for an agent of ``radius`` (see the module docstring).

    Raises:
        InvalidQueryError: a radius that is not a finite number > 0.
        UnsupportedOperationError: a 3D mesh with a connected part over itself in the plane.

    Example:
        >>> corridor = NavMesh([[0, 0], [10, 0], [10, 1], [0, 1]], [[0, 1, 2, 3]])
        >>> shrink_mesh(corridor, 0.4).mesh.polygon_count, shrink_mesh(corridor, 0.6).mesh is None
        (1, True)
    """
    radius = check_radius(radius)
    if mesh.dim == 3:
        pieces = shrunk_pieces_3d(mesh, radius, arc_segments=ARC_SEGMENTS, min_area=_MIN_AREA)
    else:
        pieces = _pieces_2d(mesh, radius)
    vertices, flat, sizes, source = pieces
    if sizes.shape[0] == 0:
        return ShrunkMesh(radius, None, np.zeros(0, dtype=np.int64))

    def build(links: list[NavLink]) -> NavMesh:
        return NavMesh(
            vertices, flat, sizes=sizes, up_axis=max(mesh.up_axis, 0), merge_margin=mesh.merge_margin,
            area_epsilon=_MIN_AREA / 2, portal_samples=mesh.portal_samples, regions=mesh.region[source],
            edge_margin=mesh.edge_margin, layers=mesh.layers[source], enter_costs=mesh.enter_costs[source],
            travel_costs=mesh.travel_costs[source], links=links, link_radius=mesh.link_radius,
        )  # fmt: skip

    bare = build([])
    if not mesh.links:
        return ShrunkMesh(radius, bare, source)
    links, dropped = _links(mesh, bare, radius)
    return ShrunkMesh(radius, build(links), source, tuple(dropped))


def grown(shape: ObstacleShape, radius: float) -> ObstacleShape:
    """``shape`` grown by ``radius`` as the shrunk area is eroded: exactly along its sides, round
    at its corners with chords outside the radius (a path around it keeps ``radius`` away)."""
    geometry = shape.geometry()
    mitre = geometry.buffer(radius, join_style="mitre")
    reach = radius * _OUTSIDE
    while True:
        around = shapely.intersection(geometry.buffer(reach, quad_segs=ARC_SEGMENTS), mitre)
        short = around.exterior.distance(geometry)
        if short >= radius * (1.0 - 1e-9):
            return ObstacleShape(shapely.get_coordinates(around.exterior), shape.base, shape.height)
        reach *= radius / short * (1.0 + 1e-9)  # an acute corner's arc cut in longer chords


def _with_obstacles(shrunk: ShrunkMesh, obstacles: Mapping[int, ObstacleShape]) -> ShrunkMesh:
    """``shrunk`` cut by ``obstacles`` grown by its radius (no mesh when they cover it)."""
    if shrunk.mesh is None or not obstacles:
        return shrunk
    try:
        shrunk.mesh.update_obstacles({k: grown(s, shrunk.radius) for k, s in obstacles.items()})
    except InvalidGraphError:
        return ShrunkMesh(shrunk.radius, None, np.zeros(0, dtype=np.int64))
    return shrunk


class ShrinkCache:
    """Shrunk meshes of one mesh by radius, the ``capacity`` most recently used kept (LRU).

    Safe from several threads: a radius missing is shrunk once, by the first thread that asks
    (others asking for it wait; other radii are not held up). Make a new cache when the mesh
    changes.

    Example:
        >>> cache = ShrinkCache(NavMesh([[0, 0], [4, 0], [4, 4], [0, 4]], [[0, 1, 2, 3]]))
        >>> cache.get(1.0) is cache.get(1.0), cache.hits, cache.misses
        (True, 1, 1)
    """

    def __init__(self, mesh: NavMesh, capacity: int = 4) -> None:
        if capacity < 1:
            raise InvalidQueryError(f"capacity must be >= 1, got {capacity}")
        self.mesh = mesh
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._shrunk: OrderedDict[float, ShrunkMesh] = OrderedDict()
        self._building: dict[float, threading.Lock] = {}  # one lock per radius being shrunk

    def cached(self, radius: float) -> ShrunkMesh | None:
        """The shrunk mesh of ``radius`` when cached (marked used), else None; never shrinks."""
        with self._lock:
            found = self._shrunk.get(float(radius))
            if found is not None:
                self._shrunk.move_to_end(float(radius))
            return found

    def get(self, radius: float) -> ShrunkMesh:
        """The shrunk mesh of ``radius``, shrunk now if not cached (see :func:`shrink_mesh`)."""
        radius = check_radius(radius)
        found = self.cached(radius)
        if found is None:
            with self._lock:
                building = self._building.setdefault(radius, threading.Lock())
            with building:
                found = self.cached(radius)  # shrunk by another thread while this one waited
                if found is None:
                    return self._shrink(radius)
        with self._lock:
            self.hits += 1
        return found

    def _shrink(self, radius: float) -> ShrunkMesh:
        # the loaded mesh, shrunk, then cut by the obstacles grown by the radius: moving one
        # later re-cuts the shrunk mesh locally (erode(A - O) = erode(A) - grow(O))
        made = _with_obstacles(shrink_mesh(loaded_of(self.mesh), radius), obstacles_of(self.mesh))
        with self._lock:
            self.misses += 1
            self._shrunk[radius] = made
            self._building.pop(radius, None)
            while len(self._shrunk) > self.capacity:
                self._shrunk.popitem(last=False)
            return made

    def update_obstacles(self, set_: Mapping[int, ObstacleShape], remove: Iterable[int], clear: bool) -> None:
        """The change the mesh just took (checked there), made to every cached shrunk mesh with the
        obstacles grown by its radius; one the obstacles now cover entirely is dropped (shrunk
        again when asked for)."""
        with self._lock:
            for radius, shrunk in list(self._shrunk.items()):
                if shrunk.mesh is None:
                    del self._shrunk[radius]
                    continue
                try:
                    shrunk.mesh.update_obstacles(
                        {k: grown(s, radius) for k, s in set_.items()}, remove, clear
                    )
                except InvalidGraphError:
                    del self._shrunk[radius]

    @property
    def radii(self) -> list[float]:
        """The radii cached, least recently used first."""
        with self._lock:
            return list(self._shrunk)

    def entries(self) -> list[ShrunkMesh]:
        """The shrunk meshes cached (for changes made in place to every one of them)."""
        with self._lock:
            return list(self._shrunk.values())
