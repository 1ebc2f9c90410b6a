"""The Godot addon at loopback speed: sync find_path beside AStarGrid2D and a msgpack echo floor.

Starts the sidecar and a msgpack-RPC echo server (answers ``path.find`` at once with a straight
line of as many points, no search: the floor of socket + codec), then runs
bench/godot/find_path_bench.gd headless. Prints, from that one run, per map (a 64x64 level of
16x16 rooms, the Moving AI arena): sync ``find_path`` median/p99 against the sidecar, the same
call against the echo server, ``AStarGrid2D.get_point_path`` on the same queries, the ratios,
where one request's time goes on the GDScript side, and 300 ``request_path`` sent in one frame
at 60 fps (then the same 300 as one ``request_paths``, which goes as one ``path.find_packed``):
frames until all answered, and the main thread's CPU from the first call until the
game saw every request done, minus that of as many idle frames of the same run (the engine's own
per-frame work), per path beside AStarGrid2D's CPU per path.

Then the README's configuration beside that tuned one (issue 41): an autoload with default
settings that starts its own sidecar, a Moving AI map of about 64x64 with its scenario file
(den312d, 65x81: the benchmark set has no 64x64 map) loaded as an AStarGrid2D of 32-pixel cells,
one ``request_path`` per NPC with ``Vector2i`` cells: frames until all 300 are answered, the main
thread's time against Godot's blocking ``get_point_path`` for the same 300, and synchronous
``find_path`` against ``AStarGrid2D``, checked against the issue's goals. Each README round is
then set beside the sidecar's state (bench/roundtrip_timeline.py): seconds since it began loading
kernels, whether they were all in yet (from its log), and with ``--probe`` its full collections,
kernel loads and stalls. A command, not a test::

    .venv/bin/python bench/addon_roundtrip.py --sync 400 --agents 300
    .venv/bin/python bench/addon_roundtrip.py --readme-only --runs 8 --probe   # first rounds, 8 starts
    .venv/bin/python bench/addon_roundtrip.py --readme-only --sync 0 --runs 8   # rounds right after the load
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from array import array
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.generated_maps import random_queries, rooms_and_doors  # noqa: E402
from bench.godot_binary import godot_binary  # noqa: E402
from bench.roundtrip_timeline import print_rounds, rounds, start_up_line, summary  # noqa: E402
from bridge.client.sidecar import start_sidecar  # noqa: E402
from python_core.formats.movingai import read_map, read_scenarios  # noqa: E402

PROJECT = REPO / "tests" / "godot_project"
SCRIPT = REPO / "bench" / "godot" / "find_path_bench.gd"
ARENA = REPO / "tests" / "data" / "movingai" / "arena.map"
README_MAP = REPO / "tests" / "data" / "movingai" / "den312d.map"
PROBE = REPO / "bench" / "sidecar_probe"


class EchoServer:
    """A msgpack-RPC server on loopback that answers without searching: the transport floor."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            conn, _ = self._listener.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        unpacker = msgpack.Unpacker(raw=False)
        with conn:
            while data := conn.recv(65536):
                unpacker.feed(data)
                out = b"".join(msgpack.packb([1, m[1], None, _answer(m[2], m[3])]) for m in unpacker)
                conn.sendall(out)


def _answer(method: str, params: list[Any]) -> Any:
    args: dict[str, Any] = params[0] if params else {}
    if method == "path.find":
        (sx, sy), (gx, gy) = args["start"], args["goal"]
        steps = int(max(abs(gx - sx), abs(gy - sy)))
        points = array("f")
        for i in range(steps + 1):
            t = i / steps if steps else 0.0
            points.extend((sx + (gx - sx) * t, sy + (gy - sy) * t))
        nodes = array("q", range(steps + 1))
        return {
            "status": "found",
            "points": points.tobytes(),
            "nodes": nodes.tobytes(),
            "cost": 1.0,
            "expanded": 0,
        }
    if method == "hello":
        return {"server": "echo", "protocol": 1, "methods": []}
    if method == "graph.list":
        return {"graphs": []}
    return {"id": args.get("id", ""), "nodes": 0}


