"""Units of any size against Godot, from GDScript, in one run: one eroded ``AStarGrid2D`` per size
(its build time with the erosion, the static memory it adds, its query time) beside our one loaded
grid answering every size through the socket (``"size"`` in the query options).

Runs bench/godot/unit_sizes_bench.gd headless in tests/godot_project (the addon starts a sidecar
with this interpreter) and prints a table per map. Both sides follow the same rule (the diagonal
mode on the eroded grid), so "same cost" should be every query. A command, not a test::

    .venv/bin/python bench/unit_sizes_godot.py --queries 200 --sizes 1,2,3,4 \\
        tests/data/movingai/arena.map tests/data/movingai/den312d.map
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
sys.path.insert(0, str(REPO))

from bench.godot_binary import godot_binary  # noqa: E402

PROJECT = REPO / "tests" / "godot_project"
SCRIPT = REPO / "bench" / "godot" / "unit_sizes_bench.gd"
DEFAULT_MAPS = [REPO / "tests" / "data" / "movingai" / "den312d.map"]


def run_map(godot: str, map_path: Path, queries: int, sizes: str) -> dict[str, Any]:
    """One headless Godot run on ``map_path``: the bench script's report."""
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env.update({"ASTAR_BRIDGE_PYTHON": sys.executable, "ASTAR_BRIDGE_REPO": str(REPO)})
    args = [godot, "--headless", "--path", str(PROJECT), "--script", str(SCRIPT), "--"]
    args += [str(map_path.resolve()), str(queries), sizes]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=3600, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line[len("BENCH ") :])
            return report
    raise SystemExit(f"godot failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")


def print_report(report: dict[str, Any]) -> None:
    """The table of one map."""
    cells = report["width"] * report["height"]
    print(f"\n{report['map']}: {report['width']}x{report['height']}, {report['queries']} queries per size")
    print(f"ours: one grid for every size, loaded in {report['ours_load_ms']:.1f} ms;")
    print(f"      its clearance is {cells} bytes (one byte per cell), computed in the sidecar")
    head = (
        "size",
        "Godot build ms",
        "Godot memory MB",
        "Godot query us",
        "ours query us",
        "found",
        "same cost",
    )
    print(" | ".join(head))
    total_ms = 0.0
    total_bytes = 0.0
    for row in report["sizes"]:
        total_ms += row["godot_build_ms"]
        total_bytes += row["godot_bytes"]
        print(
            f"{row['size']:>4} | {row['godot_build_ms']:>14.1f} | {row['godot_bytes'] / 1e6:>15.2f} | "
            f"{row['godot_query_us']:>14.0f} | {row['ours_query_us']:>13.0f} | {row['found']:>5} | "
            f"{row['agree']:>5}/{report['queries']}"
        )
    print(f" all | {total_ms:>14.1f} | {total_bytes / 1e6:>15.2f} |  (Godot: one grid per size, all kept)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("maps", nargs="*", type=Path, default=DEFAULT_MAPS, help="Moving AI .map files")
    parser.add_argument("--queries", type=int, default=200, help="queries per size (default 200)")
    parser.add_argument("--sizes", default="1,2,3,4", help="unit sizes, ascending (default 1,2,3,4)")
    args = parser.parse_args()
    godot = godot_binary()
    subprocess.run(
        [godot, "--headless", "--path", str(PROJECT), "--import"],
        capture_output=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"},
    )
    for map_path in args.maps:
        print_report(run_map(godot, map_path, args.queries, args.sizes))


if __name__ == "__main__":
    main()
