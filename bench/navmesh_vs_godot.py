"""Navmesh paths: python_core's NavMesh against Godot's NavigationServer2D/3D on the benchmark meshes.

Usage::

    .venv/bin/python bench/navmesh_vs_godot.py [--aurora-sample 0] [--godot .godot/godot]
        [--data ../shared/benchmarks/mesh] [--no-sidecar] [--optimal-only] [--batches-only]

One run computes our path lengths on arena (all 160 queries, with the any-angle optimum of
``arena.anyangle.scen``), on aurora (all 2990 queries unless ``--aurora-sample N`` takes N evenly
spaced) and on the v3 scene ``scene_mp_2p_01`` (2000 queries with their Euclidean optimum; ours as
a 3D mesh, y up, beside NavigationServer3D), runs ``bench/godot/navmesh_paths.gd`` in headless
Godot on the same meshes and queries, and prints the ratios to the optimum (arena, scene), the
ratio ours / Godot (aurora) and the median time per query. Godot paths that stop short of the goal
(its default cap of searched polygons) count as incomplete. Then the same queries go through a
sidecar (``path.find``, one request at a time, over its socket) with the time per query printed.

The optimal-mode section (:func:`report_optimal`, alone with ``--optimal-only``) runs Polyanya (the
``"optimal"`` option) on every arena query against the exact optimum (a visibility graph, and the
5-6 digits of ``arena.anyangle.scen``) and on every aurora query beside our default mode and Godot's
``query_path`` without a polygon cap, in process and through a sidecar, one query at a time.

The batch section (:func:`report_batches`, alone with ``--batches-only``) times, in one run, a
frame's queries as one ``path.find_packed`` (all of arena's 160, aurora's sample) per query against
Godot's ``query_path`` per query, beside ``path.find_many`` of the same queries, and synchronous
``path.find`` through the socket on aurora (the default mode: the mesh's measured faster one).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bridge.client.sidecar import start_sidecar  # noqa: E402
from python_core.formats.polyanya import MeshScenario, load_polyanya_mesh, read_mesh_scenarios  # noqa: E402
from python_core.formats.polyanya_v3 import parse_polyanya_v3  # noqa: E402
from python_core.navmesh import NavMesh  # noqa: E402
from python_core.navmesh.polyanya import find_optimal_path  # noqa: E402

SHARED = REPO.parent / "shared" / "benchmarks" / "mesh"
DATA = SHARED if SHARED.is_dir() else REPO / "tests" / "data" / "mesh"
SCRIPT = REPO / "bench" / "godot" / "navmesh_paths.gd"
SCENE = "v3/scene_mp_2p_01.mesh"


def ours(mesh: NavMesh, rows: list[MeshScenario]) -> tuple[np.ndarray, np.ndarray]:
    """Our path lengths and seconds per query."""
    lengths, secs = [], []
    for row in rows:
        t0 = time.perf_counter()
        res = mesh.find_path(row.start, row.goal)
        secs.append(time.perf_counter() - t0)
        lengths.append(res.cost if res.found else -1.0)
    return np.array(lengths), np.array(secs)


def godot(
    godot_bin: Path,
    mesh: NavMesh,
    rows: list[MeshScenario],
    *,
    unlimited: bool,
    dim: int = 2,
    cell_size: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Godot's path lengths and seconds per query (optimize = true).

    ``unlimited=False`` is plain ``map_get_path``; True is ``query_path`` with
    ``path_search_max_polygons = 0``. A path that stops short of the goal (Godot gives up after
    its polygon cap and returns a path to the closest polygon so far) counts as -1. ``dim=3``
    runs NavigationServer3D (no cap) on the mesh laid flat; a 3D ``mesh`` is sent as (x, z).
    """
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    flat = mesh.vertices[:, [0, 2]] if mesh.dim == 3 else mesh.vertices
    payload = {
        "vertices": flat.tolist(),
        "polygons": polygons,
        "queries": [[*row.start, *row.goal] for row in rows],
        "unlimited": unlimited,
        "dim": dim,
        "cell_size": cell_size,
    }
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(payload))
        cmd = [str(godot_bin), "--headless", "--script", str(SCRIPT), "--", str(src), str(dst)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0 or not dst.exists():
            raise SystemExit(f"godot failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        out = json.loads(dst.read_text())
    lengths = np.array(out["lengths"], dtype=float)
    for i, (row, flat) in enumerate(zip(rows, out["paths"], strict=True)):
        if len(flat) < 2 or np.hypot(flat[-2] - row.goal[0], flat[-1] - row.goal[1]) > 1e-3:
            lengths[i] = -1.0
    return lengths, np.array(out["usec"], dtype=float) / 1e6


def report_arena(godot_bin: Path) -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    opt = np.array([r.length for r in rows])
    ours_len, ours_t = ours(mesh, rows)
    g_len, g_t = godot(godot_bin, mesh, rows, unlimited=False)
    keep = opt > 0
    print(f"arena.mesh, {len(rows)} queries (ratio = path length / any-angle optimum)")
    print(f"{'':8}{'mean':>10}{'worst':>10}{'below opt':>11}{'no path':>9}{'median ms':>11}")
    for name, length, secs in (("ours", ours_len, ours_t), ("godot", g_len, g_t)):
        ok = keep & (length >= 0)
        ratio = length[ok] / opt[ok]
        below = int(np.sum((length >= 0) & (length < opt - 1e-4)))
        print(
            f"{name:8}{ratio.mean():10.5f}{ratio.max():10.5f}{below:11d}{int(np.sum(length < 0)):9d}"
            f"{np.median(secs) * 1e3:11.3f}"
        )
    print(f"queries where ours is longer than Godot's by > 1e-4: {int(np.sum(ours_len > g_len + 1e-4))}")


def report_aurora(godot_bin: Path, sample: int) -> None:
    mesh = load_polyanya_mesh(DATA / "aurora.mesh")
    every = read_mesh_scenarios(DATA / "aurora.scen")
    rows = every if sample <= 0 else [every[i] for i in np.linspace(0, len(every) - 1, sample).astype(int)]
    octile = np.array([r.length for r in rows])
    ours_len, ours_t = ours(mesh, rows)
    runs = [("ours", ours_len, ours_t)]
    runs.append(("godot", *godot(godot_bin, mesh, rows, unlimited=False)))
    runs.append(("godot*", *godot(godot_bin, mesh, rows, unlimited=True)))
    print(
        f"\naurora.mesh, {len(rows)} of {len(every)} queries (no any-angle optimum; octile length as a bound)"
    )
    print("godot = map_get_path; godot* = query_path with path_search_max_polygons = 0 (no cap)")
    both = (ours_len >= 0) & (runs[2][1] >= 0) & (octile > 0)
    print(f"{'':8}{'mean/octile':>12}{'incomplete':>12}{'median ms':>11}{'queries in mean':>17}")
    for name, length, secs in runs:
        used = both & (length >= 0)
        print(
            f"{name:8}{np.mean(length[used] / octile[used]):12.5f}{int(np.sum(length < 0)):12d}"
            f"{np.median(secs) * 1e3:11.3f}{int(used.sum()):17d}"
        )
    ratio = ours_len[both] / runs[2][1][both]
    print(
        f"ours / godot*: mean {ratio.mean():.5f}, min {ratio.min():.5f}, max {ratio.max():.5f}; "
        f"ours shorter on {int(np.sum(ratio < 1 - 1e-6))}, longer on {int(np.sum(ratio > 1 + 1e-6))}"
    )
    print(f"median time ours / godot*: {np.median(ours_t) / np.median(runs[2][2]):.3f}x")


def scene_3d() -> tuple[NavMesh, list[MeshScenario]]:
    """The v3 scene as a 3D mesh (x, 0, y; y up) and its queries lifted the same way."""
    flat, polygons = parse_polyanya_v3((DATA / SCENE).read_text(encoding="ascii"), SCENE)
    verts = np.zeros((flat.shape[0], 3))
    verts[:, 0], verts[:, 2] = flat[:, 0], flat[:, 1]
    return NavMesh(verts, polygons, up_axis=1), read_mesh_scenarios(DATA / (SCENE + ".scen"))


def report_scene(godot_bin: Path) -> None:
    """The 3D scene: ours in 3D beside NavigationServer3D, both against the Euclidean optimum."""
    mesh, rows = scene_3d()
    lifted = [
        MeshScenario(r.bucket, r.map_name, r.width, r.height, (r.start[0], 0.0, r.start[1]),  # type: ignore[arg-type]
                     (r.goal[0], 0.0, r.goal[1]), r.length)  # type: ignore[arg-type]
        for r in rows
    ]  # fmt: skip
    opt = np.array([r.length for r in rows])
    ours_len, ours_t = ours(mesh, lifted)
    g_len, g_t = godot(godot_bin, mesh, rows, unlimited=True, dim=3, cell_size=0.01)
    print(f"\n{SCENE} as a 3D mesh, {len(rows)} queries (ratio = length / Euclidean optimum)")
    print("godot* = NavigationServer3D.query_path, no polygon cap, cell size 0.01")
    print(f"{'':8}{'mean':>10}{'worst':>10}{'below opt':>11}{'no path':>9}{'median ms':>11}")
    keep = opt > 0
    for name, length, secs in (("ours", ours_len, ours_t), ("godot*", g_len, g_t)):
        ok = keep & (length >= 0)
        ratio = length[ok] / opt[ok]
        below = int(np.sum((length >= 0) & (length < opt - 1e-4 * np.maximum(opt, 1.0))))
        print(
            f"{name:8}{ratio.mean():10.5f}{ratio.max():10.5f}{below:11d}{int(np.sum(length < 0)):9d}"
            f"{np.median(secs) * 1e3:11.3f}"
        )
    print(f"median time ours / godot*: {np.median(ours_t) / np.median(g_t):.3f}x")


def report_sidecar(aurora_sample: int) -> None:
    """The same queries through a sidecar: one ``path.find`` at a time, timed at the client."""
    meshes: list[tuple[str, NavMesh, list[MeshScenario]]] = [
        ("arena", load_polyanya_mesh(DATA / "arena.mesh"), read_mesh_scenarios(DATA / "arena.anyangle.scen")),
    ]
    every = read_mesh_scenarios(DATA / "aurora.scen")
    if aurora_sample > 0:
        every = [every[i] for i in np.linspace(0, len(every) - 1, aurora_sample).astype(int)]
    meshes.append(("aurora", load_polyanya_mesh(DATA / "aurora.mesh"), every))
    scene, scene_rows = scene_3d()
    lifted = [
        MeshScenario(r.bucket, r.map_name, r.width, r.height, (r.start[0], 0.0, r.start[1]),  # type: ignore[arg-type]
                     (r.goal[0], 0.0, r.goal[1]), r.length)  # type: ignore[arg-type]
        for r in scene_rows
    ]  # fmt: skip
    meshes.append(("scene 3D", scene, lifted))
    print("\nthrough the sidecar (path.find, one request at a time, timed at the client)")
    print(f"{'':10}{'queries':>8}{'median ms':>11}{'mean ms':>10}{'in process median ms':>22}")
    with (
        start_sidecar("--log-level", "WARNING", stderr=subprocess.DEVNULL) as sidecar,
        sidecar.connect(timeout=600) as client,
    ):
        for name, mesh, rows in meshes:
            polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
            client.load_navmesh(name, mesh.vertices, polygons)
            client.find(name, rows[0].start, rows[0].goal)
            secs = []
            for row in rows:
                t0 = time.perf_counter()
                answer = client.find(name, row.start, row.goal)
                secs.append(time.perf_counter() - t0)
                if answer["status"] != "found":
                    raise SystemExit(f"{name}: the sidecar found no path for {row}")
            _lengths, local = ours(mesh, rows)
            print(
                f"{name:10}{len(rows):8d}{np.median(secs) * 1e3:11.3f}{np.mean(secs) * 1e3:10.3f}"
                f"{np.median(local) * 1e3:22.3f}"
            )


# -- a frame's queries as one batch (path.find_packed) -------------------------------------------


def _best_of(repeats: int, run: Any) -> float:
    """The fastest of ``repeats`` runs of ``run()``, in seconds (less noise from other work)."""
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def report_batches(godot_bin: Path, aurora_sample: int) -> None:
    """Per query: one ``path.find_packed`` of all the queries, one ``path.find_many``, and (aurora)
    one synchronous ``path.find`` at a time, against Godot's ``query_path`` (no polygon cap)."""
    every = read_mesh_scenarios(DATA / "aurora.scen")
    if aurora_sample > 0:
        every = [every[i] for i in np.linspace(0, len(every) - 1, aurora_sample).astype(int)]
    meshes = [("arena", load_polyanya_mesh(DATA / "arena.mesh"), read_mesh_scenarios(DATA / "arena.scen")),
              ("aurora", load_polyanya_mesh(DATA / "aurora.mesh"), every)]  # fmt: skip
    print("\n== a frame's queries in one message (us per query; godot* = query_path, no polygon cap)")
    print(f"{'':8}{'queries':>8}{'godot*':>9}{'packed':>9}{'x godot':>8}{'find_many':>10}{'x godot':>8}"
          f"{'sync find':>10}{'x godot':>8}  default mode")  # fmt: skip
    with (
        start_sidecar("--log-level", "WARNING", stderr=subprocess.DEVNULL) as sidecar,
        sidecar.connect(timeout=600) as client,
    ):
        for name, mesh, rows in meshes:
            _g_len, g_secs = godot(godot_bin, mesh, rows, unlimited=True)
            polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
            client.load_navmesh(name, mesh.vertices, polygons)
            mode = client.info(name)["default_mode"]["mode"]
            starts = np.array([r.start for r in rows], np.float32)
            goals = np.array([r.goal for r in rows], np.float32)
            many = {"queries": [{"graph": name, "start": s.tolist(), "goal": g.tolist()}
                                for s, g in zip(starts, goals, strict=True)]}  # fmt: skip
            client.find_packed(name, starts, goals)  # warm: the first answer loads kernels
            client.call("path.find_many", many)
            n = len(rows)
            packed = _best_of(5, lambda: client.find_packed(name, starts, goals)) / n  # noqa: B023
            find_many = _best_of(3, lambda: client.call("path.find_many", many)) / n  # noqa: B023
            godot_us = float(np.mean(g_secs)) * 1e6
            line = f"{name:8}{n:8d}{godot_us:9.1f}{packed * 1e6:9.1f}{packed * 1e6 / godot_us:8.2f}"
            line += f"{find_many * 1e6:10.1f}{find_many * 1e6 / godot_us:8.2f}"
            if name == "aurora":
                sync = []
                for s, g in zip(starts, goals, strict=True):
                    t0 = time.perf_counter()
                    client.find(name, s.tolist(), g.tolist())
                    sync.append(time.perf_counter() - t0)
                line += f"{np.mean(sync) * 1e6:10.1f}{np.mean(sync) * 1e6 / godot_us:8.2f}"
            else:
                line += f"{'':18}"
            print(f"{line}  {mode}")
    print("(means per query; packed and find_many: the fastest of a few runs of the whole batch)")


# -- optimal mode (Polyanya, the "optimal" query option) ---------------------------------------------


def ours_optimal(mesh: NavMesh, rows: list[MeshScenario]) -> tuple[np.ndarray, np.ndarray]:
    """Polyanya's path lengths (-1: none) and seconds per query, in process."""
    find_optimal_path(mesh, rows[0].start, rows[0].goal)  # compiled kernels loaded before timing
    lengths, secs = [], []
    for row in rows:
        t0 = time.perf_counter()
        res = find_optimal_path(mesh, row.start, row.goal)
        secs.append(time.perf_counter() - t0)
        lengths.append(res.cost if res.found else -1.0)
    return np.array(lengths), np.array(secs)


def sidecar_optimal(mesh: NavMesh, rows: list[MeshScenario], name: str) -> tuple[np.ndarray, np.ndarray]:
    """The same queries through a sidecar (``path.find`` with ``"optimal": true``), one at a time."""
    from bridge.client import Client  # only this section needs the bridge
    from bridge.client.sidecar import start_sidecar

    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    params = [Client.query(name, r.start, r.goal, optimal=True) for r in rows]
    lengths, secs = [], []
    with (
        start_sidecar("--log-level", "WARNING", stderr=subprocess.DEVNULL) as sidecar,
        sidecar.connect(timeout=600) as client,
    ):
        client.load_navmesh(name, mesh.vertices, polygons)
        client.call("path.find", params[0])
        for p in params:
            t0 = time.perf_counter()
            out = client.call("path.find", p)
            secs.append(time.perf_counter() - t0)
            lengths.append(float(out["cost"]) if out["status"] == "found" else -1.0)
    return np.array(lengths), np.array(secs)


def _exact_arena(mesh: NavMesh, rows: list[MeshScenario]) -> np.ndarray:
    """Full-precision optima from the visibility graph of tests/core/navmesh/mesh_oracle.py."""
    from tests.core.navmesh.mesh_oracle import MeshOracle, VisibilityOptimum

    exact = VisibilityOptimum(MeshOracle(mesh))
    return np.array([exact.length(np.array(r.start), np.array(r.goal)) for r in rows])


def report_optimal(godot_bin: Path) -> None:
    """Optimal mode: arena against the any-angle optimum, aurora (all queries) against Godot."""
    print('\n== optimal mode (Polyanya, query option "optimal": true)')
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    printed = np.array([r.length for r in rows])
    length, secs = ours_optimal(mesh, rows)
    exact = _exact_arena(mesh, rows)
    rel_file = np.abs(length - printed) / np.maximum(printed, 1e-12)
    rel_exact = np.abs(length - exact) / np.maximum(exact, 1e-12)
    found = int(np.sum(length >= 0))
    print(f"arena.mesh, {len(rows)} queries: found {found}, median {np.median(secs) * 1e3:.3f} ms")
    print(
        f"  max relative error against the exact optimum (visibility graph): {rel_exact.max():.2e}; "
        f"shorter than it: {int(np.sum(length < exact * (1 - 1e-9)))}"
    )
    print(
        f"  against arena.anyangle.scen (5-6 printed digits): max relative error {rel_file.max():.2e}, "
        f"max |difference| {np.abs(length - printed).max():.2e}"
    )
    aurora = load_polyanya_mesh(DATA / "aurora.mesh")
    rows = read_mesh_scenarios(DATA / "aurora.scen")
    length, secs = ours_optimal(aurora, rows)
    default, default_secs = ours(aurora, rows)
    g_len, g_secs = godot(godot_bin, aurora, rows, unlimited=True)
    side_len, side_secs = sidecar_optimal(aurora, rows, "aurora")
    both = (length >= 0) & (g_len >= 0)
    print(f"aurora.mesh, all {len(rows)} queries (godot* = query_path without a polygon cap)")
    print(f"{'':22}{'median ms':>11}{'mean ms':>9}{'found':>7}{'mean length / optimal':>23}")
    for name, lens, sec in (
        ("ours optimal", length, secs),
        ("ours optimal, sidecar", side_len, side_secs),
        ("ours default", default, default_secs),
        ("godot*", g_len, g_secs),
    ):
        ok = both & (lens >= 0)
        ratio = np.mean(lens[ok] / length[ok])
        found = int(np.sum(lens >= 0))
        print(f"{name:22}{np.median(sec) * 1e3:11.3f}{np.mean(sec) * 1e3:9.3f}{found:7d}{ratio:23.5f}")
    print(
        f"  optimal median / godot* median: {np.median(secs) / np.median(g_secs):.2f} "
        f"(sidecar: {np.median(side_secs) / np.median(g_secs):.2f}); "
        f"sidecar lengths equal in-process: {bool(np.allclose(side_len, length, rtol=1e-9))}"
    )
    straight = np.array([math.dist(r.start, r.goal) for r in rows])
    # Godot returns float32 points and may move the start by ~1e-3: compare at that tolerance.
    print(
        f"  optimal longer than godot* by > 1e-3: {int(np.sum(both & (length > g_len + 1e-3)))} "
        f"(largest excess {np.max((length - g_len)[both]):.1e}); longer than ours default: "
        f"{int(np.sum(length > default + 1e-9))}; shorter than the straight line: "
        f"{int(np.sum(length < straight - 1e-9))}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--aurora-sample", type=int, default=0, help="aurora queries (evenly spaced; 0: all 2990)"
    )
    parser.add_argument("--no-sidecar", action="store_true", help="skip the sidecar section")
    parser.add_argument(
        "--godot", type=Path, default=REPO / ".godot" / "godot", help="headless Godot 4 binary"
    )
    parser.add_argument("--optimal-only", action="store_true", help="only the optimal-mode section")
    parser.add_argument("--batches-only", action="store_true", help="only the batch section")
    args = parser.parse_args(argv)
    if args.batches_only:
        report_batches(args.godot, args.aurora_sample)
        return 0
    if not args.optimal_only:
        report_arena(args.godot)
        report_aurora(args.godot, args.aurora_sample)
        report_scene(args.godot)
        if not args.no_sidecar:
            report_sidecar(args.aurora_sample)
            report_batches(args.godot, args.aurora_sample)
    report_optimal(args.godot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
