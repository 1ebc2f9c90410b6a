"""A navigation map of several regions and links, as Godot's ``NavigationServer`` map, kept up to date.

Quick start::

    from python_core.navmesh.navmap import NavMap, NavRegion
    nav = NavMap(dim=2, edge_margin=1.0)
    nav.set_region(1, NavRegion([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    nav.set_region(2, NavRegion([[2.5, 0], [5, 0], [5, 2], [2.5, 2]], [[0, 1, 2, 3]]))
    assert nav.mesh.find_path((1, 1), (4, 1)).found  # the 0.5 gap is within the margin

Each region is a navigation mesh in its own frame with a transform (``NavigationRegion2D/3D``),
layers and enter/travel costs; links are :class:`~python_core.navmesh.links.NavLink`. The map
builds one :class:`~python_core.navmesh.NavMesh` of every region (region ids are its polygons'
``region``): adding, removing or moving a region re-stitches only its polygons and those beside
them (:mod:`~python_core.navmesh.region_stitch`; nothing is sent again), a link change rebuilds
the search graph; changing layers or enabling a link changes the built mesh in place;
obstacles (:meth:`NavMap.update_obstacles`) cut it locally and stay across rebuilds.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.errors import InvalidGraphError
from python_core.navmesh.build import flatten
from python_core.navmesh.cut import checked_changes, loaded_of
from python_core.navmesh.links import NavLink, check_cost, check_layers
from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.region_stitch import NewPolygons, rebuild_regions
from python_core.obstacles import ObstacleShape

__all__ = ["NavMap", "NavRegion", "check_transform"]


def check_transform(transform: npt.ArrayLike | None, dim: int) -> F64:
    """An affine transform as a ``(dim, dim + 1)`` matrix (``world = m[:, :dim] @ p + m[:, dim]``).

    Accepts None (identity), that matrix, or Godot's layout flattened: ``Transform2D`` as 6
    numbers (x axis, y axis, origin) and ``Transform3D`` as 12 (basis x, y, z columns, origin).

    Raises:
        InvalidGraphError: another size, or non-finite numbers.
    """
    if transform is None:
        return np.hstack([np.eye(dim), np.zeros((dim, 1))])
    m = np.asarray(transform, dtype=np.float64)
    if m.shape == (dim, dim + 1):
        out = m
    elif m.shape == (dim * (dim + 1),):
        out = m.reshape(dim + 1, dim).T  # columns: the axes, then the origin
    else:
        raise InvalidGraphError(f"a {dim}D transform has {dim * (dim + 1)} numbers, got shape {m.shape}")
    if not np.all(np.isfinite(out)):
        raise InvalidGraphError("transform numbers must be finite")
    return np.ascontiguousarray(out)


@dataclass(frozen=True, slots=True, eq=False)
class NavRegion:
    """One region: convex polygons over its own vertices, placed by ``transform``.

    Attributes:
        vertices: ``(n, dim)`` local coordinates.
        polygons: vertex index lists (or a flat index array with ``sizes``).
        sizes: vertex counts when ``polygons`` is flat.
        layers: navigation layer mask of every polygon (Godot's ``navigation_layers``, default 1).
        enter_cost: paid when a path enters this region from another.
        travel_cost: multiplies distances travelled in it.
        transform: see :func:`check_transform` (None: identity).
    """

    vertices: npt.ArrayLike
    polygons: Sequence[Sequence[int]] | npt.ArrayLike
    sizes: npt.ArrayLike | None = None
    layers: int = 1
    enter_cost: float = 0.0
    travel_cost: float = 1.0
    transform: npt.ArrayLike | None = None

    def checked(self, dim: int) -> tuple[F64, I64, I64]:
        """``(world vertices, ptr, flat)``, validated.

        Raises:
            InvalidGraphError: vertices of another dimension, bad polygons, costs, mask or transform.
        """
        verts = np.asarray(self.vertices, dtype=np.float64)
        if verts.ndim != 2 or verts.shape[1] != dim or not np.all(np.isfinite(verts)):
            raise InvalidGraphError(f"region vertices must be a finite (n, {dim}) array, got {verts.shape}")
        ptr, flat = flatten(self.polygons, self.sizes)
        if flat.size and (flat.min() < 0 or flat.max() >= verts.shape[0]):
            raise InvalidGraphError(f"a region polygon has a vertex index outside 0..{verts.shape[0] - 1}")
        check_layers(self.layers, "region layers")
        check_cost(self.enter_cost, "region enter_cost")
        check_cost(self.travel_cost, "region travel_cost")
        m = check_transform(self.transform, dim)
        return verts @ m[:, :dim].T + m[:, dim], ptr, flat


class NavMap:
    """Regions and links by id, and the :class:`NavMesh` they make.

    Args:
        dim: 2 or 3.
        up_axis: 3D only (0, 1 or 2; Godot: 1).
        edge_margin: Godot's ``edge_connection_margin`` (default 1.0 in 2D, 0.25 in 3D, as Godot).
        link_radius: Godot's ``link_connection_radius`` (default 4.0 in 2D, 1.0 in 3D).
        merge_margin, portal_samples: as :class:`NavMesh`.

    Raises:
        InvalidGraphError: a bad dimension, axis or margin.
    """

    def __init__(
        self,
        *,
        dim: int = 2,
        up_axis: int = 1,
        edge_margin: float | None = None,
        link_radius: float | None = None,
        merge_margin: float = 1e-6,
        portal_samples: int = 3,
    ) -> None:
        if dim not in (2, 3):
            raise InvalidGraphError(f"dim must be 2 or 3, got {dim!r}")
        self.dim = dim
        self.up_axis = up_axis
        self.edge_margin = check_cost(
            (1.0 if dim == 2 else 0.25) if edge_margin is None else edge_margin, "edge_margin"
        )
        self.link_radius = check_cost(
            (4.0 if dim == 2 else 1.0) if link_radius is None else link_radius, "link_radius"
        )
        self.merge_margin = merge_margin
        self.portal_samples = portal_samples
        self.regions: dict[int, NavRegion] = {}
        self.links: dict[int, NavLink] = {}
        self._mesh: NavMesh | None = None
        self.obstacles: dict[int, ObstacleShape] = {}
        # the last mesh built (as loaded, before obstacle cuts) and the regions changed since
        self._built: NavMesh | None = None
        self._stale: set[int] = set()

    # ---- reading ---------------------------------------------------------------------------------
    @property
    def mesh(self) -> NavMesh:
        """The mesh of every region and link (built on first use after a change).

        Raises:
            InvalidGraphError: no region yet, or a region's polygons are invalid.
        """
        if self._mesh is None:
            if not self.regions:
                raise InvalidGraphError("a navigation map needs at least one region")
            local = self._built is not None and len(self._stale) < len(self.regions)
            mesh = self._rebuilt() if local else self._build()
            if self.obstacles:
                mesh.update_obstacles(self.obstacles)
            # the loaded mesh after the cut (the cut swaps the mesh's arrays in place: taken before,
            # it would be the cut mesh, and the next rebuild would keep the obstacles' holes)
            self._built, self._stale = loaded_of(mesh), set()
            self._mesh = mesh
        return self._mesh

    def region_polygons(self, region_id: int) -> I64:
        """The polygon ids of a region in the mesh as built (before obstacle cuts)."""
        self._region(region_id)
        return np.flatnonzero(loaded_of(self.mesh).region == int(region_id))

    def _rebuilt(self) -> NavMesh:
        """The mesh after region changes, stitched again only where they are (the rest of the
        last mesh built kept: :mod:`~python_core.navmesh.region_stitch`)."""
        assert self._built is not None
        changed: dict[int, NewPolygons | None] = {}
        for rid in self._stale:
            r = self.regions.get(rid)
            changed[rid] = (
                None if r is None else (*r.checked(self.dim), (r.layers, r.enter_cost, r.travel_cost))
            )
        return rebuild_regions(self._built, changed, [self.links[k] for k in sorted(self.links)])

    def _build(self) -> NavMesh:
        verts: list[F64] = []
        polys: list[I64] = []
        sizes: list[I64] = []
        region, layers, enter, travel = [], [], [], []
        base = 0
        for rid in sorted(self.regions):
            r = self.regions[rid]
            world, ptr, flat = r.checked(self.dim)
            count = ptr.shape[0] - 1
            verts.append(world)
            polys.append(flat + base)
            sizes.append(np.diff(ptr))
            region += [rid] * count
            layers += [r.layers] * count
            enter += [r.enter_cost] * count
            travel += [r.travel_cost] * count
            base += world.shape[0]
        ordered = [self.links[k] for k in sorted(self.links)]
        return NavMesh(
            np.vstack(verts), np.concatenate(polys), sizes=np.concatenate(sizes), up_axis=self.up_axis,
            merge_margin=self.merge_margin, portal_samples=self.portal_samples, regions=region,
            edge_margin=self.edge_margin, layers=layers, enter_costs=enter, travel_costs=travel,
            links=ordered, link_radius=self.link_radius,
        )  # fmt: skip

    def copy(self) -> NavMap:
        """A copy sharing the (immutable) regions and links and the built mesh until it changes."""
        out = copy.copy(self)
        out.regions = dict(self.regions)
        out.links = dict(self.links)
        out._stale = set(self._stale)
        out.obstacles = dict(self.obstacles)
        return out

    # ---- obstacles -------------------------------------------------------------------------------
    @property
    def obstacle_count(self) -> int:
        """Obstacles cutting the map."""
        return len(self.obstacles)

    def update_obstacles(
        self, set_: Mapping[int, ObstacleShape], remove: Iterable[int] = (), clear: bool = False
    ) -> None:
        """Obstacles as :meth:`NavMesh.update_obstacles` (``clear``, then ``remove``, then ``set_``),
        kept across rebuilds; the built mesh is re-cut locally (a copy of it: a map copied before
        keeps its mesh as it was).

        Raises:
            InvalidGraphError: an unknown id in ``remove``, a bad shape (nothing changes).
        """
        remove = list(remove)
        after, _ = checked_changes(self.obstacles, set_, remove, clear)
        if self._mesh is not None:
            mesh = copy.copy(self._mesh)
            mesh.update_obstacles(set_, remove, clear)
            self._mesh = mesh
        self.obstacles = after

    # ---- changes ---------------------------------------------------------------------------------
    def set_region(self, region_id: int, region: NavRegion) -> None:
        """Add or replace a region (checked now: a bad one changes nothing)."""
        if not isinstance(region, NavRegion):
            raise InvalidGraphError(f"a region must be a NavRegion, got {type(region).__name__}")
        region.checked(self.dim)
        self.regions[int(region_id)] = region
        self._changed(region_id)

    def remove_region(self, region_id: int) -> None:
        """Remove a region. Raises InvalidGraphError when there is none of that id."""
        self._region(region_id)
        del self.regions[int(region_id)]
        self._changed(region_id)

    def move_region(self, region_id: int, transform: npt.ArrayLike | None) -> None:
        """Give a region a new transform (see :func:`check_transform`)."""
        check_transform(transform, self.dim)
        self.regions[int(region_id)] = replace(self._region(region_id), transform=transform)
        self._changed(region_id)

    def set_region_layers(self, region_id: int, layers: int) -> None:
        """Change a region's layer mask (in place: no rebuild)."""
        region = self._region(region_id)
        check_layers(layers, "region layers")
        self.regions[int(region_id)] = replace(region, layers=int(layers))
        if self._mesh is not None:
            self._mesh.set_layers(self.region_polygons(region_id), int(layers))
        else:
            self._changed(region_id)  # the last mesh built has the old mask

    def set_region_costs(self, region_id: int, enter_cost: float, travel_cost: float) -> None:
        """Change a region's enter and travel costs."""
        region = self._region(region_id)
        self.regions[int(region_id)] = replace(
            region,
            enter_cost=check_cost(enter_cost, "region enter_cost"),
            travel_cost=check_cost(travel_cost, "region travel_cost"),
        )
        self._changed(region_id)

    def set_link(self, link_id: int, link: NavLink) -> None:
        """Add or replace a link."""
        if not isinstance(link, NavLink) or link.start.shape[0] != self.dim:
            raise InvalidGraphError(f"a link must be a NavLink of {self.dim} coordinates")
        self.links[int(link_id)] = link
        self._mesh = None

    def remove_link(self, link_id: int) -> None:
        """Remove a link. Raises InvalidGraphError when there is none of that id."""
        self._link(link_id)
        del self.links[int(link_id)]
        self._mesh = None

    def set_link_enabled(self, link_id: int, enabled: bool) -> None:
        """Enable or disable a link (in place: no rebuild)."""
        link = self._link(link_id)
        self.links[int(link_id)] = replace(link, enabled=bool(enabled))
        if self._mesh is not None:
            self._mesh.set_link_enabled(sorted(self.links).index(int(link_id)), bool(enabled))

    def _changed(self, region_id: int) -> None:
        """A region's polygons must be built again (the others are kept: a local rebuild)."""
        self._stale.add(int(region_id))
        self._mesh = None

    def _region(self, region_id: int) -> NavRegion:
        if int(region_id) not in self.regions:
            raise InvalidGraphError(f"no region {region_id}")
        return self.regions[int(region_id)]

    def _link(self, link_id: int) -> NavLink:
        if int(link_id) not in self.links:
            raise InvalidGraphError(f"no link {link_id}")
        return self.links[int(link_id)]
