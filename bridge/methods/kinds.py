"""The wire's graph kinds in one table: what ``bridge/PROTOCOL.md`` says per graph type.

A ``graph.load_<kind>`` request names its kind; from then on the bridge holds a python_core
:class:`Navigator` and asks it, never which kind it is. What stays kind-specific is the wire
itself: the fields of a load and of ``graph.update``, a load's size told from its byte lengths
before anything is built, and whether a load takes (and ``graph.info`` reports) a ``hierarchy``.

    from bridge.methods.kinds import KINDS
    grid = KINDS["grid"].open({"width": 2, "height": 1, "cells": b"\\x01\\x01", "diagonal": "never"})
    assert KINDS["grid"].hierarchy and grid.node_count == 2 and not KINDS["navmesh"].hierarchy
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bridge.methods.params import Params
from bridge.methods.updates import UPDATE_KEYS, grid_updates, navmesh_updates, waypoint_updates
from bridge.wire.errors import UnsupportedError, short_repr
from bridge.wire.protocol import COORDINATE_MAX
from python_core.errors import InvalidGraphError
from python_core.formats.records import from_record
from python_core.grid.layouts import TileGrid
from python_core.grid.search import dispatch
from python_core.navigation import GridNavigator, Navigator, NavMeshNavigator, Update, WaypointNavigator
from python_core.navigation.tile_grid import TileNavigator

__all__ = ["KINDS", "GraphKind"]


@dataclass(frozen=True, slots=True)
class GraphKind:
    """One graph type as the wire knows it.

    Attributes:
        name: the ``<kind>`` of ``graph.load_<kind>`` and the ``kind`` of ``graph.info``.
        open: a load's record (its fields but ``id`` and ``hierarchy``) -> a navigator; raises
            python_core's ``InvalidGraphError`` on bad data.
        size: the nodes a load would create, from its byte lengths alone.
        updates: ``graph.update`` fields -> a batch, given the graph; None when this kind cannot
            be updated.
        hierarchy: loads take a ``hierarchy`` option, ``graph.build_hierarchy`` applies and
            ``graph.info`` reports one.
        prepare: builds what the first query would otherwise build on the event loop, holding
            every client up; called on the load's thread.
    """

    name: str
    open: Callable[[Mapping[str, Any]], Navigator[Any]]
    size: Callable[[Params], int]
    updates: Callable[[Params, Navigator[Any]], list[Update]] | None = None
    hierarchy: bool = False
    prepare: Callable[[Navigator[Any]], None] = lambda graph: None

    def parse_update(self, params: Params, graph: Navigator[Any]) -> list[Update]:
        """Validate a ``graph.update`` map for a graph of this kind.

        Raises:
            BadRequestError: fields of the wrong type or size, or of another graph type.
            UnsupportedError: this kind cannot be updated.
        """
        params.only(*UPDATE_KEYS)
        if self.updates is None:
            raise UnsupportedError(f"graph.update: a {self.name} graph cannot be updated; load it again")
        return self.updates(params, graph)


def _length(params: Params, key: str) -> int:
    value = params.raw(key)
    return len(value) if isinstance(value, bytes) else 0


def _point_bytes(params: Params) -> int:
    """Bytes of one point: float32 coordinates of the load's ``dim`` (2 when it is not valid)."""
    dim = params.raw("dim") if params.raw("dim") in (2, 3) else 2
    return 4 * int(dim)


def _check_world(record: Mapping[str, Any]) -> None:
    """``cell_size`` / ``origin`` numbers past ``COORDINATE_MAX`` make world positions overflow
    float32 (the core checks the rest: two finite numbers)."""
    for key in ("cell_size", "origin"):
        value = record.get(key)
        if isinstance(value, list) and any(
            isinstance(v, int | float) and not isinstance(v, bool) and abs(v) > COORDINATE_MAX for v in value
        ):
            bound, got = f"{COORDINATE_MAX:g}", short_repr(value)
            raise InvalidGraphError(f"{key} components must be in [-{bound}, {bound}], got {got}")


def _open_grid(record: Mapping[str, Any]) -> Navigator[Any]:
    _check_world(record)
    world = "cell_size" in record or "origin" in record  # loaded in world units
    grid = from_record("grid", record)
    if isinstance(grid, TileGrid):  # a hexagonal, isometric or half-offset "layout"
        return TileNavigator(grid, world=world)
    return GridNavigator(grid, world=world)


def _prepare_grid(graph: Navigator[Any]) -> None:
    """The padded copy of the walls the searches run on, which a grid builds on its first query:
    1-3 s on 4096 x 4096."""
    if isinstance(graph, TileNavigator):
        graph.grid.prepare()
    elif isinstance(graph, GridNavigator):
        dispatch.prepare(graph.grid)


def _navmesh_size(params: Params) -> int:
    """Vertices or polygons, whichever is more, of the mesh or of all its regions together."""
    parts = params.raw("regions") if isinstance(params.raw("regions"), list) else [params.values]
    verts = sum(
        len(p.get("vertices", b""))
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("vertices"), bytes)
    )
    sizes = sum(
        len(p.get("sizes", b"")) for p in parts if isinstance(p, dict) and isinstance(p.get("sizes"), bytes)
    )
    return max(verts // _point_bytes(params), sizes // 4)


def _open_navmesh(record: Mapping[str, Any]) -> Navigator[Any]:
    """A mesh or map record, with the navigator's own ``agent_radius`` (the radius of queries that
    give none; the mesh is shrunk for it now, on the load's thread)."""
    radius = record.get("agent_radius")
    if radius is not None and (isinstance(radius, bool) or not isinstance(radius, int | float)):
        raise InvalidGraphError(f"agent_radius must be a number > 0, got {short_repr(radius)}")
    graph = from_record("navmesh", {k: v for k, v in record.items() if k != "agent_radius"})
    return NavMeshNavigator(graph, agent_radius=radius)


def _navmesh_updates(params: Params, graph: Navigator[Any]) -> list[Update]:
    mesh = getattr(graph, "mesh", None)  # a 3D mesh's up axis: the obstacles' plane is across it
    return navmesh_updates(params, graph.dim, int(getattr(mesh, "up_axis", 1)))


GRID = GraphKind(
    "grid",
    _open_grid,
    lambda params: _length(params, "cells"),
    lambda params, graph: grid_updates(params, graph.node_count),
    hierarchy=True,
    prepare=_prepare_grid,
)
WAYPOINTS = GraphKind(
    "waypoints",
    lambda record: WaypointNavigator(from_record("waypoints", record)),
    lambda params: _length(params, "positions") // _point_bytes(params),
    lambda params, graph: waypoint_updates(params, graph.node_count),
)
NAVMESH = GraphKind(
    "navmesh",
    _open_navmesh,
    _navmesh_size,
    _navmesh_updates,
)
KINDS: dict[str, GraphKind] = {kind.name: kind for kind in (GRID, WAYPOINTS, NAVMESH)}
"""By name, in the order of the protocol's ``graph.load_*`` methods."""
