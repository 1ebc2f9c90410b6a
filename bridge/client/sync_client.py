"""``bridge.Client``: a small synchronous msgpack-RPC client over a plain socket.

    with start_sidecar() as sidecar, Client.connect(sidecar.host, sidecar.port) as client:
        client.hello(sidecar.token)
        client.load_grid("g", np.ones((4, 4), dtype=bool))
        assert client.find("g", (0, 0), (3, 3))["status"] == "found"

Bulk arrays are converted to the protocol's little-endian ``bin`` fields here; results come back
as the wire maps, with :func:`decode_points` to turn ``points`` into an ``(n, dim)`` array.
Notifications the server sends (``graph.progress`` while a hierarchy builds) are kept in
``notifications`` and passed to ``on_notification`` when one is set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.client.rpc import ClosedError, RpcConnection
from bridge.wire.errors import BridgeError
from bridge.wire.protocol import PROTOCOL_VERSION

__all__ = ["BridgeError", "Client", "ClosedError", "decode_points"]


def decode_points(data: bytes, dim: int = 2) -> npt.NDArray[np.float32]:
    """A result's ``points`` bin as an ``(n, dim)`` float32 array."""
    return np.frombuffer(data, dtype="<f4").reshape(-1, dim)


def _bin(values: npt.ArrayLike, dtype: str) -> bytes:
    return np.ascontiguousarray(np.asarray(values), dtype=dtype).tobytes()


