"""A navigation mesh behind the :class:`Navigator` interface: endpoints are positions. A mesh
loaded as one piece takes only obstacles (``update_obstacles``: cut locally); a navigation map
(regions and links) takes region and link updates too. An agent radius (per query, or the map's
``agent_radius``) searches the mesh shrunk by it (:mod:`python_core.navmesh.shrink`), shrunk once
per radius and cached until the mesh changes (obstacles re-cut the cached shrunk meshes).

    from python_core import NavMesh
    from python_core.navigation import NavMeshNavigator
    nav = NavMeshNavigator(NavMesh([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    assert nav.find_path(nav.resolve((0, 0)), nav.resolve((2, 2))).found and nav.node_count == 1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from python_core.errors import InvalidGraphError, InvalidQueryError, UnsupportedOperationError
from python_core.navigation.base import NoHierarchy
from python_core.navigation.interface import Endpoint, EndpointForm
from python_core.navigation.updates import (
    MoveRegion,
    RemoveLink,
    RemoveRegion,
    SetLink,
    SetLinkEnabled,
    SetObstacles,
    SetRegion,
    SetRegionCosts,
    SetRegionLayers,
    Update,
)
from python_core.navmesh import NavMesh
from python_core.navmesh.batch import MeshBatch, check_ends, find_mesh_batch
from python_core.navmesh.cut import checked_changes, obstacles_of
from python_core.navmesh.mode_choice import ModeChoice, choose_mode
from python_core.navmesh.navmap import NavMap
from python_core.navmesh.optimal_batch import find_optimal_batch
from python_core.navmesh.polyanya import find_optimal_path
from python_core.navmesh.shrink import ShrinkCache, ShrunkMesh, check_radius
from python_core.obstacles import ObstacleShape
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["NavMeshNavigator"]

Point = npt.NDArray[np.float64]

_IN_PLACE = (SetRegionLayers, SetLinkEnabled)
"""Changes the built mesh takes in place; every other map change rebuilds it from the regions."""


def _apply_one(nav: NavMap, change: Update) -> None:
    """One change to a map (its checks raise before anything changes)."""
    if isinstance(change, SetRegion):
        nav.set_region(change.region_id, change.region)
    elif isinstance(change, RemoveRegion):
        nav.remove_region(change.region_id)
    elif isinstance(change, MoveRegion):
        nav.move_region(change.region_id, change.transform)
    elif isinstance(change, SetRegionLayers):
        nav.set_region_layers(change.region_id, change.layers)
    elif isinstance(change, SetRegionCosts):
        nav.set_region_costs(change.region_id, change.enter_cost, change.travel_cost)
    elif isinstance(change, SetLink):
        nav.set_link(change.link_id, change.link)
    elif isinstance(change, RemoveLink):
        nav.remove_link(change.link_id)
    elif isinstance(change, SetLinkEnabled):
        nav.set_link_enabled(change.link_id, change.enabled)
    else:
        raise UnsupportedOperationError(
            f"a navmesh takes region and link changes, not {type(change).__name__}"
        )


class NavMeshNavigator(NoHierarchy):
    """A :class:`NavMesh` (fixed) or a :class:`NavMap` (regions and links, updatable) as a navigator.

    Example:
        >>> nav = NavMeshNavigator(NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]]))
        >>> nav.apply([]); nav.endpoints.size, nav.resolve((0.5, 0.25)).tolist()
        (2, [0.5, 0.25])
    """

    kind_name = "navmesh"

    def __init__(self, mesh: NavMesh | NavMap, *, agent_radius: float | None = None) -> None:
        """``agent_radius``: the radius of queries that give none (the engine's ``agent_radius``),
        shrunk now.

        Raises:
            InvalidGraphError: a radius that is not a finite number > 0, or that leaves no room.
            UnsupportedOperationError: a 3D mesh with a part over itself in the plane.
        """
        self._map = mesh if isinstance(mesh, NavMap) else None
        self._mesh = mesh.mesh if isinstance(mesh, NavMap) else mesh
        self._endpoints = EndpointForm(size=self._mesh.dim)
        self._agent_radius = None
        if agent_radius is not None:
            try:
                self._agent_radius = check_radius(agent_radius, "agent_radius")
            except InvalidQueryError as exc:
                raise InvalidGraphError(str(exc)) from None
        self._shrinks = self._new_cache(self._mesh)
        self._choice = choose_mode(self._mesh)

    def _new_cache(self, mesh: NavMesh) -> ShrinkCache:
        """A cache for ``mesh`` holding its ``agent_radius`` shrink (built now: it is the default)."""
        cache = ShrinkCache(mesh)
        if self._agent_radius is not None and cache.get(self._agent_radius).mesh is None:
            raise InvalidGraphError(f"agent_radius {self._agent_radius:g} leaves no room on the mesh")
        return cache

    @property
    def agent_radius(self) -> float | None:
        """The radius of queries that give none (None: the mesh as it is)."""
        return self._agent_radius

    @property
    def mode_choice(self) -> ModeChoice:
        """The mode that answers queries leaving ``optimal`` unset (measured when the mesh is built)."""
        return self._choice

    @property
    def shrinks(self) -> ShrinkCache:
        """The shrunk meshes by radius (a new cache whenever the mesh is rebuilt)."""
        return self._shrinks

    def shrunk(self, radius: float) -> ShrunkMesh:
        """The mesh shrunk for ``radius`` (cached; see :func:`python_core.navmesh.shrink.shrink_mesh`)."""
        return self._shrinks.get(radius)

    def ready_for(self, options: QueryOptions | None) -> bool:
        """False when a query with ``options`` would first shrink the mesh for a new radius (work
        that grows with the mesh: a server gives such a query to a thread, not its event loop)."""
        radius = self._radius(options)
        return radius is None or self._shrinks.cached(radius) is not None

    def _radius(self, options: QueryOptions | None) -> float | None:
        if options is None:
            return self._agent_radius
        if options.size != 1:
            raise InvalidQueryError(
                f"a navmesh takes a unit's radius (world units), not a size in cells; got size {options.size}"
            )
        return self._agent_radius if options.radius is None else options.radius

    @property
    def mesh(self) -> NavMesh:
        """The mesh searched now."""
        return self._mesh

    @property
    def navigation_map(self) -> NavMap | None:
        """The regions and links, when loaded as a map."""
        return self._map

    @property
    def dim(self) -> int:
        """2 or 3, as the mesh."""
        return int(self._mesh.dim)

    @property
    def node_count(self) -> int:
        """Polygons in the mesh."""
        return int(self._mesh.polygon_count)

    @property
    def endpoints(self) -> EndpointForm:
        """Positions of the mesh's dimension."""
        return self._endpoints

    def resolve(self, endpoint: Endpoint, options: QueryOptions | None = None) -> Point:
        """The position as an array; :meth:`find_path` snaps it onto the mesh (shrunk for the
        query's radius, when ``options`` has one)."""
        return np.asarray(endpoint, dtype=np.float64)

    def find_path(
        self,
        start: Point,
        goal: Point,
        options: QueryOptions | None = None,
        *,
        hierarchical: bool = False,
        corridor: bool = False,
    ) -> PathResult:
        """A* over portals and links, then the funnel (see :meth:`NavMesh.find_path`); the
        options' ``layers`` is the query's navigation layer mask; with
        ``options.optimal``, the exactly shortest path by Polyanya
        (:func:`python_core.navmesh.polyanya.find_optimal_path`), the layers as its polygon mask.

        With a radius (``options.radius``, else the map's ``agent_radius``) both modes search
        the mesh shrunk for it; endpoints snap onto the shrunk mesh; ``nodes`` are the original
        mesh's polygons; no room anywhere is ``no_path``.

        Raises:
            UnsupportedOperationError: ``hierarchical`` or ``corridor`` (only grids have a
                hierarchy); a radius on a 3D mesh with a part over itself in the plane.
            InvalidQueryError: a ``size`` other than 1 (a navmesh takes a radius).
        """
        if hierarchical or corridor:
            raise self._refuse()
        radius = self._radius(options)
        if radius is None:
            result = self._search(self._mesh, start, goal, options)
            if self._mesh.obstacle_count == 0 or result.nodes.shape[0] == 0:
                return result
            return self._loaded_batch([result]).result(0)  # the loaded polygons' ids
        shrunk = self._shrinks.get(radius)
        if shrunk.mesh is None:
            return PathResult(PathStatus.NO_PATH, np.zeros((0, self.dim)))
        return shrunk.original(self._search(shrunk.mesh, start, goal, options))

    def find_batch(
        self, starts: Point, goals: Point, options: QueryOptions | None = None, *, corridors: bool = True
    ) -> MeshBatch:
        """:meth:`find_path` of each row pair of ``starts`` and ``goals`` (``(n, dim)`` positions),
        equal to it query by query; the funnel mode runs the whole batch in one compiled call.
        ``corridors=False``: every path's polygons left out (``nodes`` empty; Polyanya on a merged
        view then skips finding the mesh's own polygons along each path).

        Raises:
            InvalidQueryError: ends of another shape or not finite, a bad option (the batch's error).
        """
        s, g = check_ends(starts, self.dim, "starts"), check_ends(goals, self.dim, "goals")
        radius = self._radius(options)
        mesh, shrunk = self._mesh, None
        if radius is not None:
            shrunk = self._shrinks.get(radius)
            if shrunk.mesh is None:
                return MeshBatch.from_results([PathResult(PathStatus.NO_PATH)] * len(s), self.dim)
            mesh = shrunk.mesh
        if self._optimal(options):
            layers = None if options is None else options.layers
            traversable = None if layers is None else (mesh.layers & layers) != 0
            bare = not corridors and shrunk is None  # a shrunk mesh maps its corridors back
            found = find_optimal_batch(
                mesh, s, g, options=options, traversable=traversable, corridors=not bare
            )
            found = self._funnel_runaways(mesh, found, s, g, options)
            if shrunk is not None:
                results = [shrunk.original(found.result(i)) for i in range(len(found))]
                found = MeshBatch.from_results(results, self.dim)
            elif corridors and self._mesh.obstacle_count:
                found = found.with_sources(self._mesh.polygon_source)
            return found if corridors else found.without_nodes()
        batch = find_mesh_batch(
            mesh, s, g, options=options, layers=None if options is None else options.layers
        )
        if shrunk is not None:
            batch = MeshBatch.from_results(
                [shrunk.original(batch.result(i)) for i in range(len(batch))], self.dim
            )
        elif corridors and mesh.obstacle_count:
            batch = batch.with_sources(mesh.polygon_source)
        return batch if corridors else batch.without_nodes()

    def _funnel_runaways(
        self, mesh: NavMesh, found: MeshBatch, starts: Point, goals: Point, options: QueryOptions | None
    ) -> MeshBatch:
        """``found`` with each query :meth:`_runaway` flags answered by the funnel instead (the
        statuses read first: a batch with none is returned as it is, no per-query results made)."""
        redo = [i for i, status in enumerate(found.statuses()) if self._runaway(status, options)]
        if not redo:
            return found
        results = [found.result(i) for i in range(len(found))]
        layers = None if options is None else options.layers
        s, g = np.asarray(starts), np.asarray(goals)
        for i in redo:
            results[i] = mesh.find_path(s[i], g[i], options=options, layers=layers)
        return MeshBatch.from_results(results, self.dim)

    def _loaded_batch(self, results: list[PathResult]) -> MeshBatch:
        """``results`` on the mesh as a batch whose corridors name the loaded polygons."""
        batch = MeshBatch.from_results(results, self.dim)
        return batch if self._mesh.obstacle_count == 0 else batch.with_sources(self._mesh.polygon_source)

    @property
    def obstacle_count(self) -> int:
        """Obstacles cutting the mesh."""
        return self._mesh.obstacle_count

    def update_obstacles(
        self, set_: Mapping[int, ObstacleShape], remove: Iterable[int] = (), clear: bool = False
    ) -> None:
        """Obstacles cut the mesh (``clear``, then ``remove``, then ``set_``; a set id moves), as
        :meth:`NavMesh.update_obstacles`: locally, on the mesh or map and on every cached shrunk
        mesh (the obstacles grown by its radius); the default mode stays as measured.

        Raises:
            InvalidGraphError: an unknown id in ``remove``, a bad shape, obstacles covering the
                whole mesh (nothing changes).
        """
        remove = list(remove)
        if self._map is not None:
            self._map.update_obstacles(set_, remove, clear)
            self._mesh = self._map.mesh
        else:
            self._mesh.update_obstacles(set_, remove, clear)
        self._shrinks.mesh = self._mesh
        self._shrinks.update_obstacles(set_, remove, clear)

    def _optimal(self, options: QueryOptions | None) -> bool:
        """Whether Polyanya answers: asked for, or unset on a mesh measured faster by it (a query
        naming a heuristic Polyanya lacks keeps the funnel, which takes every name)."""
        if options is not None and options.optimal is not None:
            return options.optimal
        if self._choice.mode != "optimal" or options is None:
            return self._choice.mode == "optimal"
        return options.heuristic in {None, "euclidean", "zero"}

    def _search(self, mesh: NavMesh, start: Point, goal: Point, options: QueryOptions | None) -> PathResult:
        layers = None if options is None else options.layers
        if self._optimal(options):
            traversable = None if layers is None else (mesh.layers & layers) != 0
            found = find_optimal_path(mesh, start, goal, options=options, traversable=traversable)
            if not self._runaway(found.status, options):
                return found
        return mesh.find_path(start, goal, options=options, layers=layers)

    @staticmethod
    def _runaway(status: PathStatus, options: QueryOptions | None) -> bool:
        """Whether a Polyanya answer the default mode chose is its node cap, not a budget the
        query set: the funnel answers instead. Why: on a map whose region joins disagree a search
        can end at the cap (polyanya_kernel.ROOM_PER_CORNER); the default mode promises a path
        wherever the funnel has one. A query that asks for ``optimal`` keeps the status."""
        asked = options is not None and (options.optimal is not None or options.max_expansions is not None)
        return status is PathStatus.BUDGET_EXHAUSTED and not asked

    def apply(self, updates: Sequence[Update]) -> None:
        """Region and link changes of a map and obstacle changes (``SetObstacles``, of a map or a
        mesh loaded as one piece), in order, all or nothing: region and link changes are tried on
        a copy of the map's description first, obstacle ids checked; layer and link switches then
        change the built mesh in place, obstacles re-cut it locally, anything else builds a new
        mesh (locally: :mod:`python_core.navmesh.region_stitch`) that replaces the old once built.

        Raises:
            UnsupportedOperationError: a region or link change to a mesh loaded as one piece, or a
                grid's or waypoint graph's change.
            InvalidGraphError: a bad change (an unknown region, link or obstacle, a bad region ...).
        """
        if not updates:
            return
        cuts = [change for change in updates if isinstance(change, SetObstacles)]
        others = [change for change in updates if not isinstance(change, SetObstacles)]
        if others and self._map is None:
            raise UnsupportedOperationError(
                "a navmesh loaded as one mesh takes only obstacles; load it as regions to change them"
            )
        held = self._map.obstacles if self._map is not None else obstacles_of(self._mesh)
        for cut in cuts:  # every obstacle change checked before anything changes
            held, _ = checked_changes(held, cut.shapes, cut.remove, cut.clear)
        if others and not all(isinstance(change, _IN_PLACE) for change in others):
            assert self._map is not None
            trial = self._map.copy()
            trial._mesh = None  # a description only: nothing shared is changed while trying
            for change in others:
                _apply_one(trial, change)
            for cut in cuts:
                trial.update_obstacles(cut.shapes, cut.remove, cut.clear)
            mesh = trial.mesh  # builds (and may raise) before anything is replaced
            shrinks = self._new_cache(mesh)
            # a moved region leaves the mesh what it was: its measured mode stays (no probe)
            moved = all(isinstance(change, MoveRegion | SetObstacles) for change in updates)
            self._mesh, self._map, self._shrinks = mesh, trial, shrinks
            self._choice = self._choice if moved else choose_mode(mesh)
            return
        if others:
            assert self._map is not None
            trial = self._map.copy()
            trial._mesh = None
            for change in others:
                _apply_one(trial, change)
            for change in others:
                _apply_one(self._map, change)
                self._apply_to_shrinks(change)
        for cut in cuts:
            self.update_obstacles(cut.shapes, cut.remove, cut.clear)

    def _apply_to_shrinks(self, change: Update) -> None:
        """A layer or link switch, made in place on the map, made on every cached shrink too."""
        assert self._map is not None
        for shrunk in self._shrinks.entries():
            if shrunk.mesh is None:
                continue
            if isinstance(change, SetRegionLayers):
                ids = np.asarray(self._map.region_polygons(change.region_id))
                shrunk.mesh.set_layers(np.flatnonzero(np.isin(shrunk.source, ids)), change.layers)
            elif isinstance(change, SetLinkEnabled):
                index = sorted(self._map.links).index(int(change.link_id))
                if all(i != index for i, _ in shrunk.dropped_links):
                    shrunk.mesh.set_link_enabled(index, change.enabled)

    def describe(self) -> dict[str, Any]:
        """Regions and links, when loaded as a map; the agent radius and the radii shrunk, when set."""
        out: dict[str, Any] = {"default_mode": self._choice.to_info(), "obstacles": self.obstacle_count}
        if self._map is not None:
            out |= {"regions": len(self._map.regions), "links": len(self._map.links)}
        if self._agent_radius is not None:
            out["agent_radius"] = self._agent_radius
        if self._shrinks.radii:
            out["shrunk_radii"] = self._shrinks.radii
        return out
