"""Navigation maps (regions and links) as records: the maps ``graph.load_navmesh`` and
``graph.update`` carry, turned into :class:`~python_core.navmesh.navmap.NavMap` parts.

Quick start::

    import numpy as np
    from python_core.formats.navmap_record import navmap_from
    square = {"id": 1, "vertices": np.array([0, 0, 1, 0, 1, 1, 0, 1], "<f4").tobytes(),
              "indices": np.arange(4, dtype="<i4").tobytes(), "sizes": np.array([4], "<i4").tobytes()}
    nav = navmap_from({"dim": 2, "regions": [square]})
    assert nav.mesh.polygon_count == 1

Every reader validates what it reads and raises :class:`InvalidGraphError` naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from python_core.errors import InvalidGraphError
from python_core.navmesh.links import NavLink, check_cost, check_layers
from python_core.navmesh.navmap import NavMap, NavRegion, check_transform

__all__ = ["LINK_KEYS", "MAP_KEYS", "REGION_KEYS", "link_from", "navmap_from", "region_from"]

MAP_KEYS = ("dim", "up_axis", "regions", "links", "edge_margin", "link_radius")
REGION_KEYS = ("id", "vertices", "indices", "sizes", "layers", "enter_cost", "travel_cost", "transform")
LINK_KEYS = ("id", "start", "end", "bidirectional", "enter_cost", "travel_cost", "layers", "enabled")
_UP_AXES = {"x": 0, "y": 1, "z": 2}


def _map(value: Any, allowed: tuple[str, ...], where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidGraphError(f"{where} must be a map, got {type(value).__name__}")
    extra = sorted(str(k) for k in value if k not in allowed)
    if extra:
        raise InvalidGraphError(f"{where}: unknown field(s) {extra}; expected some of {list(allowed)}")
    return value


def _id(value: Mapping[str, Any], where: str) -> int:
    got = value.get("id")
    if not isinstance(got, int) or isinstance(got, bool) or not 0 <= got < 1 << 62:
        raise InvalidGraphError(f"{where}: 'id' must be an integer >= 0, got {got!r:.40}")
    return got


def _number(value: Mapping[str, Any], key: str, default: float, where: str) -> float:
    got = value.get(key, default)
    if isinstance(got, bool) or not isinstance(got, int | float):
        raise InvalidGraphError(f"{where}: {key!r} must be a number, got {got!r:.40}")
    return check_cost(got, f"{where}: {key!r}")


def _bin(value: Mapping[str, Any], key: str, item: int, where: str) -> bytes:
    data = value.get(key)
    if not isinstance(data, bytes | bytearray | memoryview) or len(bytes(data)) % item:
        raise InvalidGraphError(f"{where}: {key!r} must be bin of {item}-byte items")
    return bytes(data)


def _vector(value: Mapping[str, Any], key: str, dim: int, where: str) -> list[float]:
    got = value.get(key)
    if (
        not isinstance(got, list | tuple)
        or len(got) != dim
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in got)
    ):
        raise InvalidGraphError(f"{where}: {key!r} must be {dim} finite numbers, got {got!r:.60}")
    return [float(v) for v in got]


def _transform(value: Mapping[str, Any], dim: int, where: str) -> np.ndarray[Any, Any] | None:
    got = value.get("transform")
    if got is None:
        return None
    if not isinstance(got, list | tuple) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in got
    ):
        raise InvalidGraphError(f"{where}: 'transform' must be a list of numbers, got {got!r:.60}")
    try:
        return check_transform(np.asarray(got, dtype=np.float64), dim)
    except InvalidGraphError as exc:
        raise InvalidGraphError(f"{where}: {exc}") from None


def region_from(value: Any, dim: int, where: str = "region") -> tuple[int, NavRegion]:
    """``(id, region)`` of a region map (see PROTOCOL.md, ``graph.load_navmesh``)."""
    value = _map(value, REGION_KEYS, where)
    rid = _id(value, where)
    verts = np.frombuffer(_bin(value, "vertices", 4 * dim, where), dtype="<f4").astype(np.float64)
    if not np.all(np.isfinite(verts)):
        raise InvalidGraphError(f"{where}: 'vertices' must be finite")
    indices = np.frombuffer(_bin(value, "indices", 4, where), dtype="<i4").astype(np.int64)
    sizes = np.frombuffer(_bin(value, "sizes", 4, where), dtype="<i4").astype(np.int64)
    layers = value.get("layers", 1)
    region = NavRegion(
        verts.reshape(-1, dim), indices, sizes=sizes,
        layers=check_layers(layers, f"{where}: 'layers'"),
        enter_cost=_number(value, "enter_cost", 0.0, where),
        travel_cost=_number(value, "travel_cost", 1.0, where),
        transform=_transform(value, dim, where),
    )  # fmt: skip
    try:
        region.checked(dim)
    except InvalidGraphError as exc:
        raise InvalidGraphError(f"{where} {rid}: {exc}") from None
    return rid, region


def link_from(value: Any, dim: int, where: str = "link") -> tuple[int, NavLink]:
    """``(id, link)`` of a link map (see PROTOCOL.md, ``graph.load_navmesh``)."""
    value = _map(value, LINK_KEYS, where)
    lid = _id(value, where)
    for key in ("bidirectional", "enabled"):
        if not isinstance(value.get(key, True), bool):
            raise InvalidGraphError(f"{where}: {key!r} must be a bool, got {value.get(key)!r:.40}")
    link = NavLink(
        np.asarray(_vector(value, "start", dim, where)), np.asarray(_vector(value, "end", dim, where)),
        bidirectional=bool(value.get("bidirectional", True)),
        enter_cost=_number(value, "enter_cost", 0.0, where),
        travel_cost=_number(value, "travel_cost", 1.0, where),
        layers=check_layers(value.get("layers", 1), f"{where}: 'layers'"),
        enabled=bool(value.get("enabled", True)),
    )  # fmt: skip
    return lid, link


def navmap_from(record: Mapping[str, Any]) -> NavMap:
    """A :class:`NavMap` (built, so a bad region fails here) of a load record with ``regions``.

    Raises:
        InvalidGraphError: unknown fields, bad values, repeated ids, invalid polygons.
    """
    record = _map(record, MAP_KEYS, "graph.load_navmesh")
    dim = record.get("dim")
    if dim not in (2, 3) or isinstance(dim, bool):
        raise InvalidGraphError(f"dim must be 2 or 3, got {dim!r:.20}")
    up = record.get("up_axis", "y")
    if up not in _UP_AXES:
        raise InvalidGraphError(f"up_axis must be one of {list(_UP_AXES)}, got {up!r:.20}")
    margin = record.get("edge_margin")
    radius = record.get("link_radius")
    nav = NavMap(
        dim=int(dim), up_axis=_UP_AXES[str(up)],
        edge_margin=None if margin is None else _number(record, "edge_margin", 0.0, "graph.load_navmesh"),
        link_radius=None if radius is None else _number(record, "link_radius", 0.0, "graph.load_navmesh"),
    )  # fmt: skip
    regions, links = record.get("regions"), record.get("links", [])
    if not isinstance(regions, list) or not regions:
        raise InvalidGraphError("regions must be a non-empty list of region maps")
    if not isinstance(links, list):
        raise InvalidGraphError("links must be a list of link maps")
    for i, raw in enumerate(regions):
        rid, region = region_from(raw, int(dim), f"regions[{i}]")
        if rid in nav.regions:
            raise InvalidGraphError(f"regions[{i}]: id {rid} is used twice")
        nav.set_region(rid, region)
    for i, raw in enumerate(links):
        lid, link = link_from(raw, int(dim), f"links[{i}]")
        if lid in nav.links:
            raise InvalidGraphError(f"links[{i}]: id {lid} is used twice")
        nav.set_link(lid, link)
    nav.mesh  # noqa: B018 - built now, so a bad map fails at load
    return nav
