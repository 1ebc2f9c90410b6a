"""Navmesh frames from GDScript (issue 40): a frame's 200 requests, moving obstacles, a region move.

Starts a sidecar, then runs bench/godot/navmesh_frame_bench.gd headless in tests/godot_project (the
addon as a game uses it), all sections in one Godot run, and prints against the issue's goals:

(a) 200 ``request_path`` in one frame on aurora (34,816 polygons): frames until all answered at 60
    fps (goal <= 3; ``wall ms``: from the first call until Godot handed the last answer over) and
    the main thread's CPU (idle frames of the same run subtracted) against the
    CPU of Godot's blocking ``NavigationServer2D.query_path`` (no polygon cap) for the same 200
    (goal <= 1/5);
(b) the same on arena (120 polygons, its 160 queries): per query, ours against Godot's (goal <= 1x);
(c) 100 AStarBridgeObstacle2D nodes moved every frame at 60 fps on aurora: the sidecar's CPU per
    update (its /proc times, 10 ms ticks over the whole run; a graph's next update waits while the
    last is unanswered, so a slow re-cut gives fewer updates, each with the latest shapes), the
    main thread's CPU per frame, messages, and paths asked afterwards inside an obstacle (must be 0);
(d) a small region of a map holding aurora moved (``graph.update`` regions move): the update's wall
    time (goal < 50 ms) and the longest ``graph.list`` round trip of a second connection meanwhile
    (the event loop's stall). ``--sidecar-tree DIR`` runs the sidecar of another checkout (``git
    archive <commit> | tar -x -C DIR``) for the figures before a change.

A command, not a test::

    .venv/bin/python bench/navmesh_frame.py [--queries 200] [--obstacles 100] [--frames 120]
        [--frames-only] [--timeline] [--runs 5] [--ids-both]

``--ids-both``: the runs alternate without and with ``config.navmesh_ids`` (each answer's
polygons), medians of each. ``--timeline``: (a) and (b) with a traced sidecar
(bench/navmesh_trace.py); each run's stages in milliseconds from the first call (the calls, the
sidecar's read, each piece on its thread, the answer written, the requests completed, each
frame's start), and Godot's decoding of the answer.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.godot_binary import godot_binary  # noqa: E402
from bench.navmesh_timeline import print_timelines  # noqa: E402
from python_core.formats.polyanya import MeshScenario, load_polyanya_mesh, read_mesh_scenarios  # noqa: E402

PROJECT = REPO / "tests" / "godot_project"
SCRIPT = REPO / "bench" / "godot" / "navmesh_frame_bench.gd"
SHARED = REPO.parent / "shared" / "benchmarks" / "mesh"
DATA = SHARED if SHARED.is_dir() else REPO / "tests" / "data" / "mesh"


def _mesh(name: str, scen: str, queries: int) -> dict[str, Any]:
    """A Polyanya mesh and ``queries`` of its scenarios, evenly spaced, as the bench script reads them."""
    mesh = load_polyanya_mesh(DATA / name)
    rows: list[MeshScenario] = read_mesh_scenarios(DATA / scen)
    if 0 < queries < len(rows):
        rows = [rows[i] for i in np.linspace(0, len(rows) - 1, queries).astype(int)]
    return {
        "vertices": mesh.vertices.reshape(-1).tolist(),
        "polygons": [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)],
        "queries": [[*row.start, *row.goal] for row in rows],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One Godot run against a fresh sidecar; the script's report as a dict."""
    tree = Path(args.sidecar_tree).resolve() if args.sidecar_tree else REPO
    serve = ["serve", "--threads", str(args.threads), "--log-level", "ERROR"]
    traced = [str(REPO / "bench" / "navmesh_trace.py"), args.trace] if args.timeline else ["-m", "bridge"]
    sidecar = subprocess.Popen(
        [sys.executable, *traced, *serve],
        cwd=tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert sidecar.stdout is not None
    announcement: dict[str, Any] = json.loads(sidecar.stdout.readline())
    godot = godot_binary()
    imported = [godot, "--headless", "--path", str(PROJECT), "--import"]
    subprocess.run(imported, capture_output=True, check=False)
    aurora = _mesh("aurora.mesh", "aurora.scen", args.queries)
    spec: dict[str, Any] = {
        "meshes": {"aurora": aurora, "arena": _mesh("arena.mesh", "arena.anyangle.scen", 0)},
        "frame": ["aurora", "arena"],
        "obstacles": {"mesh": "aurora", "count": args.obstacles, "half_side": 2.0, "frames": args.frames},
        "region": {"mesh": "aurora", "side": 8.0, "at": [-40.0, -40.0], "step": 1.0, "moves": args.moves},
    }
    if args.frames_only or args.timeline:  # (a) and (b) alone
        del spec["obstacles"], spec["region"]
    if args.timeline:
        spec.update(timeline=True, answer=args.trace + ".answer", answer_queries=len(aurora["queries"]))
    spec.update(runs=args.runs, ids_both=args.ids_both)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    try:
        env = {
            **os.environ,
            "BENCH_SIDECAR_PORT": str(announcement["port"]),
            "BENCH_SIDECAR_TOKEN": str(announcement["token"]),
            "BENCH_SIDECAR_PID": str(sidecar.pid),
        }
        cmd = [godot, "--headless", "--path", str(PROJECT), "--script", str(SCRIPT), "--", handle.name]
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=False)
    finally:
        os.unlink(handle.name)
        if sidecar.stdin is not None:
            sidecar.stdin.close()
        try:  # it exits once stdin closes
            sidecar.wait(timeout=60)
        except subprocess.TimeoutExpired:
            sidecar.kill()
            sidecar.wait()
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
            return report
    raise RuntimeError(f"no BENCH line from Godot:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


def _print_frame(section: dict[str, Any]) -> None:
    if "error" in section:
        print(f"\n{section['mesh']}: failed: {section['error']}")
        return
    n = section["queries"]
    godot_ms = section["godot_cpu_ms"]
    print(f"\n{section['mesh']} ({section['polygons']} polygons): {n} request_path in one frame at 60 fps")
    per = 1e3 * godot_ms / n
    print(f"  Godot query_path (blocking, no cap), main-thread CPU: {godot_ms:.2f} ms ({per:.1f} us/query)")
    heads = ["run", "frames", "wall ms", "CPU ms", "idle ms", "net ms", "us/query", "x Godot", "msgs"]
    heads += ["found", "ids"]
    widths = (4, 8, 9, 9, 9, 9, 10, 9, 6, 7, 5)
    print("  " + "".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    ratios = []
    for i, r in enumerate(section["runs"]):
        net = max(r["cpu_ms"] - r["idle_cpu_ms"], 0.0)
        ratios.append(net / godot_ms if godot_ms > 0 else float("nan"))
        print(
            f"  {i:4d}{r['frames']:8d}{r['wall_ms']:9.1f}{r['cpu_ms']:9.2f}{r['idle_cpu_ms']:9.2f}{net:9.2f}"
            f"{1e3 * net / n:10.1f}{ratios[-1]:9.3f}{r['messages']:6d}{r['found']:7d}"
            f"{'on' if r['ids'] else 'off':>5}"
        )
    frames = [r["frames"] for r in section["runs"]]
    print(f"  median: {int(np.median(frames))} frames, {np.median(ratios):.3f}x Godot's main-thread CPU")
    for ids in (False, True):  # config.navmesh_ids, when the runs alternate (--ids-both)
        runs = [r for r in section["runs"] if r["ids"] == ids]
        if runs and len(runs) < len(section["runs"]):
            walls, counts = [r["wall_ms"] for r in runs], [r["frames"] for r in runs]
            print(
                f"  ids {'on ' if ids else 'off'}: median {np.median(counts):.1f} frames,"
                f" wall {np.median(walls):.1f} ms over {len(runs)} runs (frames {counts})"
            )


def _print_obstacles(section: dict[str, Any]) -> None:
    if "error" in section:
        print(f"\nobstacles: failed: {section['error']}")
        return
    updates = section["updates"]
    main = max(section["main_cpu_ms"] - section["idle_cpu_ms"], 0.0)
    paths = section["paths"]
    print(f"\n{section['obstacles']} moving obstacle nodes on {section['mesh']}, {updates} frames at 60 fps")
    print(
        f"  messages {section['messages']} ({section['messages'] / updates:.2f} a frame), failures "
        f"{section['failures']}, obstacles held after: {section['held_after']}"
    )
    print(
        f"  sidecar CPU {section['sidecar_cpu_ms']} ms over {section['messages']} updates"
        f" ({section['sidecar_cpu_ms'] / max(section['messages'], 1):.1f} ms an update);"
        f" main thread {main / updates:.3f} ms per frame (idle subtracted;"
        f" raw {section['main_cpu_ms'] / updates:.3f}); wall {section['wall_ms']:.0f} ms"
    )
    print(f"  paths afterwards: {paths['found']} of {paths['asked']} found, {paths['crossing']} in obstacles")


def _print_region(section: dict[str, Any]) -> None:
    if "error" in section:
        print(f"\nregion move: failed: {section['error']}")
        return
    print(f"\nregion move on a map of {section['polygons']} polygons (loaded in {section['load_ms']:.0f} ms)")
    for i, m in enumerate(section["moves"]):
        state = "ok" if m["ok"] else f"failed: {m['error']}"
        print(
            f"  move {i}: update {m['sync_ms']:.1f} ms; graph.list meanwhile worst"
            f" {m['probe_worst_ms']:.1f} ms over {m['probes']} probes; {state}"
        )
    print(f"  median update: {np.median([m['sync_ms'] for m in section['moves']]):.1f} ms (goal < 50 ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="aurora queries in one frame")
    parser.add_argument("--obstacles", type=int, default=100, help="moving obstacles")
    parser.add_argument("--frames", type=int, default=120, help="frames the obstacles move for")
    parser.add_argument("--moves", type=int, default=3, help="region moves")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="sidecar search threads")
    parser.add_argument("--frames-only", action="store_true", help="only (a) and (b): a frame's queries")
    parser.add_argument("--sidecar-tree", default="", help="the sidecar of this checkout (figures before)")
    parser.add_argument("--timeline", action="store_true", help="(a) and (b), each run's stages in time")
    parser.add_argument("--runs", type=int, default=5, help="runs of (a) and (b) per mesh")
    parser.add_argument(
        "--ids-both", action="store_true", help="runs alternate config.navmesh_ids off and on"
    )
    parser.add_argument("--trace", default="", help="with --timeline: keep the sidecar's trace in this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        args.trace = args.trace or str(Path(folder) / "trace.jsonl")
        report = run(args)
        if args.timeline:
            print_timelines(report, Path(args.trace))
            return 0
    print(f"one Godot run, {report['machine_cores']} cores; sidecar from {args.sidecar_tree or 'this tree'}")
    for section in report["frame"]:
        _print_frame(section)
    if "obstacles" in report:
        _print_obstacles(report["obstacles"])
    if "region" in report:
        _print_region(report["region"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
