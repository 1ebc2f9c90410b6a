"""Navigation meshes of convex polygons (2D, or 3D with an up axis), searched with A* + funnel.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    result = mesh.find_path((0.5, 0.5), (2.5, 0.5))
    assert result.found and result.nodes.tolist() == [0, 1]

Building: polygons are checked and wound counter-clockwise (:mod:`~python_core.navmesh.build`), the
mesh made conformal (:mod:`~python_core.navmesh.stitch`: shared edges, T-junctions, overlapping
edges, and region borders within ``edge_margin`` all become shared edges), links attached to their
nearest polygons, the bucket grid that locates points built (:mod:`~python_core.navmesh.locator`),
and the search graph (:mod:`~python_core.navmesh.graph`). A query is one compiled call
(:mod:`~python_core.navmesh.kernel`): start and goal are located (and clamped onto the mesh when
outside, as Godot's NavigationServer does), A* runs over points on the portals (ends and middle)
and link ends, and the funnel pulls the corridor taut; ``cost`` is the path's length weighted by
the polygons' travel costs, plus enter and link costs. In 3D, location and funnel work in the plane
perpendicular to ``up_axis``; heights come from the polygons' planes. Obstacles cut the mesh
locally (:mod:`~python_core.navmesh.cut`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND
from python_core.compiled import register_warm_up
from python_core.csr.graph import CsrGraph
from python_core.csr.kernel import heuristic_code
from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.navmesh.build import (
    PLANE_AXES,
    checked_polygons,
    corner_links,
    normalise,
    per_polygon,
    polygon_ids,
)
from python_core.navmesh.corridor_kernel import nav_scratch
from python_core.navmesh.cut import Cuts, apply_obstacles
from python_core.navmesh.graph import LinkEnds, SearchGraph, build_search_graph
from python_core.navmesh.kernel import nav_query, nav_static
from python_core.navmesh.links import LAYERS_MAX, NavLink, check_cost, checked_links, query_mask
from python_core.navmesh.locate_kernel import closest_point as closest_kernel
from python_core.navmesh.locate_kernel import locate as locate_kernel
from python_core.navmesh.locator import build_locator
from python_core.navmesh.patch import Reuse, patched_locator, patched_search_graph
from python_core.navmesh.stitch import Conformed, conform
from python_core.obstacles import ObstacleShape
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["ALL_LAYERS", "NavMesh"]

ALL_LAYERS = LAYERS_MAX
_NO_CUTS: Cuts[NavMesh] | None = None
"""The query mask that admits every polygon and link (what a query without layers uses)."""


class NavMesh:
    """A navigation mesh of convex polygons (Godot ``NavigationPolygon`` / ``NavigationMesh`` layout).

    Args:
        vertices: ``(n, 2)`` or ``(n, 3)`` finite coordinates.
        polygons: vertex index lists (either winding), or a flat index array with ``sizes``.
        sizes: vertex counts per polygon when ``polygons`` is flat.
        up_axis: 3D only: 0, 1 (Y up, Godot's default) or 2.
        merge_margin: vertices closer than this count as one; also how far a T-junction's vertex
            may lie off the edge it splits.
        area_epsilon: polygons with area at most this are degenerate.
        portal_samples: search points per portal (3: both ends and the middle, which lets the
            search hug corners as shortest paths do; 1: midpoints only, smaller and faster).
        regions: region id per polygon (default: all one region). ``edge_margin`` joins regions.
        edge_margin: Godot's ``edge_connection_margin``: free edges of different regions that run
            along each other this close are joined where they overlap.
        layers: navigation layer mask per polygon (default 1, as Godot's regions).
        enter_costs: per polygon, paid when a path enters it from another region (default 0).
        travel_costs: per polygon, multiplies distances travelled in it (default 1).
        links: off-mesh links (:class:`~python_core.navmesh.links.NavLink`).
        link_radius: a link end joins the nearest polygon within this distance (Godot's
            ``link_connection_radius``; default 4 in 2D, 1 in 3D); farther, the link is unused.
        stitched: these polygons already checked and conformal (an obstacle re-cut's stitch).
        reuse: the mesh this one changes locally (with ``stitched``): its locator and search
            graph are patched (:mod:`~python_core.navmesh.patch`), not built again.

    Attributes:
        vertices: the given vertices, then any inserted where edges were split.
        poly_ptr, poly_verts: the polygons as CSR, counter-clockwise in the plane frame.
        neighbours: per corner ``poly_ptr[p] + i``, the polygon across edge ``i -> i + 1`` of ``p``.
        region, layers, enter_costs, travel_costs: per polygon.
        links: the links, in the order given.
        portal_samples, merge_margin, edge_margin, link_radius: as given (for derived meshes).

    Raises:
        InvalidGraphError: bad shapes, non-finite coordinates, indices out of range, fewer than 3
            vertices, zero area, a non-convex polygon (the message names it), bad costs or masks.

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
        regions: npt.ArrayLike | None = None,
        edge_margin: float = 0.0,
        layers: npt.ArrayLike | None = None,
        enter_costs: npt.ArrayLike | None = None,
        travel_costs: npt.ArrayLike | None = None,
        links: Sequence[NavLink] = (),
        link_radius: float | None = None,
        stitched: Conformed | None = None,
        reuse: Reuse | None = None,
    ) -> None:
        verts, ptr, flat = checked_polygons(vertices, polygons, sizes, up_axis)
        self._samples, self.area_epsilon = int(portal_samples), float(area_epsilon)
        self._cuts, self.version = _NO_CUTS, 0  # obstacles and their cuts; obstacle updates made
        if self._samples < 1:
            raise InvalidGraphError(f"portal_samples must be >= 1, got {portal_samples}")
        self.portal_samples, self.merge_margin = self._samples, float(merge_margin)
        count = ptr.shape[0] - 1
        self.dim = int(verts.shape[1])
        self.up_axis = up_axis if self.dim == 3 else -1
        self.edge_margin = check_cost(edge_margin, "edge_margin")
        default_reach = 4.0 if self.dim == 2 else 1.0
        self.link_radius = check_cost(default_reach if link_radius is None else link_radius, "link_radius")
        self.region = (
            np.zeros(count, np.int64) if regions is None else np.asarray(regions, np.int64).reshape(-1)
        )
        if self.region.shape[0] != count:
            raise InvalidGraphError(f"regions needs one id per polygon ({count}), got {self.region.shape[0]}")
        self.layers = np.ones(count, np.int64) if layers is None else np.asarray(layers, np.int64).reshape(-1)
        if self.layers.shape[0] != count or np.any((self.layers < 0) | (self.layers > LAYERS_MAX)):
            raise InvalidGraphError(f"layers needs one mask in [0, 2**32 - 1] per polygon ({count})")
        self.enter_costs = per_polygon(enter_costs, count, 0.0, "enter_costs")
        self.travel_costs = per_polygon(travel_costs, count, 1.0, "travel_costs")
        plane = verts[:, list(PLANE_AXES[up_axis])] if self.dim == 3 else verts
        conformed = stitched or conform(
            verts, ptr, normalise(plane, ptr, flat, area_epsilon), self.region, weld=merge_margin,
            margin=self.edge_margin,
        )  # fmt: skip
        self.vertices = conformed.vertices
        self._xy = np.ascontiguousarray(
            self.vertices[:, list(PLANE_AXES[up_axis])] if self.dim == 3 else self.vertices
        )
        self.poly_ptr, self.poly_verts = conformed.ptr, conformed.flat
        self._corner_poly, self._next = corner_links(self.poly_ptr)
        self._twin = conformed.twin
        self.neighbours = np.where(self._twin >= 0, self._corner_poly[np.maximum(self._twin, 0)], -1)
        self.links: list[NavLink] = checked_links(links, self.dim)
        arrays = (self.vertices, self._xy, self.poly_ptr, self.poly_verts)
        self._locator = (reuse and patched_locator(reuse, *arrays, self.up_axis)) or build_locator(
            *arrays, self._next, self.up_axis
        )
        self._build_search(reuse)

    @property
    def polygon_count(self) -> int:
        """Number of polygons."""
        return int(self.poly_ptr.shape[0] - 1)

    def polygon(self, index: int) -> I64:
        """Vertex indices of polygon ``index``, counter-clockwise in the plane frame."""
        return self.poly_verts[self.poly_ptr[index] : self.poly_ptr[index + 1]]

    @property
    def search_graph(self) -> SearchGraph:
        """The graph the corridor search runs on (see :mod:`python_core.navmesh.graph`)."""
        return self._search

    # ---- building ---------------------------------------------------------------------------
    def _common_layers(self) -> None:
        """The bits every search node carries (a query sharing one skips the per-node test)."""
        graph = self._search  # nodes of portals gone since a patch (no edges, no polygon) left out
        layers = graph.layers[(graph.dst >= 0) | (graph.link >= 0)]
        self._layers_common[0] = int(np.bitwise_and.reduce(layers)) if layers.size else LAYERS_MAX

    def _static(self, graph: SearchGraph, link_start: F64, link_end: F64) -> object:
        pa = PLANE_AXES[self.up_axis] if self.dim == 3 else (0, 1)
        # the heuristic (straight distance) times the cheapest cost per unit stays admissible
        scale = float(np.min([self.travel_costs.min(), *(lk.travel_cost for lk in self.links)]))
        grid = self._locator
        return nav_static(
            self.vertices, self._xy, self.poly_ptr, self.poly_verts, grid.origin, grid.cell, grid.cols,
            grid.rows, grid.cell_ptr, grid.cell_polys, self.layers, grid.plane,
            self.up_axis, pa[0], pa[1],
            graph.indptr, graph.indices, graph.costs, graph.pos, graph.src, graph.dst, graph.left,
            graph.right, graph.link, graph.layers, graph.out_ptr, graph.out_nodes, graph.in_ptr,
            graph.in_nodes, graph.enter, self.travel_costs, self.region, link_start, link_end,
            scale, self._samples, graph.portal_count, self._layers_common,
        )  # fmt: skip

    def _build_search(self, reuse: Reuse | None = None) -> None:
        """Attach the links (each direction to the nearest polygons within ``link_radius``) and
        build the search graph and the kernel's record."""
        self._layers_common = np.zeros(1, np.int64)
        self._scratch: list[object] = []
        empty = LinkEnds(np.zeros((0, self.dim)), np.zeros((0, self.dim)), *(np.zeros(0, np.int64),) * 2,
                         np.zeros(0), np.zeros(0, np.int64))  # fmt: skip
        if self.links:
            # Attaching link ends only locates points: a record whose graph has no portals will
            # do (a whole second graph would double a rebuild's memory).
            self._static_record = self._static(
                build_search_graph(
                    self.vertices, self.poly_verts, self._next, self._corner_poly,
                    np.full_like(self._twin, -1), self.region, self.travel_costs, self.enter_costs,
                    self.layers, empty, samples=self._samples,
                ), empty.start, empty.end,
            )  # fmt: skip
        starts, ends, pa, pb, cost, mask, self._link_dirs = [], [], [], [], [], [], []
        for index, link in enumerate(self.links):
            a, poly_a = self._attach(link.start)
            b, poly_b = self._attach(link.end)
            if poly_a < 0 or poly_b < 0:
                continue
            for s, e, ps, pe in ((a, b, poly_a, poly_b), (b, a, poly_b, poly_a))[: 1 + link.bidirectional]:
                starts.append(s)
                ends.append(e)
                pa.append(ps)
                pb.append(pe)
                cost.append(link.enter_cost + link.travel_cost * float(np.linalg.norm(e - s)))
                mask.append(link.layers if link.enabled else 0)
                self._link_dirs.append(index)
        ends_info = LinkEnds(
            np.asarray(starts, np.float64).reshape(-1, self.dim),
            np.asarray(ends, np.float64).reshape(-1, self.dim),
            np.asarray(pa, np.int64), np.asarray(pb, np.int64), np.asarray(cost, np.float64),
            np.asarray(mask, np.int64),
        )  # fmt: skip
        per_poly = (self.region, self.travel_costs, self.enter_costs, self.layers)
        patched = None if reuse is None or self.links else patched_search_graph(
            reuse, self.vertices, self.poly_ptr, self.poly_verts, self._twin, per_poly, self._samples
        )  # fmt: skip
        self._search = patched or build_search_graph(
            self.vertices, self.poly_verts, self._next, self._corner_poly, self._twin, self.region,
            self.travel_costs, self.enter_costs, self.layers, ends_info, samples=self._samples,
        )  # fmt: skip
        self._graph = CsrGraph(
            self._search.indptr, self._search.indices, self._search.costs, self._search.pos
        )
        self._common_layers()
        self._static_record = self._static(self._search, ends_info.start, ends_info.end)

    def _attach(self, point: F64) -> tuple[F64, int]:
        """The closest mesh point to a link end and its polygon, or -1 beyond ``link_radius``."""
        poly, snapped = closest_kernel(self._static_record, np.asarray(point, np.float64), ALL_LAYERS)
        if poly < 0 or float(np.linalg.norm(snapped - point)) > self.link_radius:
            return snapped, -1
        return np.asarray(snapped, np.float64).copy(), int(poly)

    # ---- changes that keep the geometry -------------------------------------------------------
    def set_layers(self, polygons: npt.ArrayLike, mask: int) -> None:
        """Give ``polygons`` the layer ``mask`` (queries see it at once; nothing is rebuilt). On a
        mesh cut by obstacles the ids are the loaded mesh's (each with all its pieces).

        Raises:
            InvalidGraphError: a polygon index out of range or a bad mask.
        """
        if self._cuts is not None:  # ids of the loaded mesh: its polygons and all their pieces
            self._cuts.loaded.set_layers(polygons, mask)
            ids = np.flatnonzero(np.isin(self._cuts.source, self._cuts.loaded._polygon_ids(polygons)))
        else:
            ids = self._polygon_ids(polygons)
        if isinstance(mask, bool) or not 0 <= int(mask) <= LAYERS_MAX:
            raise InvalidGraphError(f"mask must be in [0, 2**32 - 1], got {mask}")
        self.layers[ids] = int(mask)
        # nodes leading into those polygons (portal points and link ends) carry their mask
        self._search.layers[np.isin(self._search.dst, ids)] = int(mask)
        self._common_layers()

    def set_link_enabled(self, index: int, enabled: bool) -> None:
        """Enable or disable link ``index`` (nothing is rebuilt); InvalidGraphError if no such link."""
        if not 0 <= index < len(self.links):
            raise InvalidGraphError(f"no link {index}; the mesh has {len(self.links)}")
        if self._cuts is not None:  # the loaded mesh keeps the switch; an obstacle may still block it
            self._cuts.loaded.set_link_enabled(index, enabled)
            enabled = enabled and index not in self._cuts.blocked
        link = self.links[index]
        self.links[index] = NavLink(link.start, link.end, link.bidirectional, link.enter_cost,
                                    link.travel_cost, link.layers, bool(enabled))  # fmt: skip
        graph = self._search
        for d, owner in enumerate(self._link_dirs):
            if owner == index:
                graph.layers[graph.portal_count + d] = link.layers if enabled else 0
        self._common_layers()

    def _polygon_ids(self, polygons: npt.ArrayLike) -> I64:
        return polygon_ids(polygons, self.polygon_count)

    # ---- obstacles ----------------------------------------------------------------------------------
    @property
    def obstacle_count(self) -> int:
        """Obstacles cutting the mesh."""
        return 0 if self._cuts is None else len(self._cuts.obstacles)

    @property
    def polygon_source(self) -> I64:
        """Per polygon, the loaded polygon it is a piece of (itself while no obstacle cuts it)."""
        return np.arange(self.polygon_count) if self._cuts is None else self._cuts.source

    def update_obstacles(
        self, set_: Mapping[int, ObstacleShape], remove: Iterable[int] = (), clear: bool = False
    ) -> None:
        """Cut the mesh around obstacles: ``clear`` all first, then ``remove`` ids, then ``set_``
        (an id already there moves). Only the loaded polygons a changed obstacle touches are re-cut
        (:mod:`~python_core.navmesh.cut`); polygon ids then are the cut mesh's (:attr:`polygon_source`
        maps them back); with no obstacle left it is the loaded mesh again.

        Raises:
            InvalidGraphError: an unknown id in ``remove``, a value that is not an ObstacleShape,
                obstacles covering the whole mesh. Nothing changes then.
        """
        loaded = copy.copy(self) if self._cuts is None else self._cuts.loaded
        current = None if self._cuts is None else self
        cut, cuts = apply_obstacles(loaded, self._cuts, set_, remove, clear, make=NavMesh, current=current)
        # every derived array swapped at once; none left: the loaded mesh's own arrays again
        state = cut.__dict__ | {"_cuts": cuts} if cuts.obstacles else dict(loaded.__dict__)
        self.__dict__.update(state | {"version": self.version + 1})

    # ---- queries ----------------------------------------------------------------------------------
    def _check_point(self, point: npt.ArrayLike) -> F64:
        p = np.asarray(point, dtype=np.float64).reshape(-1)
        if p.shape[0] != self.dim or not np.all(np.isfinite(p)):
            raise InvalidQueryError(f"point must be {self.dim} finite numbers, got {p.tolist()}")
        return p

    _check_mask = staticmethod(query_mask)

    def locate(self, point: npt.ArrayLike, *, eps: float = 1e-9, layers: int | None = None) -> int:
        """Index of a polygon containing ``point`` (within ``eps`` relative to the coordinates'
        size; whose layers share ``layers``), or -1.

        In 3D the point is projected along the up axis; of several polygons above each other the
        one whose plane is nearest in height wins. In 2D the lowest index wins.

        Example:
            >>> NavMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]).locate((0.8, 0.8))
            -1
        """
        point_ = self._check_point(point)
        return int(locate_kernel(self._static_record, point_, self._check_mask(layers), float(eps)))

    def closest_point(self, point: npt.ArrayLike, *, layers: int | None = None) -> tuple[F64, int]:
        """The closest point on the mesh and its polygon (the point itself when inside).

        Raises:
            InvalidQueryError: a bad point or mask; no polygon shares ``layers``.

        Example:
            >>> pt, poly = NavMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]).closest_point((2, 0))
            >>> pt.tolist(), poly
            ([1.0, 0.0], 0)
        """
        p = self._check_point(point)
        poly, snapped = closest_kernel(self._static_record, p, self._check_mask(layers))
        if poly < 0:
            raise InvalidQueryError(f"no polygon of the mesh is on layers {layers}")
        return np.asarray(snapped, np.float64).copy(), int(poly)

    def find_path(
        self,
        start: npt.ArrayLike,
        goal: npt.ArrayLike,
        *,
        options: QueryOptions | None = None,
        layers: int | None = None,
    ) -> PathResult:
        """A path on the mesh: A* over portals and links, then the funnel.

        Args:
            start, goal: points in mesh coordinates (clamped onto allowed polygons when outside).
            options: heuristic (any known name; the search uses the straight distance),
                allow_partial (to the reached polygon nearest the goal, ending at its closest point
                to the goal), max_expansions.
            layers: the query's navigation layer mask (None: every layer); polygons and links
                sharing no bit are avoided, as Godot's ``navigation_layers``.

        Returns:
            ``points`` = waypoints (start and goal after clamping, link ends included), ``nodes``
            = polygon corridor, ``cost`` = weighted length (see the module docstring),
            ``expanded`` = search nodes expanded. No polygon on ``layers``: ``no_path``.

        Raises:
            InvalidQueryError: non-finite or wrongly sized points, unknown heuristic, bad budget
                or mask.

        Example:
            >>> m = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]])
            >>> m.find_path((0, 0), (5, 1)).points.tolist()  # the goal is clamped to (1, 1)
            [[0.0, 0.0], [1.0, 1.0]]
        """
        opts = options or QueryOptions()
        heuristic_code(opts.heuristic)  # a known name (the search itself is always euclidean)
        if opts.max_expansions is not None and opts.max_expansions < 0:
            raise InvalidQueryError(f"max_expansions must be >= 0, got {opts.max_expansions}")
        mask = self._check_mask(layers)
        s, g = self._check_point(start), self._check_point(goal)
        budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
        # a scratch of our own: list.pop and append are atomic, so threads never share one
        scratch = self._scratch.pop() if self._scratch else nav_scratch(self._static_record)
        try:
            status, expanded, points, corridor, cost = nav_query(
                self._static_record, scratch, s, g, mask, budget, bool(opts.allow_partial)
            )
        finally:
            self._scratch.append(scratch)
        if status == SEARCH_FOUND:
            return PathResult(PathStatus.FOUND, points, corridor, float(cost), int(expanded))
        if status == 3:
            return PathResult(PathStatus.PARTIAL, points, corridor, float(cost), int(expanded))
        kind = PathStatus.BUDGET_EXHAUSTED if status == SEARCH_BUDGET else PathStatus.NO_PATH
        if points.shape[0]:
            return PathResult(kind, points, corridor, float(cost), int(expanded))
        return PathResult(kind, np.zeros((0, self.dim)), expanded=int(expanded))


@register_warm_up
def _warm_up() -> None:
    """Compile (or load from the disk cache) the navmesh kernels with the dtypes queries pass:
    a 2D and a 3D mesh with a link, each located, clamped and searched once; an obstacle cut."""
    square = [[0, 1, 2, 3], [1, 4, 5, 2]]
    flat = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1]], square,
                   links=[NavLink(np.array([0.5, 0.5]), np.array([1.5, 0.5]))])  # fmt: skip
    flat.find_path((0.5, 0.5), (1.5, 0.5), options=QueryOptions(allow_partial=True))
    flat.find_path((0.5, 0.5), (9.0, 0.5), layers=1)
    flat.locate((0.5, 0.5))
    flat.closest_point((5.0, 5.0))
    up = NavMesh([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [2, 0, 0], [2, 0, 1]], square,
                 links=[NavLink(np.array([0.5, 0, 0.5]), np.array([1.5, 0, 0.5]))])  # fmt: skip
    up.find_path((0.5, 0.0, 0.5), (1.5, 0.0, 0.5))
    room = NavMesh([[0, 0], [4, 0], [4, 2], [0, 2]], [[0, 1, 2, 3]])  # no links: a patched graph
    room.update_obstacles({0: ObstacleShape.circle((2.0, 1.0), 0.5)})
    up.locate((0.5, 0.0, 0.5))
