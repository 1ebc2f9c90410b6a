"""The flow-field resource's main-thread cost per frame, as a game sees it (one headless run).

2,000 units on a 512 x 512 map of rooms and doors heading to 4 goals (one shared
``AStarBridgeFlowField`` per goal, the sidecar started by the addon): per frame, every unit's
``direction_at`` and every unit's ``next_waypoint`` (the crowd agents' call; from the field's
per-cell cache while units stay in their cells, and with the cache off: every unit in a new
cell), beside a GDScript loop that only reads each unit's position (the floor of any per-unit loop) and
``AStarGrid2D.get_point_path`` for some of the same units (what one path per unit costs the frame).
Also the frames from ``request_flow_field`` until a first unit has a direction, and the requests
the fields sent. Raw figures, no assertions. A command, not a test::

    .venv/bin/python bench/flowfield_addon.py --units 2000 --frames 120
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.generated_maps import rooms_and_doors  # noqa: E402
from bench.godot_binary import godot_binary  # noqa: E402

PROJECT = REPO / "tests" / "godot_project"
SCRIPT = REPO / "bench" / "godot" / "flow_field_bench.gd"


def _spec(size: int, units: int, frames: int, godot_paths: int, cluster: int) -> dict[str, Any]:
    mask = rooms_and_doors(size, room=32)
    free = np.argwhere(mask)  # (y, x)
    rng = np.random.default_rng(5)
    corners = [(size // 8, size // 8), (size - size // 8, size // 8), (size // 8, size - size // 8)]
    corners.append((size - size // 8, size - size // 8))
    goals = []
    for gx, gy in corners:
        nearest = free[np.argmin(np.abs(free[:, 0] - gy) + np.abs(free[:, 1] - gx))]
        goals.append([int(nearest[1]), int(nearest[0])])
    picked = free[rng.choice(len(free), size=units, replace=False)]
    return {
        "width": size,
        "height": size,
        "cells": base64.b64encode(np.ascontiguousarray(mask, dtype=np.uint8).tobytes()).decode(),
        "goals": goals,
        "units": [[int(x), int(y)] for y, x in picked],
        "frames": frames,
        "godot_paths": godot_paths,
        "cluster_size": cluster,
    }


def run(size: int, units: int, frames: int, godot_paths: int, cluster: int) -> dict[str, Any]:
    """One Godot run; the script's report."""
    godot = godot_binary()
    subprocess.run(
        [godot, "--headless", "--path", str(PROJECT), "--import"], capture_output=True, check=False
    )
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as spec:
        json.dump(_spec(size, units, frames, godot_paths, cluster), spec)
    env = {**os.environ, "ASTAR_BRIDGE_PYTHON": sys.executable}
    env.pop("LD_LIBRARY_PATH", None)
    try:
        args = [godot, "--headless", "--path", str(PROJECT), "--script", str(SCRIPT), "--", spec.name]
        result = subprocess.run(
            args, env=env, capture_output=True, text=True, timeout=1800, check=False, stdin=subprocess.DEVNULL
        )
    finally:
        os.unlink(spec.name)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
            return report
    raise RuntimeError(f"no BENCH line from Godot:\n{result.stdout}\n{result.stderr}")


def _line(label: str, values: list[float], units: int) -> None:
    ordered = sorted(values)
    median = statistics.median(ordered)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    print(
        f"  {label:34} median {median / 1000:7.3f} ms  p90 {p90 / 1000:7.3f} ms  "
        f"max {ordered[-1] / 1000:7.3f} ms  ({median * 1000 / units:6.0f} ns per unit)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--godot-paths", type=int, default=200, help="units timed with AStarGrid2D")
    parser.add_argument("--cluster-size", type=int, default=32, help="HPA* cluster = tile size (0: none)")
    parser.add_argument("--raw", action="store_true", help="also print every frame's microseconds")
    args = parser.parse_args()
    report = run(args.size, args.units, args.frames, args.godot_paths, args.cluster_size)
    units = report["units"]
    print(
        f"{units} units to 4 goals on a {args.size}x{args.size} rooms map (tiles of {args.cluster_size}), "
        f"{args.frames} frames each"
    )
    print(
        f"  first direction {report['first_direction_frames']} frames / "
        f"{report['first_direction_ms']:.1f} ms "
        f"after request_flow_field; every unit's tile held after {report['settle_frames']} more frames "
        f"({report['unknown_after_settle']} still unknown)"
    )
    print(
        f"  the 4 fields sent {report['field_requests']} field.request and {report['field_fetches']} "
        f"field.tiles, received {report['tiles_held']} tiles"
    )
    _line("direction_at, every unit", report["direction_at_us"], units)
    _line("next_waypoint(16), every unit", report["next_waypoint_us"], units)
    _line("  all in new cells (1 ms budget/field)", report["next_waypoint_budget_us"], units)
    _line("  all in new cells, no budget", report["next_waypoint_cold_us"], units)
    _line("loop floor (read each position)", report["floor_us"], units)
    paths = report["godot_paths"]
    per_path = paths["us"] / max(paths["paths"], 1)
    print(
        f"  AStarGrid2D.get_point_path: {paths['paths']} units ({paths['found']} found) in "
        f"{paths['us'] / 1000:.1f} ms = {per_path:.0f} us per path, {per_path * units / 1000:.0f} ms "
        f"for all {units} units"
    )
    if args.raw:
        for key in (
            "direction_at_us",
            "next_waypoint_us",
            "next_waypoint_budget_us",
            "next_waypoint_cold_us",
            "floor_us",
        ):
            print(f"  raw {key}: {report[key]}")


if __name__ == "__main__":
    main()
