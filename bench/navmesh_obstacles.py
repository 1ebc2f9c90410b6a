"""Moving obstacles and region moves on an aurora-sized navmesh (in process, python_core only).

Usage::

    .venv/bin/python bench/navmesh_obstacles.py [--data ../shared/benchmarks/mesh] [--mesh aurora]
        [--obstacles 100] [--updates 60] [--radius 3.0] [--tiles 4] [--moves 10] [--regions]

Obstacles: ``--obstacles`` circles (16-gons) of ``--radius`` cells on the mesh, each moved ``--updates``
times by a seeded random walk (half a cell a step): the time of one ``update_obstacles`` call moving
all of them (what a frame of many moving obstacles costs the sidecar), then of calls moving one
of them while all stand, and the cut mesh's polygon count. After the last update a sample of
paths (both modes) is checked against the obstacles with shapely (none may enter one). With
``--regions`` the same runs on the mesh split into ``--tiles`` x ``--tiles`` regions (a map of
unwelded regions joined across the edge margin), patched locally (after) and re-cut from the
loaded mesh at every update (before: what maps of several regions did until issue 40's fix).

Region move: the mesh split into ``--tiles`` x ``--tiles`` regions of a navigation map (polygons by
their centre), one region moved there and back ``--moves`` times by less than the weld (so nothing
overlaps, yet it is stitched again): the map's full rebuild (what every region change cost before)
against its local rebuild, and ``NavMeshNavigator.apply`` (the local rebuild, its shrink cache
renewed, no mode probe for a move). Times are medians and 90th percentiles of wall-clock time, and
medians of process CPU time; say whether the machine was loaded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import shapely

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from python_core import QueryOptions  # noqa: E402
from python_core.formats.polyanya import load_polyanya_mesh  # noqa: E402
from python_core.navigation import NavMeshNavigator  # noqa: E402
from python_core.navigation.updates import MoveRegion  # noqa: E402
from python_core.navmesh import NavMesh, cut  # noqa: E402
from python_core.navmesh.navmap import NavMap, NavRegion  # noqa: E402
from python_core.obstacles import ObstacleShape  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "benchmarks" / "mesh"


Timing = tuple[float, float]
"""Wall-clock and process CPU seconds of one call: on a loaded machine the wall time says more
about the neighbours than about the code."""


def _ms(samples: list[Timing]) -> str:
    wall = sorted(w for w, _ in samples)
    cpu = sorted(c for _, c in samples)
    p90 = wall[min(len(wall) - 1, int(0.9 * len(wall)))]
    return (
        f"wall median {statistics.median(wall) * 1e3:7.1f} ms, p90 {p90 * 1e3:7.1f} ms; "
        f"process CPU median {statistics.median(cpu) * 1e3:7.1f} ms ({len(wall)} runs)"
    )


def _timed(work: Callable[[], object]) -> Timing:
    t0, c0 = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - t0, time.process_time() - c0


def _on_mesh(mesh: NavMesh, count: int, rng: np.random.Generator) -> np.ndarray:
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    points = rng.uniform(lo, hi, size=(count * 20, 2))
    inside = [p for p in points if mesh.locate(p) >= 0]
    return np.array(inside[:count])


def obstacles(
    source: NavMesh | NavMap, count: int, updates: int, radius: float, *, optimal: bool = True
) -> None:
    rng = np.random.default_rng(40)
    nav = NavMeshNavigator(source)
    mesh = nav.mesh
    loaded = mesh.polygon_count
    centres = _on_mesh(mesh, count, rng)

    def shapes(at: np.ndarray) -> dict[int, ObstacleShape]:
        return {i: ObstacleShape.circle(at[i], radius) for i in range(len(at))}

    first, _ = _timed(lambda: nav.update_obstacles(shapes(centres)))
    print(f"  place {count} obstacles (radius {radius:g}): {first * 1e3:.1f} ms; "
          f"{loaded} -> {nav.mesh.polygon_count} polygons")  # fmt: skip
    every: list[Timing] = []
    for _ in range(updates):
        centres = centres + rng.normal(0.0, 0.5, size=centres.shape)
        moved = shapes(centres)
        every.append(_timed(lambda moved=moved: nav.update_obstacles(moved)))  # type: ignore[misc]
    print(f"  move all {count} at once (one call):  {_ms(every)}")
    one: list[Timing] = []
    for step in range(updates):
        i = step % count
        centres[i] += rng.normal(0.0, 0.5, size=2)
        moved = {i: ObstacleShape.circle(centres[i], radius)}
        one.append(_timed(lambda moved=moved: nav.update_obstacles(moved)))  # type: ignore[misc]
    print(f"  move one of {count} (one call):       {_ms(one)}")
    blocked = shapely.union_all([s.geometry() for s in shapes(centres).values()]).buffer(-1e-6)
    ends = _on_mesh(nav.mesh, 60, rng)
    entered = found = 0
    for s, g in zip(ends[::2], ends[1::2], strict=True):
        for exact in (False, True) if optimal else (False,):
            res = nav.find_path(s, g, QueryOptions(optimal=exact))
            if res.found:
                found += 1
                entered += int(shapely.LineString(res.points).intersects(blocked))
    modes = "both modes" if optimal else "default mode only"
    print(f"  after the last update ({modes}): {found} paths found, {entered} entering an obstacle")


def _regions(mesh: NavMesh, tiles: int) -> NavMap:
    centres = np.add.reduceat(mesh.vertices[mesh.poly_verts], mesh.poly_ptr[:-1], axis=0)
    centres /= np.diff(mesh.poly_ptr)[:, None]
    lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    cell = np.minimum(((centres - lo) / (hi - lo) * tiles).astype(int), tiles - 1)
    tile = cell[:, 1] * tiles + cell[:, 0]
    nav = NavMap(dim=2, edge_margin=0.5)
    for t in np.unique(tile).tolist():
        polys = [mesh.polygon(p) for p in np.flatnonzero(tile == t).tolist()]
        used = np.unique(np.concatenate(polys))
        remap = np.full(mesh.vertices.shape[0], -1)
        remap[used] = np.arange(used.shape[0])
        nav.set_region(t, NavRegion(mesh.vertices[used], [remap[p].tolist() for p in polys]))
    return nav


def region_move(mesh: NavMesh, tiles: int, moves: int) -> None:
    navmap = _regions(mesh, tiles)
    t0 = time.perf_counter()
    nav = NavMeshNavigator(navmap)
    print(f"  map of {len(navmap.regions)} regions, {nav.mesh.polygon_count} polygons: built in "
          f"{(time.perf_counter() - t0) * 1e3:.0f} ms (with the mode probe)")  # fmt: skip
    moved = sorted(navmap.regions)[len(navmap.regions) // 2 + tiles // 2]
    size = int(np.count_nonzero(nav.mesh.region == moved))
    full: list[Timing] = []
    local: list[Timing] = []
    apply: list[Timing] = []
    for k in range(moves):
        # there and back by less than the weld: the region is stitched again, nothing overlaps
        shift = [[1.0, 0.0, 1e-7 * ((k + 1) % 2)], [0.0, 1.0, 0.0]]
        navmap.move_region(moved, shift)
        full.append(_timed(navmap._build))  # what every region change cost before (issue 40)
        local.append(_timed(lambda: navmap.mesh))
        apply.append(_timed(lambda shift=shift: nav.apply([MoveRegion(moved, shift)])))  # type: ignore[misc]
    print(f"  move region {moved} ({size} polygons), full rebuild (before): {_ms(full)}")
    print(f"  move region {moved} ({size} polygons), local rebuild (after): {_ms(local)}")
    print(f"  the same through NavMeshNavigator.apply:            {_ms(apply)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--mesh", default="aurora")
    parser.add_argument("--obstacles", type=int, default=100)
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--radius", type=float, default=3.0)
    parser.add_argument("--tiles", type=int, default=4)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--regions", action="store_true", help="obstacles on a map of regions too")
    args = parser.parse_args()
    mesh = load_polyanya_mesh(args.data / f"{args.mesh}.mesh")
    mesh.find_path(mesh.vertices[mesh.polygon(0)].mean(axis=0), mesh.vertices[mesh.polygon(1)].mean(axis=0))
    print(f"{args.mesh}: {mesh.polygon_count} polygons")
    obstacles(mesh, args.obstacles, args.updates, args.radius)
    if args.regions:
        fresh = load_polyanya_mesh(args.data / f"{args.mesh}.mesh")
        print(f"{args.mesh} as {args.tiles} x {args.tiles} regions, patched locally (after):")
        # optimal paths not checked here: a Polyanya search on this cut map of margin-joined regions
        # can loop (lone successors between two polygons, memory without bound; reported, issue 40)
        obstacles(_regions(fresh, args.tiles), args.obstacles, args.updates, args.radius, optimal=False)
        print(f"{args.mesh} as {args.tiles} x {args.tiles} regions, re-cut from the loaded mesh (before):")
        patches, cut.PATCHES = cut.PATCHES, 0  # every update a full re-cut, as such maps had
        obstacles(_regions(fresh, args.tiles), args.obstacles, args.updates, args.radius, optimal=False)
        cut.PATCHES = patches
    region_move(load_polyanya_mesh(args.data / f"{args.mesh}.mesh"), args.tiles, args.moves)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