class Client(RpcConnection):
    """One connection and the protocol's methods (the raw calls: :class:`RpcConnection`); calls
    block until their answer (other answers that arrive are kept).

    Args:
        sock: a connected socket (see :meth:`connect`).
    """

    # ---- API ----------------------------------------------------------------------------------
    def hello(self, token: str, client: str = "bridge.Client") -> dict[str, Any]:
        """Authenticate; returns ``{"server", "protocol", "methods"}``."""
        result: dict[str, Any] = self.call(
            "hello", {"token": token, "client": client, "protocol": PROTOCOL_VERSION}
        )
        return result

    def load_grid(
        self,
        graph_id: str,
        walkable: npt.ArrayLike,
        *,
        diagonal: str = "always",
        weights: npt.ArrayLike | None = None,
        cell_size: Sequence[float] | None = None,
        origin: Sequence[float] | None = None,
        hierarchy: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Load (or replace) a grid from a ``(height, width)`` array (0/False = blocked).

        ``hierarchy`` (e.g. ``{"cluster_size": 32}``) has the sidecar build HPA* too; the call then
        returns once it is built, ``graph.progress`` notifications arriving meanwhile.
        """
        mask = np.asarray(walkable)
        params: dict[str, Any] = {
            "id": graph_id,
            "width": int(mask.shape[1]),
            "height": int(mask.shape[0]),
            "cells": _bin(mask != 0, "u1"),
            "diagonal": diagonal,
        }
        if weights is not None:
            params["weights"] = _bin(weights, "<f4")
        if cell_size is not None:
            params["cell_size"] = [float(v) for v in cell_size]
        if origin is not None:
            params["origin"] = [float(v) for v in origin]
        if hierarchy is not None:
            params["hierarchy"] = hierarchy
        return dict(self.call("graph.load_grid", params))

    def build_hierarchy(
        self, graph_id: str, progress: Callable[[int, int], None] | None = None, **spec: Any
    ) -> dict[str, Any]:
        """Build HPA* for a loaded grid (``cluster_size``, ``levels``, ``region_clusters``,
        ``smooth``, ``exact_check``, ``long_entrance``, ``repair_ms``); ``progress`` gets
        ``(done, total)`` from this build's ``graph.progress`` notifications."""
        before = self.on_notification

        def forward(method: str, params: dict[str, Any]) -> None:
            if before is not None:
                before(method, params)
            if progress is not None and method == "graph.progress" and params.get("id") == graph_id:
                progress(int(params["done"]), int(params["total"]))

        self.on_notification = forward
        try:
            return dict(self.call("graph.build_hierarchy", {"id": graph_id, **spec}))
        finally:
            self.on_notification = before

    def reachable(self, graph_id: str, start: Any, goal: Any, **unit: Any) -> bool:
        """Whether ``goal`` can be reached from ``start`` at all (grids with a hierarchy); ``size``
        or ``radius`` as in :meth:`query`."""
        params = self.query(graph_id, start, goal, **unit)
        return bool(self.call("path.reachable", params)["reachable"])

    def load_waypoints(
        self,
        graph_id: str,
        ids: npt.ArrayLike,
        positions: npt.ArrayLike,
        edges: npt.ArrayLike,
        *,
        bidirectional: bool | npt.ArrayLike = True,
        weights: npt.ArrayLike | None = None,
        disabled: npt.ArrayLike | None = None,
    ) -> dict[str, Any]:
        """Load a waypoint graph: ids (int64), positions ``(n, dim)``, edges as id pairs."""
        pos = np.asarray(positions, dtype=np.float64)
        params: dict[str, Any] = {
            "id": graph_id,
            "dim": int(pos.shape[1]),
            "ids": _bin(ids, "<i8"),
            "positions": _bin(pos, "<f4"),
            "edges": _bin(np.asarray(edges).reshape(-1, 2), "<i8"),
            "bidirectional": bidirectional if isinstance(bidirectional, bool) else _bin(bidirectional, "u1"),
        }
        if weights is not None:
            params["weights"] = _bin(weights, "<f4")
        if disabled is not None:
            params["disabled"] = _bin(disabled, "u1")
        return dict(self.call("graph.load_waypoints", params))

    def load_navmesh(
        self,
        graph_id: str,
        vertices: npt.ArrayLike,
        polygons: Iterable[Sequence[int]],
        *,
        up_axis: str | None = None,
        agent_radius: float | None = None,
    ) -> dict[str, Any]:
        """Load a navigation mesh: vertices ``(n, dim)`` and polygons as vertex index lists;
        ``agent_radius``: the radius of queries that give none (as the engine's)."""
        verts = np.asarray(vertices, dtype=np.float64)
        polys = [list(p) for p in polygons]
        params: dict[str, Any] = {
            "id": graph_id,
            "dim": int(verts.shape[1]),
            "vertices": _bin(verts, "<f4"),
            "indices": _bin([i for p in polys for i in p], "<i4"),
            "sizes": _bin([len(p) for p in polys], "<i4"),
        }
        if up_axis is not None:
            params["up_axis"] = up_axis
        if agent_radius is not None:
            params["agent_radius"] = float(agent_radius)
        return dict(self.call("graph.load_navmesh", params))

    @staticmethod
    def region(
        region_id: int,
        vertices: npt.ArrayLike,
        polygons: Iterable[Sequence[int]],
        *,
        layers: int = 1,
        enter_cost: float = 0.0,
        travel_cost: float = 1.0,
        transform: Sequence[float] | None = None,
    ) -> dict[str, Any]:
        """The wire map of one region (for :meth:`load_navmap` and a ``regions`` update's
        ``{"op": "set", **region}``); ``transform`` as Godot's Transform2D (6 numbers: x axis,
        y axis, origin) or Transform3D (12: basis columns, origin)."""
        verts = np.asarray(vertices, dtype=np.float64)
        polys = [list(p) for p in polygons]
        out: dict[str, Any] = {
            "id": int(region_id),
            "vertices": _bin(verts, "<f4"),
            "indices": _bin([i for p in polys for i in p], "<i4"),
            "sizes": _bin([len(p) for p in polys], "<i4"),
            "layers": int(layers),
            "enter_cost": float(enter_cost),
            "travel_cost": float(travel_cost),
        }
        if transform is not None:
            out["transform"] = [float(v) for v in transform]
        return out

    @staticmethod
    def link(
        link_id: int,
        start: Sequence[float],
        end: Sequence[float],
        *,
        bidirectional: bool = True,
        enter_cost: float = 0.0,
        travel_cost: float = 1.0,
        layers: int = 1,
        enabled: bool = True,
    ) -> dict[str, Any]:
        """The wire map of one off-mesh link (as Godot's NavigationLink2D/3D)."""
        return {
            "id": int(link_id), "start": [float(v) for v in start], "end": [float(v) for v in end],
            "bidirectional": bool(bidirectional), "enter_cost": float(enter_cost),
            "travel_cost": float(travel_cost), "layers": int(layers), "enabled": bool(enabled),
        }  # fmt: skip

    def load_navmap(
        self,
        graph_id: str,
        regions: Sequence[dict[str, Any]],
        links: Sequence[dict[str, Any]] = (),
        *,
        dim: int = 2,
        up_axis: str | None = None,
        edge_margin: float | None = None,
        link_radius: float | None = None,
        agent_radius: float | None = None,
    ) -> dict[str, Any]:
        """Load a navmesh as several regions (:meth:`region`) joined as Godot joins them, plus
        links (:meth:`link`); the regions and links can then be changed with :meth:`update`
        (``regions=[{"op": ...}]``, ``links=[...]``, see PROTOCOL.md); ``agent_radius`` as in
        :meth:`load_navmesh`."""
        params: dict[str, Any] = {
            "id": graph_id,
            "dim": int(dim),
            "regions": list(regions),
            "links": list(links),
        }
        if up_axis is not None:
            params["up_axis"] = up_axis
        if edge_margin is not None:
            params["edge_margin"] = float(edge_margin)
        if link_radius is not None:
            params["link_radius"] = float(link_radius)
        if agent_radius is not None:
            params["agent_radius"] = float(agent_radius)
        return dict(self.call("graph.load_navmesh", params))

    def update(self, graph_id: str, **fields: Any) -> dict[str, Any]:
        """Send ``graph.update`` with the fields as given (see PROTOCOL.md)."""
        return dict(self.call("graph.update", {"id": graph_id, **fields}))

    def place_agent(self, graph_id: str, agent: int, cell: Sequence[int], *, size: int = 1) -> dict[str, Any]:
        """Place an agent on a grid: its footprint, the ``size x size`` cells from ``cell`` (the
        anchor) rightwards and downwards, blocks other agents' queries."""
        change = {"op": "place", "agent": int(agent), "cell": [int(v) for v in cell], "size": size}
        return self.update(graph_id, agents=[change])

    def update_obstacles(self, graph_id: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        """``graph.update``'s ``obstacles`` (PROTOCOL.md, Obstacles); an array ``polygon`` goes as float32."""
        out = [
            i | {"polygon": np.asarray(i["polygon"], "<f4").tobytes()} if "polygon" in i else i for i in items
        ]
        return self.update(graph_id, obstacles=out)

    def drop(self, graph_id: str) -> dict[str, Any]:
        """Unload a graph."""
        return dict(self.call("graph.drop", {"id": graph_id}))

    def info(self, graph_id: str) -> dict[str, Any]:
        """Describe a loaded graph."""
        return dict(self.call("graph.info", {"id": graph_id}))

    @staticmethod
    def query(graph_id: str, start: Any, goal: Any, **options: Any) -> dict[str, Any]:
        """The parameter map of one ``path.find`` (endpoints as lists, ids as ints); ``options`` go
        in its options map: e.g. ``size=2`` (a unit of 2 x 2 cells: endpoints and nodes are its
        footprint's top-left cell, points its centre) or ``radius=0.8`` (world units; grids and
        navmeshes), ``allow_partial=True``, ``hierarchical=True``."""

        def endpoint(value: Any) -> Any:
            if isinstance(value, int):
                return value
            return [v.item() if isinstance(v, np.generic) else v for v in value]

        params: dict[str, Any] = {"graph": graph_id, "start": endpoint(start), "goal": endpoint(goal)}
        if options:
            params["options"] = options
        return params

    def find(self, graph_id: str, start: Any, goal: Any, **options: Any) -> dict[str, Any]:
        """One path: ``{"status", "points", "nodes", "cost", "expanded"}``."""
        return dict(self.call("path.find", self.query(graph_id, start, goal, **options)))

    def find_many(self, queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Many paths in one request (build each with :meth:`query`); results in order."""
        return list(self.call("path.find_many", {"queries": queries})["results"])

    def find_packed(
        self, graph_id: str, starts: npt.ArrayLike, goals: npt.ArrayLike, **options: Any
    ) -> dict[str, Any]:
        """``path.find_packed``: the paths between ``starts[i]`` and ``goals[i]`` (integer arrays:
        cells ``(x, y)`` on any grid; float arrays: world positions, on a grid loaded with
        ``cell_size`` / ``origin``) with one options map (one unit ``size`` or ``radius`` for the
        batch, as in :meth:`query`). Returns the answer with its arrays
        decoded: ``status`` (uint8: 0 found, 1 partial, 2 no path, 3 budget exhausted, 255
        error), ``costs``, ``expanded``, ``offsets`` (query ``i``'s points and nodes are
        ``[offsets[i], offsets[i + 1])``), ``points`` (``(n, 2)`` float32), ``nodes`` (int64) and
        ``errors`` (``[index, error map]``). On a navmesh: float ``(n, 2)`` or ``(n, 3)`` positions;
        ``offsets`` index ``points`` and ``node_offsets`` the polygons in ``nodes``."""
        s, g = np.asarray(starts), np.asarray(goals)
        cells = s.dtype.kind in "iu" and g.dtype.kind in "iu"
        dtype = "<i4" if cells else "<f4"
        dim = 3 if s.ndim == 2 and s.shape[1] == 3 else 2  # 3: positions on a 3D navmesh
        params: dict[str, Any] = {
            "graph": graph_id,
            "starts": _bin(s.reshape(-1, dim), dtype),
            "goals": _bin(g.reshape(-1, dim), dtype),
            "cells": cells,
        }
        if dim == 3:
            params["dim"] = 3
        if options:
            params["options"] = options
        answer = dict(self.call("path.find_packed", params))
        return {
            "status": np.frombuffer(answer["status"], dtype=np.uint8),
            "costs": np.frombuffer(answer["costs"], dtype="<f8"),
            "expanded": np.frombuffer(answer["expanded"], dtype="<i8"),
            "offsets": np.frombuffer(answer["offsets"], dtype="<i8"),
            "points": np.frombuffer(answer["points"], dtype="<f4").reshape(-1, dim),
            "nodes": np.frombuffer(answer["nodes"], dtype="<i8"),
            "errors": answer["errors"],
            **(
                {"node_offsets": np.frombuffer(answer["node_offsets"], dtype="<i8")}
                if "node_offsets" in answer
                else {}
            ),
        }

    def request_field(
        self,
        graph_id: str,
        goals: npt.ArrayLike,
        starts: npt.ArrayLike,
        *,
        agents_block: bool = False,
        fetch: bool = False,
        costs: bool = False,
        size: int | None = None,
        radius: float | None = None,
    ) -> dict[str, Any]:
        """Make or extend the flow field toward ``goals`` so it covers ``starts`` (cells ``(x, y)``)
        for units of ``size`` cells (or ``radius`` world units; cells are then anchors, the
        footprints' top-left cells); ``{"field", "tiles" (computed now), "tile_size", "tiles_x",
        "tiles_y", "computed", "size"}``, and with ``fetch`` the starts' tiles as ``field.tiles``
        sends them (``"fetched"``, ``"directions"``, with ``costs`` ``"costs"``)."""
        params: dict[str, Any] = {
            "graph": graph_id,
            "goals": _bin(np.asarray(goals).reshape(-1, 2), "<i4"),
            "starts": _bin(np.asarray(starts).reshape(-1, 2), "<i4"),
        }
        for key, on in (("agents_block", agents_block), ("fetch", fetch), ("costs", costs)):
            if on:
                params[key] = True
        params.update({k: v for k, v in (("size", size), ("radius", radius)) if v is not None})
        return dict(self.call("field.request", params))

    def field_tiles(
        self, field_id: str, tiles: Sequence[int], *, costs: bool = False
    ) -> dict[int, tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32] | None]]:
        """Tile id -> ``(directions (cs, cs) uint8, costs (cs, cs) float32 or None)``."""
        answer = self.call(
            "field.tiles", {"field": field_id, "tiles": [int(t) for t in tiles], "costs": costs}
        )
        cs = int(answer["tile_size"])
        dirs = np.frombuffer(answer["directions"], dtype=np.uint8).reshape(-1, cs, cs)
        cost = np.frombuffer(answer["costs"], dtype="<f4").reshape(-1, cs, cs) if costs else None
        return {int(t): (dirs[i], None if cost is None else cost[i]) for i, t in enumerate(answer["tiles"])}
