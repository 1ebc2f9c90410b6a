"""Round trip of the Godot addon: start the sidecar, run bench/godot/find_path_bench.gd headless.

Prints the mean cost of one synchronous ``find_path`` as GDScript sees it (encode, socket,
sidecar, decode), paths per second for N agents asking at once (N ``request_path`` in one frame,
and one ``request_paths`` batch), beside Godot's own ``AStarGrid2D.get_point_path`` on the same
grid and queries. A command, not a test::

    .venv/bin/python bench/addon_roundtrip.py --size 128 --sync 300 --agents 500
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PROJECT = REPO / "tests" / "godot_project"
SCRIPT = REPO / "bench" / "godot" / "find_path_bench.gd"


def _godot() -> str:
    if os.environ.get("GODOT"):
        return os.environ["GODOT"]
    out = subprocess.run(
        [sys.executable, str(REPO / "tools" / "provision_godot.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def _start_sidecar(workers: int) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge", "serve", "--workers", str(workers), "--log-level", "ERROR"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    announcement: dict[str, Any] = json.loads(process.stdout.readline())
    return process, announcement


def run(size: int, sync: int, agents: int, workers: int) -> dict[str, Any]:
    """Run the GDScript benchmark once against a fresh sidecar; its report as a dict."""
    process, announcement = _start_sidecar(workers)
    try:
        env = {
            **os.environ,
            "ASTAR_BRIDGE_HOST": str(announcement["host"]),
            "ASTAR_BRIDGE_PORT": str(announcement["port"]),
            "ASTAR_BRIDGE_TOKEN": str(announcement["token"]),
        }
        args = [_godot(), "--headless", "--path", str(PROJECT), "--script", str(SCRIPT)]
        args += ["--", str(size), str(sync), str(agents)]
        result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, check=False)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=10)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
            return report
    raise RuntimeError(f"no BENCH line from Godot:\n{result.stdout}\n{result.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128, help="grid side in cells")
    parser.add_argument("--sync", type=int, default=300, help="synchronous find_path calls")
    parser.add_argument("--agents", type=int, default=500, help="agents requesting at once")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="sidecar workers")
    args = parser.parse_args()
    r = run(args.size, args.sync, args.agents, args.workers)
    print(f"grid {r['grid']}x{r['grid']}, {r['wall_fraction']:.0%} walls, sidecar workers {args.workers}")
    calls = r["sync_queries"]
    print(f"sync find_path round trip:     {r['sync_round_trip_ms_mean']:8.3f} ms mean ({calls} calls)")
    print(f"  of which transport (1-cell): {r['sync_trivial_round_trip_ms_mean']:8.3f} ms mean")
    print(f"AStarGrid2D.get_point_path:    {r['astargrid2d_ms_mean']:8.3f} ms mean")
    print(
        f"{r['agents']} x request_path (1 frame): {r['request_path_paths_per_second']:8.0f} paths/s "
        f"({r['request_path_all_ms']:.0f} ms, {r['request_path_failed']} failed)"
    )
    print(
        f"request_paths batch of {r['agents']}:  {r['request_paths_paths_per_second']:8.0f} paths/s "
        f"({r['request_paths_batch_ms']:.0f} ms, {r['request_paths_failed']} failed)"
    )
    print(f"AStarGrid2D same queries:      {r['astargrid2d_paths_per_second']:8.0f} paths/s")
    ratio = r["sync_round_trip_ms_mean"] / max(r["astargrid2d_ms_mean"], 1e-9)
    print(
        f"ratio sync round trip / AStarGrid2D: {ratio:.1f}x; path cost mismatches: "
        f"{r['cost_mismatches_vs_astargrid2d']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
