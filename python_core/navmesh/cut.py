"""Obstacles cut into a navigation mesh, locally: only the loaded polygons an obstacle touches are
re-cut, from their loaded (un-cut) shape, and the mesh is rebuilt around the pieces.

Quick start::

    from python_core.navmesh import NavMesh
    from python_core.obstacles import ObstacleShape
    room = NavMesh([[0, 0], [10, 0], [10, 4], [0, 4]], [[0, 1, 2, 3]])
    room.update_obstacles({7: ObstacleShape.polygon([(4, -1), (6, -1), (6, 3), (4, 3)])})
    assert room.find_path((1, 1), (9, 1)).cost > 8.0  # round the crate's top, through the gap

The walkable area is the loaded polygons minus the union of the obstacles' outlines (in the ground
plane; in 3D only polygons whose elevation range meets an obstacle's ``[base, base + height]``).
An update finds the loaded polygons whose bounding box meets a changed obstacle's old or new
footprint (an R-tree of the loaded polygons), re-cuts each of those alone (shapely's difference,
then convex pieces by :func:`~python_core.navmesh.carve.convex_pieces_many`) and keeps every other
polygon's cut as it was. Pieces keep their polygon's region, layers, costs and plane, and the
loaded polygon's vertices where they coincide, so the stitching (:mod:`~python_core.navmesh.stitch`)
joins them to their neighbours exactly. A link with an end inside an obstacle is unused while it
stands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import shapely

from python_core._types import F64, I64, B
from python_core.errors import InvalidGraphError
from python_core.navmesh.build import PLANE_AXES, lift_onto
from python_core.navmesh.carve import Shapes, convex_pieces_many, polygons_of
from python_core.navmesh.links import NavLink
from python_core.navmesh.local_stitch import restitch
from python_core.navmesh.patch import Reuse
from python_core.navmesh.stitch import Conformed
from python_core.obstacles import ObstacleShape

__all__ = ["CutMesh", "Cuts", "Piece", "apply_obstacles", "checked_changes", "loaded_of", "obstacles_of"]


class CutMesh(Protocol):
    """What the cuts read of a mesh: :class:`~python_core.navmesh.mesh.NavMesh`, named by this
    Protocol so that the mesh can import this module without an import loop."""

    dim: int
    up_axis: int
    vertices: F64
    poly_ptr: I64
    poly_verts: I64
    region: I64
    layers: I64
    enter_costs: F64
    travel_costs: F64
    links: list[NavLink]
    merge_margin: float
    edge_margin: float
    area_epsilon: float
    portal_samples: int
    link_radius: float
    _twin: I64
    _cuts: Cuts[Any] | None

    @property
    def polygon_count(self) -> int: ...

    def polygon(self, index: int) -> I64: ...


M = TypeVar("M", bound=CutMesh)
M_co = TypeVar("M_co", bound=CutMesh, covariant=True)


class MeshMaker(Protocol[M_co]):
    """The mesh class: builds the cut mesh from stitched pieces (NavMesh's own constructor)."""

    def __call__(
        self, vertices: F64, polygons: I64, *, sizes: I64, up_axis: int, merge_margin: float,
        area_epsilon: float, portal_samples: int, regions: I64, edge_margin: float, layers: I64,
        enter_costs: F64, travel_costs: F64, links: list[NavLink], link_radius: float,
        stitched: Conformed, reuse: Reuse,
    ) -> M_co: ...  # fmt: skip


_PAD = 1e-9
"""Boxes are grown by this share of their size (plus this much), so a polygon an obstacle touches
across rounding is still re-cut."""


@dataclass(frozen=True, slots=True, eq=False)
class Piece:
    """A loaded polygon's cut: its convex pieces (CSR ``ptr``/``flat``) over ``vertices``, where
    ``flat >= 0`` is a loaded vertex id and ``flat < 0`` is new vertex ``-1 - flat``."""

    vertices: F64
    ptr: I64
    flat: I64


@dataclass(slots=True, eq=False)
class Cuts(Generic[M]):
    """A mesh's obstacles and what they cut (see the module docstring).

    Attributes:
        loaded: the mesh as loaded (what every re-cut starts from; shares no array with the cut mesh).
        shapes: the loaded polygons in the plane, and their R-tree.
        low, high: per loaded polygon, its up-coordinate range (3D; 0 in 2D).
        obstacles: by id.
        pieces: per cut loaded polygon, its pieces (none: wholly covered).
        source: per polygon of the cut mesh, its loaded polygon.
        blocked: the links with an end inside an obstacle (unused while it stands).
        patches: updates patched into the cut mesh since it was last cut from the loaded mesh.
    """

    loaded: M
    shapes: Shapes
    tree: shapely.STRtree
    low: F64
    high: F64
    obstacles: dict[int, ObstacleShape] = field(default_factory=dict)
    pieces: dict[int, Piece] = field(default_factory=dict)
    source: I64 = field(default_factory=lambda: np.zeros(0, np.int64))
    blocked: frozenset[int] = frozenset()
    patches: int = 0

    @classmethod
    def of(cls, mesh: M) -> Cuts[M]:
        """The cut state of a mesh not cut yet (``mesh`` itself becomes the loaded mesh: the
        caller replaces its own arrays by the cut mesh's, never changing these)."""
        axes = list(PLANE_AXES[mesh.up_axis]) if mesh.dim == 3 else [0, 1]
        shapes = polygons_of(np.ascontiguousarray(mesh.vertices[:, axes]), mesh.poly_ptr, mesh.poly_verts)
        if mesh.dim == 3:
            up = mesh.vertices[mesh.poly_verts, mesh.up_axis]
            low, high = (
                np.minimum.reduceat(up, mesh.poly_ptr[:-1]),
                np.maximum.reduceat(up, mesh.poly_ptr[:-1]),
            )
        else:
            low = high = np.zeros(mesh.polygon_count)
        return cls(mesh, shapes, shapely.STRtree(shapes), low, high, source=np.arange(mesh.polygon_count))


def loaded_of(mesh: M) -> M:
    """The mesh as loaded, before any obstacle cut (``mesh`` itself when none cuts it)."""
    return mesh if mesh._cuts is None else mesh._cuts.loaded


def obstacles_of(mesh: CutMesh) -> dict[int, ObstacleShape]:
    """The obstacles cutting ``mesh``, by id."""
    return {} if mesh._cuts is None else dict(mesh._cuts.obstacles)


def checked_changes(
    obstacles: Mapping[int, ObstacleShape], set_: object, remove: object, clear: object
) -> tuple[dict[int, ObstacleShape], list[ObstacleShape]]:
    """The obstacles after ``clear``, then ``remove``, then ``set_``, and the footprints that
    changed (old and new); raises before anything is changed.

    Raises:
        InvalidGraphError: ``set_`` not a mapping of ids >= 0 to :class:`ObstacleShape`, an id of
            ``remove`` that is not there (after ``clear``), ``clear`` not a bool.
    """
    if not isinstance(clear, bool):
        raise InvalidGraphError(f"clear must be True or False, got {clear!r:.40}")
    if not isinstance(set_, Mapping):
        raise InvalidGraphError(f"obstacles to set must map ids to ObstacleShape, got {set_!r:.60}")
    if isinstance(remove, str | bytes) or not isinstance(remove, Iterable):
        raise InvalidGraphError(f"obstacles to remove must be a list of ids, got {remove!r:.60}")
    removed = list(remove)
    for key in [*set_, *removed]:
        if isinstance(key, bool) or not isinstance(key, int | np.integer) or key < 0:
            raise InvalidGraphError(f"an obstacle id must be an integer >= 0, got {key!r:.40}")
    for key, shape in set_.items():
        if not isinstance(shape, ObstacleShape):
            raise InvalidGraphError(f"obstacle {key} must be an ObstacleShape, got {type(shape).__name__}")
    after = {} if clear else dict(obstacles)
    unknown = [int(k) for k in removed if int(k) not in after]
    if unknown:
        raise InvalidGraphError(f"no obstacle {unknown[0]} to remove (ids now: {sorted(after)[:20]})")
    changed = list(obstacles.values()) if clear else []
    for key in removed:
        changed.append(after.pop(int(key)))
    for key, shape in set_.items():
        old = after.get(int(key))
        if old is not None and old == shape:
            continue
        if old is not None:
            changed.append(old)
        after[int(key)] = shape
        changed.append(shape)
    return after, changed


def _boxes(shapes: list[ObstacleShape]) -> Shapes:
    b = np.array([s.bounds for s in shapes], dtype=np.float64).reshape(-1, 4)
    pad = _PAD * (1.0 + np.abs(b).max(axis=1, initial=0.0))
    return np.asarray(shapely.box(b[:, 0] - pad, b[:, 1] - pad, b[:, 2] + pad, b[:, 3] + pad))


def _in_range(shapes: list[ObstacleShape], low: F64, high: F64, dim: int) -> B:
    """Per (shape, polygon) pair: the polygon's elevations meet the shape's (always in 2D)."""
    if dim == 2:
        return np.ones(low.shape[0], dtype=np.bool_)
    base = np.array([s.base for s in shapes])
    top = np.array([s.base + s.height if math.isfinite(s.height) else math.inf for s in shapes])
    return np.asarray((high >= base) & (low <= top), dtype=np.bool_)


def _recut(cuts: Cuts[Any], polygon: int, carved: tuple[F64, I64, I64]) -> Piece:
    """Polygon ``polygon``'s pieces from ``carved``, what the obstacles leave of it cut convex."""
    shape = cuts.shapes[polygon]
    mesh = cuts.loaded
    xy, ptr, flat = carved
    own = mesh.polygon(polygon)
    own_xy = shapely.get_coordinates(shape)[:-1]
    # a piece's corner at a loaded corner keeps that vertex (exact seams with untouched neighbours)
    at = {(float(x), float(y)): int(v) for (x, y), v in zip(own_xy.tolist(), own.tolist(), strict=True)}
    ids = np.array([at.get((float(x), float(y)), -1) for x, y in xy.tolist()], dtype=np.int64)
    fresh = np.flatnonzero(ids < 0)
    ids[fresh] = -1 - np.arange(fresh.shape[0])
    verts = xy[fresh] if mesh.dim == 2 else lift_onto(mesh.vertices[own], mesh.up_axis, xy[fresh])
    return Piece(np.ascontiguousarray(verts, dtype=np.float64), ptr, ids[flat])


def _pieces(
    cuts: Cuts[Any], after: dict[int, ObstacleShape], changed: list[ObstacleShape]
) -> dict[int, Piece]:
    """The cut of every loaded polygon after the change: those a changed footprint's box meets
    are re-cut, the others keep theirs."""
    pieces = dict(cuts.pieces)
    if not changed:
        return pieces
    mesh = cuts.loaded
    hit = cuts.tree.query(_boxes(changed))
    keep = _in_range([changed[i] for i in hit[0]], cuts.low[hit[1]], cuts.high[hit[1]], mesh.dim)
    polygons = np.unique(hit[1][keep])
    current = list(after.values())
    if not current:
        for p in polygons.tolist():
            pieces.pop(p, None)
        return pieces
    geoms = np.array([s.geometry() for s in current], dtype=object)
    shapes = cuts.shapes[polygons]
    near = shapely.STRtree(_boxes(current)).query(shapes)
    near = near[:, _in_range([current[i] for i in near[1]], cuts.low[polygons[near[0]]],
                             cuts.high[polygons[near[0]]], mesh.dim)]  # fmt: skip
    # only the pairs that meet (one vectorised call): a box that meets cuts nothing
    near = near[:, shapely.intersects(shapes[near[0]], geoms[near[1]])]
    starts = np.searchsorted(near[0], np.arange(polygons.shape[0] + 1))
    cut = np.flatnonzero(np.diff(starts) > 0)
    blocking = np.array(
        [geoms[near[1][starts[k]]] if starts[k + 1] - starts[k] == 1
         else shapely.union_all(geoms[near[1][starts[k] : starts[k + 1]]]) for k in cut.tolist()],
        dtype=object,
    )  # fmt: skip
    left = shapely.difference(shapes[cut], blocking) if cut.size else np.zeros(0, dtype=object)
    # touching along an edge or at a corner cuts nothing: the loaded polygon stays
    lost = shapely.area(shapes[cut]) - shapely.area(left) > mesh.area_epsilon
    for p in polygons.tolist():
        pieces.pop(p, None)
    real = np.flatnonzero(lost)
    carved = convex_pieces_many(left[real], min_area=mesh.area_epsilon)
    for k, piece in zip(cut[real].tolist(), carved, strict=True):
        pieces[int(polygons[k])] = _recut(cuts, int(polygons[k]), piece)
    return pieces


def _beside(cuts: Cuts[Any], recut: I64, whole: B) -> I64:
    """The untouched polygons (numbered as in the cut mesh: the whole loaded polygons first, in
    order) whose box meets a re-cut polygon's box grown by the stitch's reach: every piece lies in
    its loaded polygon, so these include every untouched polygon a piece may lie beside."""
    mesh = cuts.loaded
    reach = 2.0 * max(mesh.merge_margin, mesh.edge_margin) + 1e-12
    if recut.size == 0:
        return np.zeros(0, dtype=np.int64)
    b = shapely.bounds(cuts.shapes[recut])
    near = cuts.tree.query(shapely.box(b[:, 0] - reach, b[:, 1] - reach, b[:, 2] + reach, b[:, 3] + reach))
    ids = np.unique(near[1])
    ids = ids[whole[ids]]
    return np.asarray((np.cumsum(whole) - 1)[ids], dtype=np.int64)


def _blocked_links(mesh: CutMesh, obstacles: list[ObstacleShape]) -> tuple[list[NavLink], frozenset[int]]:
    """The mesh's links, those with an end inside an obstacle disabled, and their indices."""
    if not obstacles or not mesh.links:
        return list(mesh.links), frozenset()
    axes = list(PLANE_AXES[mesh.up_axis]) if mesh.dim == 3 else [0, 1]
    out = []
    stopped = set()
    for index, link in enumerate(mesh.links):
        inside = False
        for end in (link.start, link.end):
            for s in obstacles:
                up = float(end[mesh.up_axis]) if mesh.dim == 3 else 0.0
                if (mesh.dim == 2 or s.overlaps_elevation(up, up)) and shapely.contains_xy(
                    s.geometry(), float(end[axes[0]]), float(end[axes[1]])
                ):
                    inside = True
                    stopped.add(index)
        out.append(NavLink(link.start, link.end, link.bidirectional, link.enter_cost, link.travel_cost,
                           link.layers, link.enabled and not inside))  # fmt: skip
    return out, frozenset(stopped)


def apply_obstacles(
    mesh: M, cuts: Cuts[M] | None, set_: object, remove: object, clear: object, *, make: MeshMaker[M],
    current: M | None = None,
) -> tuple[M, Cuts[M]]:  # fmt: skip
    """The cut mesh after an obstacle update, and its new cut state; ``mesh``, ``cuts`` and
    ``current`` are left as they were (all or nothing). ``cuts`` None: the first update of an
    un-cut mesh. ``current``: the mesh cut as ``cuts`` says; given, only the polygons whose cut
    changed are taken out of it and stitched again (:func:`_patched`), else every piece is.

    Raises:
        InvalidGraphError: see :func:`checked_changes`.
    """
    base = Cuts.of(mesh) if cuts is None else cuts
    after, changed = checked_changes(base.obstacles, set_, remove, clear)
    pieces = _pieces(base, after, changed)
    loaded = base.loaded
    if not after:  # none left: the loaded mesh again (the caller takes its own arrays)
        return loaded, Cuts(
            loaded, base.shapes, base.tree, base.low, base.high, source=np.arange(loaded.polygon_count)
        )
    made = None if current is None else _patched(base, current, pieces)
    stitched, source, reuse = made if made is not None else _recut_all(base, pieces)
    links, stopped = _blocked_links(loaded, list(after.values()))
    cut = make(
        stitched.vertices, stitched.flat, sizes=np.diff(stitched.ptr), up_axis=loaded.up_axis,
        merge_margin=loaded.merge_margin, area_epsilon=loaded.area_epsilon,
        portal_samples=loaded.portal_samples, regions=loaded.region[source],
        edge_margin=loaded.edge_margin, layers=loaded.layers[source],
        enter_costs=loaded.enter_costs[source], travel_costs=loaded.travel_costs[source],
        links=links, link_radius=loaded.link_radius, stitched=stitched, reuse=reuse,
    )  # fmt: skip
    patches = 0 if made is None else base.patches + 1
    return cut, Cuts(base.loaded, base.shapes, base.tree, base.low, base.high, after, pieces, source,
                     stopped, patches)  # fmt: skip


def _recut_all(base: Cuts[Any], pieces: dict[int, Piece]) -> tuple[Conformed, I64, Reuse]:
    """The loaded mesh with every cut polygon replaced by its pieces, stitched (the whole loaded
    polygons keep their pairs): what the first cut, and every :data:`PATCHES` th, costs."""
    loaded = base.loaded
    whole = np.ones(loaded.polygon_count, dtype=np.bool_)
    whole[list(pieces)] = False
    sizes = np.diff(loaded.poly_ptr)
    kept = np.repeat(whole, sizes)
    # the untouched polygons first, keeping their pairs among themselves (renumbered)
    at = np.cumsum(kept) - 1
    twin = loaded._twin[kept]
    twin = np.where((twin >= 0) & kept[np.maximum(twin, 0)], at[np.maximum(twin, 0)], -1)
    flats, counts, sources = [loaded.poly_verts[kept]], [sizes[whole]], [np.flatnonzero(whole)]
    verts = [loaded.vertices]
    base_count = loaded.vertices.shape[0]
    for p in sorted(pieces):
        base_count = _add_piece(pieces[p], p, base_count, (flats, counts, sources, verts))
    beside = _beside(base, np.asarray(sorted(pieces), dtype=np.int64), whole)
    return _stitched(
        base, verts, flats, counts, sources, twin, (loaded, np.flatnonzero(whole)), beside=beside
    )


def _add_piece(piece: Piece, p: int, base_count: int, out: tuple[list[Any], ...]) -> int:
    """Append loaded polygon ``p``'s pieces (new vertices numbered from ``base_count``)."""
    flats, counts, sources, verts = out
    flats.append(np.where(piece.flat >= 0, piece.flat, base_count - 1 - piece.flat))
    counts.append(np.diff(piece.ptr))
    sources.append(np.full(piece.ptr.shape[0] - 1, p, dtype=np.int64))
    verts.append(piece.vertices)
    return base_count + int(piece.vertices.shape[0])


PATCHES = 256
"""Every this many patched updates (or when vertices of dropped pieces outnumber the loaded ones),
an update re-cuts from the loaded mesh instead: it drops those vertices, and the vertices that
stitching put on untouched polygons' edges beside pieces since gone."""


def _patched(
    base: Cuts[Any], current: CutMesh, pieces: dict[int, Piece]
) -> tuple[Conformed, I64, Reuse] | None:
    """``current`` with the polygons of every loaded polygon whose cut changed taken out and its
    new pieces (or, uncut again, the loaded polygon) put in; only those and the polygons left open
    beside them are stitched. None: time for a full re-cut (see :data:`PATCHES`)."""
    loaded = base.loaded
    if base.patches >= PATCHES or current.vertices.shape[0] > 2 * loaded.vertices.shape[0] + 4096:
        return None
    old = base.pieces
    touched = sorted(p for p in set(old) | set(pieces) if old.get(p) is not pieces.get(p))
    gone = np.zeros(loaded.polygon_count, dtype=np.bool_)
    gone[touched] = True
    keep = ~gone[base.source]
    sizes = np.diff(current.poly_ptr)
    kept = np.repeat(keep, sizes)
    at = np.cumsum(kept) - 1
    twin = current._twin[kept]
    twin = np.where((twin >= 0) & kept[np.maximum(twin, 0)], at[np.maximum(twin, 0)], -1)
    flats, counts, sources = [current.poly_verts[kept]], [sizes[keep]], [base.source[keep]]
    verts = [current.vertices]  # the loaded vertices come first: loaded ids hold
    base_count = current.vertices.shape[0]
    for p in touched:
        piece = pieces.get(p)
        if piece is None:  # no longer cut: the loaded polygon again
            flats.append(loaded.polygon(p))
            counts.append(np.array([loaded.polygon(p).shape[0]]))
            sources.append(np.array([p]))
        else:
            base_count = _add_piece(piece, p, base_count, (flats, counts, sources, verts))
    return _stitched(base, verts, flats, counts, sources, twin, (current, np.flatnonzero(keep)))


def _stitched(  # noqa: PLR0917 - the pieces of the polygons
    base: Cuts[Any], verts: list[F64], flats: list[I64], counts: list[I64], sources: list[I64], twin: I64,
    kept: tuple[Any, I64], *, beside: I64 | None = None,
) -> tuple[Conformed, I64, Reuse]:  # fmt: skip
    """The polygons stitched, per output polygon its loaded polygon, and what the new mesh may
    reuse. ``kept``: the mesh the first polygons are taken from as they were (conformal among
    themselves, pairs in ``twin``), and their ids there; ``beside`` as :func:`restitch` takes it."""
    loaded = base.loaded
    source = np.concatenate(sources).astype(np.int64)
    if source.shape[0] == 0:
        raise InvalidGraphError("the obstacles cover the whole mesh: no polygon would be left")
    flat = np.concatenate(flats).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))]).astype(np.int64)
    prev, prev_ids = kept
    dirty = np.arange(source.shape[0]) >= prev_ids.shape[0]
    twin = np.concatenate([twin, np.full(flat.shape[0] - twin.shape[0], -1, dtype=np.int64)])
    axes = PLANE_AXES[loaded.up_axis] if loaded.dim == 3 else (0, 1)
    stitched, order = restitch(
        np.vstack(verts), ptr, flat, twin, loaded.region[source], dirty,
        weld=loaded.merge_margin, margin=loaded.edge_margin, axes=(axes[0], axes[1]), beside=beside,
    )  # fmt: skip
    old_of_new = np.full(order.shape[0], -1, dtype=np.int64)
    old_of_new[: stitched.kept] = prev_ids[order[: stitched.kept]]
    return stitched, source[order], Reuse(prev, old_of_new)
