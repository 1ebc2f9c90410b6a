"""Navmesh agent radius: time to shrink the benchmark meshes for a radius, and queries on the shrunk
mesh against the mesh as loaded (in process, python_core only).

Usage::

    .venv/bin/python bench/navmesh_radius.py [--radius 1.0] [--data ../shared/benchmarks/mesh]
        [--meshes arena,aurora] [--sample 300]

Per mesh: the shrink's time (the first of a fresh cache, so the cost a first query for a new radius
pays) and the polygon counts before and after; then each scenario query of ``<mesh>.scen`` (``--sample``
evenly spaced, 0 = all) in both modes, default (corridor + funnel) and ``optimal`` (Polyanya),
on the mesh as loaded and with the radius, and the median time per query, path length and how
many were found. Radius units are the mesh's (arena and aurora: one map cell).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from python_core import QueryOptions  # noqa: E402
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios  # noqa: E402
from python_core.navigation import NavMeshNavigator  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "benchmarks" / "mesh"


def _queries(nav: NavMeshNavigator, rows: list[tuple[np.ndarray, np.ndarray]], options: QueryOptions) -> str:
    times, lengths, found = [], [], 0
    for start, goal in rows:
        began = time.perf_counter()
        result = nav.find_path(start, goal, options)
        times.append(time.perf_counter() - began)
        if result.found:
            found += 1
            lengths.append(float(np.linalg.norm(np.diff(result.points, axis=0), axis=1).sum()))
    mean = statistics.fmean(lengths) if lengths else float("nan")
    return f"{statistics.median(times) * 1e3:8.3f} ms  found {found:4d}/{len(rows)}  mean length {mean:9.2f}"


def report(path: Path, radius: float, sample: int) -> None:
    mesh = load_polyanya_mesh(path)
    nav = NavMeshNavigator(mesh)
    scen = read_mesh_scenarios(path.with_suffix(".scen"))
    step = max(1, len(scen) // sample) if sample else 1
    rows = [(r.start, r.goal) for r in scen[::step]]
    began = time.perf_counter()
    shrunk = nav.shrunk(radius)
    seconds = time.perf_counter() - began
    after = shrunk.mesh.polygon_count if shrunk.mesh is not None else 0
    print(f"{path.stem}: {mesh.polygon_count} polygons; shrunk for radius {radius:g} in {seconds:.3f} s "
          f"-> {after} polygons")  # fmt: skip
    for optimal in (False, True):
        mode = "optimal" if optimal else "default"
        plain = _queries(nav, rows, QueryOptions(optimal=optimal))
        wide = _queries(nav, rows, QueryOptions(optimal=optimal, radius=radius))
        print(f"  {mode:8s} as loaded: {plain}")
        print(f"  {mode:8s} radius   : {wide}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--radius", type=float, default=1.0)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--meshes", default="arena,aurora")
    parser.add_argument("--sample", type=int, default=300, help="queries per mesh (0: all)")
    args = parser.parse_args()
    NavMeshNavigator(load_polyanya_mesh(args.data / "arena.mesh")).find_path(
        np.array([2.0, 2.0]), np.array([3.0, 3.0]), QueryOptions(radius=0.1)
    )  # kernels loaded (or compiled) before anything is timed
    for name in args.meshes.split(","):
        report(args.data / f"{name}.mesh", args.radius, args.sample)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