def _maps(sync: int, agents: int) -> list[dict[str, Any]]:
    rooms = rooms_and_doors(64, room=16)
    arena = read_map(ARENA)
    arena_queries = [(s.start, s.goal) for s in read_scenarios(f"{ARENA}.scen")]
    maps = []
    for name, mask, pairs in (
        ("rooms64", rooms, random_queries(rooms, max(sync, agents))),
        ("arena", arena, arena_queries[:: max(1, len(arena_queries) // max(sync, agents))]),
    ):
        cells = np.ascontiguousarray(mask, dtype=np.uint8).tobytes()
        maps.append(
            {
                "name": name,
                "width": int(mask.shape[1]),
                "height": int(mask.shape[0]),
                "cells": base64.b64encode(cells).decode(),
                "queries": [[a[0], a[1], b[0], b[1]] for a, b in pairs],
            }
        )
    return maps


def _readme_map(agents: int) -> dict[str, Any]:
    """The README run's level: a Moving AI map and ``agents`` of its scenario's queries, spread
    over the file (it lists short paths first); the Python the autoload's sidecar runs."""
    mask = read_map(README_MAP)
    pairs = [(s.start, s.goal) for s in read_scenarios(f"{README_MAP}.scen")]
    picked = [pairs[i * len(pairs) // agents] for i in range(min(agents, len(pairs)))]
    cells = np.ascontiguousarray(mask, dtype=np.uint8).tobytes()
    return {
        "name": README_MAP.stem,
        "width": int(mask.shape[1]),
        "height": int(mask.shape[0]),
        "cells": base64.b64encode(cells).decode(),
        "queries": [[a[0], a[1], b[0], b[1]] for a, b in picked],
        "python": sys.executable,
    }


def run(
    sync: int,
    agents: int,
    threads: int,
    *,
    io_thread: bool = True,
    readme_only: bool = False,
    probe: Path | None = None,
) -> dict[str, Any]:
    """One Godot run against a fresh sidecar and echo server (none with ``readme_only``: the
    README configuration alone, whose sidecar the addon starts); the script's report as a dict.
    ``probe``: a file the README run's sidecar writes its full collections and stalls to."""
    env = {**os.environ, "BENCH_IO_THREAD": "1" if io_thread else "0"}
    if probe is not None:  # the README sidecar (started by Godot, with Godot's environment)
        env["PYTHONPATH"] = os.pathsep.join([str(PROBE), str(REPO), env.get("PYTHONPATH", "")])
        env["ASTAR_PROBE_FILE"] = str(probe)
    sidecar = None
    if not readme_only:
        sidecar = start_sidecar("--threads", str(threads), "--log-level", "ERROR", stderr=subprocess.DEVNULL)
        echo = EchoServer()
        env["BENCH_SIDECAR_PORT"] = str(sidecar.port)
        env["BENCH_SIDECAR_TOKEN"] = sidecar.token
        env["BENCH_ECHO_PORT"] = str(echo.port)
        env["BENCH_ECHO_TOKEN"] = "echo"
    godot = godot_binary()
    subprocess.run(
        [godot, "--headless", "--path", str(PROJECT), "--import"], capture_output=True, check=False
    )
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as spec:
        spec_map = {
            "maps": [] if readme_only else _maps(sync, agents),
            "sync": sync,
            "agents": agents,
            "readme": _readme_map(agents),
        }
        json.dump(spec_map, spec)
    try:
        args = [godot, "--headless", "--path", str(PROJECT), "--script", str(SCRIPT), "--", spec.name]
        result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, check=False)
    finally:
        os.unlink(spec.name)
        if sidecar is not None:
            sidecar.stop(timeout=60)  # it exits once stdin closes; a loaded machine may take a while
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
            return report
    raise RuntimeError(f"no BENCH line from Godot:\n{result.stdout}\n{result.stderr}")


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _p99(values: list[float]) -> float:
    return float(np.percentile(values, 99))


def _print_map(m: dict[str, Any]) -> None:
    sync, echo, godot = m["sync_us"], m["echo_us"], m["godot_us"]
    print(
        f"\n{m['name']} {m['size'][0]}x{m['size'][1]}, {len(sync)} queries "
        f"({m['mismatches']} cost mismatches)"
    )
    print(f"  {'':34} {'median us':>10} {'p99 us':>10}")
    for label, values in (
        ("sync find_path (sidecar)", sync),
        ("sync find_path (echo floor)", echo),
        ("AStarGrid2D.get_point_path", godot),
    ):
        print(f"  {label:34} {_median(values):10.0f} {_p99(values):10.0f}")
    ratio = _median(sync) / max(_median(godot), 1e-9)
    floor_ratio = _median(echo) / max(_median(godot), 1e-9)
    print(f"  ratio find_path / AStarGrid2D: {ratio:.1f}x (echo floor alone: {floor_ratio:.1f}x)")
    encode, decode, dispatch = _median(m["encode_us"]), _median(m["decode_us"]), _median(m["dispatch_us"])
    socket_us = _median(echo) - encode - decode - dispatch
    sidecar_us = _median(sync) - _median(echo)
    print(
        f"  one request, GDScript side (median us): encode {encode:.1f}, decode {decode:.1f} "
        f"({_median(m['response_bytes']):.0f}-byte answer), dispatch {dispatch:.1f}, "
        f"socket round trip {socket_us:.0f}; sidecar beyond the echo {sidecar_us:.0f}"
    )


def _print_frame(f: dict[str, Any]) -> None:
    agents = f["agents"]
    godot_us = f["godot_ms"] * 1000 / agents
    godot_cpu_us = f["godot_cpu_ms"] * 1000 / agents
    asked = "one request_paths of " if f.get("batched") else ""
    print(
        f"\n{asked}{agents} x request_path in one frame on {f['map']}, game at {f['fps']} fps "
        f"({len(f['runs'])} runs after {f.get('warm_up', 0)} not counted); "
        f"AStarGrid2D on the same {agents} queries: "
        f"{godot_us:.1f} us/path wall, {godot_cpu_us:.1f} us/path main-thread CPU"
    )
    print(
        "  answered: ms from the first request_path until the last completed, and the frame it\n"
        "  completed in (0: the frame of the calls); frames, ms: until the game's once-a-frame check\n"
        "  saw all done; main-thread CPU over those frames (run), the same number of idle frames\n"
        "  right after (idle), their difference per path (the addon's cost); wait: ms the frames'\n"
        "  ends slept for answers (time the frame limiter would have slept)"
    )
    print(
        f"  {'answered':>8} {'frame':>5} {'frames':>6} {'ms':>6} {'run ms':>7} {'idle ms':>7} "
        f"{'addon us/path':>13} {'x Godot':>7} {'asking us/path':>14} {'own stats us/path':>17} "
        f"{'wait':>5} {'failed':>6}"
    )
    costs: list[float] = []
    for r in f["runs"]:
        addon_us = (r["main_thread_cpu_ms"] - r["idle_cpu_ms"]) * 1000 / agents
        costs.append(addon_us)
        print(
            f"  {r['answered_ms']:8.1f} {r['answered_frame']:5d} {r['frames']:6d} {r['ms']:6.1f} "
            f"{r['main_thread_cpu_ms']:7.2f} {r['idle_cpu_ms']:7.2f} "
            f"{addon_us:13.1f} {addon_us / godot_cpu_us:7.2f} "
            f"{r['send_cpu_ms'] * 1000 / agents:14.1f} {r['main_thread_ms'] * 1000 / agents:17.1f} "
            f"{r['frame_wait_ms']:5.1f} {r['failures']:6d}"
        )
    median = _median(costs)
    print(
        f"  median: the addon's main thread {median:.1f} us CPU per path = "
        f"{median / godot_cpu_us:.2f}x AStarGrid2D's {godot_cpu_us:.1f} us; at most "
        f"{max(r['frames'] for r in f['runs'])} frames until all answered"
    )
    print(
        "  (asking: CPU of the request_path loop alone; own stats: get_stats()['main_thread_ms'], "
        "the addon's wall-clock accounting)"
    )
    print(f"  AStarGrid2D would block the frame {f['godot_ms']:.1f} ms for the same {agents} paths")


def _print_readme(r: dict[str, Any]) -> None:
    f = r["frame"]
    agents = f["agents"]
    print(
        f"\nREADME configuration: default settings (the autoload starts its sidecar), {r['name']} "
        f"{r['size'][0]}x{r['size'][1]} with its scenario file as an AStarGrid2D of 32-px cells, "
        f"Vector2i cells in"
    )
    if r["sync_us"]:  # none with --sync 0: the rounds right after the load, as a game's first frames
        sync, godot = _median(r["sync_us"]), _median(r["godot_us"])
        print(
            f"  sync find_path median {sync:.0f} us against AStarGrid2D.get_point_path {godot:.0f} us: "
            f"{sync / max(godot, 1e-9):.1f}x (goal at most 4x; {len(r['sync_us'])} queries, "
            f"{r['mismatches']} length mismatches)"
        )
    _print_frame(f)
    godot_cpu_ms = f["godot_cpu_ms"]
    worst_ms = max(run["answered_ms"] for run in f["runs"])
    worst_frames = 1 + max(run["answered_frame"] for run in f["runs"])
    seen_ms = max(run["ms"] for run in f["runs"])
    addon = _median([(run["main_thread_cpu_ms"] - run["idle_cpu_ms"]) for run in f["runs"]])
    messages = sorted({run.get("messages", -1) for run in f["runs"]})
    print(
        f"  {agents} individual request_path calls: all answered within {worst_frames} frame(s) "
        f"(1: the frame of the calls), {worst_ms:.1f} ms at worst (goals: 3 frames, 50 ms, and "
        f"under Godot's blocking {f['godot_ms']:.1f} ms; the game's next once-a-frame check saw "
        f"them after {seen_ms:.1f} ms at worst); main thread {addon:.2f} ms = "
        f"{addon / max(godot_cpu_ms, 1e-9):.2f}x Godot's {godot_cpu_ms:.2f} ms CPU (goal at most "
        f"0.2x); messages sent per run: {messages}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sync",
        type=int,
        default=400,
        help="synchronous find_path calls per map (0 with --readme-only: the rounds right after the load)",
    )
    parser.add_argument("--agents", type=int, default=300, help="request_path sent in one frame")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="sidecar search threads")
    parser.add_argument(
        "--no-io-thread", action="store_true", help="the addon's socket work on the main thread (A/B)"
    )
    parser.add_argument("--readme-only", action="store_true", help="the README configuration alone")
    parser.add_argument("--runs", type=int, default=1, help="Godot runs, each with fresh sidecars")
    parser.add_argument(
        "--probe",
        action="store_true",
        help="the README sidecar records its full GCs, kernel loads and stalls (bench/sidecar_probe)",
    )
    parser.add_argument(
        "--keep", type=Path, help="a folder to keep each run's probe lines and sidecar log in (runN.json)"
    )
    args = parser.parse_args()
    where = "the main thread" if args.no_io_thread else "the connection's thread"
    all_rows: list[list[dict[str, Any]]] = []
    for number in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            probe = Path(folder, "probe.txt") if args.probe else None
            report = run(
                args.sync,
                args.agents,
                args.threads,
                io_thread=not args.no_io_thread,
                readme_only=args.readme_only,
                probe=probe,
            )
            lines = probe.read_text().splitlines() if probe is not None and probe.exists() else []
        if args.keep is not None:  # every run's probe lines and sidecar log, for a soak's worst run
            args.keep.mkdir(parents=True, exist_ok=True)
            kept = {"probe": lines, "sidecar_log": report["readme"].get("sidecar_log", [])}
            Path(args.keep, f"run{number + 1}.json").write_text(json.dumps(kept))
        if args.runs > 1:
            print(f"\n== run {number + 1} of {args.runs}")
        print(
            f"sidecar search threads {args.threads}; async socket work on {where}; figures from one Godot run"
        )
        for m in report["maps"]:
            _print_map(m)
        if "frame" in report:
            _print_frame(report["frame"])
            _print_frame(report["frame_batched"])
        _print_readme(report["readme"])
        all_rows.append(rounds(report["readme"], lines))
        print_rounds(all_rows[-1], start_up_line(report["readme"]))
    if args.runs > 1:
        summary(all_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
