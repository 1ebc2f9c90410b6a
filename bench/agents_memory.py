"""Memory and restart of the addon's agents over a long game: 50 grid agents changing cell every frame.

Runs bench/godot/agents_memory.gd headless with ``--fixed-fps 60`` (game time runs as fast as the
machine allows): a crowd of agents, each moving one cell per physics frame so the occupancy sends a
graph update every frame, for the given game time. Prints what the autoload keeps of the graph to
re-upload after a restart (``get_graph_state_size``), its request queue and the process's memory
when every agent is placed and at the end, then kills the sidecar and prints how long until the
graph is re-uploaded (``sidecar_ready``) and a path is found. A command, not a test::

    .venv/bin/python bench/agents_memory.py --minutes 10 --agents 50
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
SCRIPT = REPO / "bench" / "godot" / "agents_memory.gd"


def run(seconds: float, agents: int, restarts: int, *, occupancy: bool = True) -> list[dict[str, Any]]:
    """One Godot run; its BENCH records in order."""
    godot = godot_binary()
    subprocess.run(
        [godot, "--headless", "--path", str(PROJECT), "--import"], capture_output=True, check=False
    )
    env = {**os.environ, "ASTAR_BRIDGE_PYTHON": sys.executable}
    env.pop("LD_LIBRARY_PATH", None)
    args = [godot, "--headless", "--fixed-fps", "60", "--path", str(PROJECT), "--script", str(SCRIPT)]
    args += ["--", str(seconds), str(agents), str(restarts)]
    if not occupancy:
        args.append("--no-occupancy")
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=7200, check=False)
    records = [json.loads(line[6:]) for line in result.stdout.splitlines() if line.startswith("BENCH ")]
    if result.returncode != 0 or not records or records[-1].get("when") != "restart":
        raise RuntimeError(f"the Godot run failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return records


def _print_row(r: dict[str, Any]) -> None:
    print(
        f"  {r['when']:8} {r['game_s']:8.1f} {r['frames']:8d} {r['wall_s']:7.1f} {r['cell_changes']:10d} "
        f"{r['arrivals']:7d} {r['state_size']:6d} {r['pending']:7d} {r['requests']:8d} {r['failures']:5d} "
        f"{r['static_memory_bytes'] / 1e6:9.1f} {r['objects']:7d}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="game time, in minutes")
    parser.add_argument("--agents", type=int, default=50, help="agents in the crowd")
    parser.add_argument("--restarts", type=int, default=3, help="sidecar kills at the end, 10 game s apart")
    parser.add_argument(
        "--no-occupancy", action="store_true", help="agents without agent ids: no update per frame (A/B)"
    )
    args = parser.parse_args()
    records = run(args.minutes * 60.0, args.agents, args.restarts, occupancy=not args.no_occupancy)
    print(f"{args.agents} agents moving one cell per physics frame (60 per game second), one Godot run")
    print(
        f"  {'when':8} {'game s':>8} {'frames':>8} {'wall s':>7} {'cell moves':>10} {'goals':>7} "
        f"{'state':>6} {'pending':>7} {'paths':>8} {'fail':>5} {'memory MB':>9} {'objects':>7}"
    )
    for record in records:
        if record["when"] != "restart":
            _print_row(record)
    rows = [r for r in records if r["when"] != "restart"]
    start, end = rows[0], rows[-1]
    print(
        f"stored state (entries kept to re-upload the graph): {start['state_size']} at the start, "
        f"{end['state_size']} at the end after {end['cell_changes'] - start['cell_changes']} cell moves; "
        f"process static memory {start['static_memory_bytes'] / 1e6:.2f} -> "
        f"{end['static_memory_bytes'] / 1e6:.2f} MB"
    )
    for restart in (r for r in records if r["when"] == "restart"):
        phases = ", ".join(
            f"{name.lower()} {ms:.0f}"
            for name, ms in sorted(restart["phases_ms"].items(), key=lambda kv: kv[1])
        )
        print(
            f"sidecar killed (pid {restart['killed_pid']} -> {restart['new_pid']}): graph re-uploaded and "
            f"ready after {restart['ready_ms']:.0f} ms, first path ({restart['path_status']}) after "
            f"{restart['path_ms']:.0f} ms (goal < 1000 ms); phases first seen at (ms): {phases}; "
            f"state kept {restart['state_size']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
