"""Crowd benchmark: 2,000 units to 4 goals on a 512 x 512 map, flow fields beside one path per unit.

    .venv/bin/python bench/crowd.py               # about a minute
    .venv/bin/python bench/crowd.py --units 500   # quicker

One headless Godot run of bench/godot/crowd_bench.gd in demo_project, against the autoload's own
sidecar, on the crowd level's map and units (demo_project/levels/crowd_level.gd: seed 7, unit i
heads for goal i % 4, the game at 60 fps):

(a) flow fields: the level's four ``request_flow_field`` calls, then every frame each unit samples
    its field (``direction_at``, timed alone) and the crowd steps, until every unit has arrived:
    the sidecar's CPU time (user + system of it and its workers, from /proc), the main thread's
    time per frame, frames from the order until the first unit moved;
(b) the same units each asking one exact path (``request_path``, all in one frame): the addon's
    main-thread time, frames until all answered, the sidecar's CPU time;
(c) each unit calling Godot's ``AStarGrid2D.get_point_path`` on the same grid: main-thread time;
(d) a door closed after (a) (every field then covers the map): per field, the tiles the sidecar
    recomputed and re-sent (``field.changed``), and the tiles the fields fetched again; then the
    same door opened, closed and opened again, waiting (``set_cells_solid``) and not waiting
    (``request_cells_solid``): the main thread's time per change, the frames until the answer.

Prints a markdown table. A command, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.godot_binary import godot_binary  # noqa: E402

PROJECT = REPO / "demo_project"
SCRIPT = REPO / "bench" / "godot" / "crowd_bench.gd"


def run(units: int) -> dict[str, Any]:
    """One Godot run; the script's report as a dict."""
    godot = godot_binary()
    env = {key: value for key, value in os.environ.items() if key != "LD_LIBRARY_PATH"}
    subprocess.run(
        [godot, "--headless", "--path", str(PROJECT), "--import"],
        capture_output=True,
        check=False,
        env=env,
    )
    args = [godot, "--headless", "--path", str(PROJECT), "--script", str(SCRIPT), "--", str(units)]
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, check=False)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            report: dict[str, Any] = json.loads(line.removeprefix("BENCH "))
            return report
    raise RuntimeError(f"no BENCH line from Godot:\n{result.stdout}\n{result.stderr}")


def _median_ms(values_us: list[float]) -> float:
    return statistics.median(values_us) / 1000.0 if values_us else 0.0


def _p99_ms(values_us: list[float]) -> float:
    if not values_us:
        return 0.0
    ordered = sorted(values_us)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] / 1000.0


def table(report: dict[str, Any]) -> list[str]:
    """The markdown lines of the report."""
    fields, paths, grid, door = report["fields"], report["paths"], report["astar_grid"], report["door"]
    units = report["units"]
    frames = max(fields["frames"], 1)
    sample, step = fields["sample_us"], fields["step_us"]
    lines = [
        f"{units} units to 4 goals on the crowd level's {report['size']}x{report['size']} map "
        f"(upload with HPA* {report['load_ms']:.0f} ms), game at {report['fps']} fps, one Godot run",
        "",
        "| | sidecar CPU | main thread | frames |",
        "|---|---|---|---|",
        f"| (a) 4 flow fields, every unit sampling every frame until all {fields['arrived']} arrived "
        f"| {fields['sidecar_cpu_ms']:.0f} ms ({fields['sidecar_cpu_to_all_sampled_ms']:.0f} ms "
        f"until every unit had a direction) "
        f"| sampling all units (direction_at): {_median_ms(sample):.2f} ms/frame median, "
        f"{_p99_ms(sample):.2f} p99; crowd step (sample, move, separate, draw) "
        f"{_median_ms(step):.2f} ms median; addon request queue (send, poll) "
        f"{fields['addon_main_thread_ms'] / frames:.3f} ms/frame; main-thread CPU for everything "
        f"{fields['main_thread_cpu_ms'] / frames:.2f} ms/frame "
        f"| first unit moved {fields['first_move_frame']} frames after the order; every unit "
        f"had a direction after {fields['all_sampled_frame']}; all arrived after {fields['frames']} |",
        f"| (b) one exact path per unit (request_path, {paths['paths']} in one frame, "
        f"{paths['found']} found, {paths['failures']} failed) "
        f"| {paths['sidecar_cpu_ms']:.0f} ms "
        f"| addon request queue {paths['addon_main_thread_ms']:.1f} ms in all; the loop of "
        f"request_path calls {paths['send_ms']:.1f} ms; "
        f"main-thread CPU {paths['main_thread_cpu_ms']:.1f} ms "
        f"| all answered after {paths['frames']} ({paths['wall_ms']:.0f} ms) |",
        f"| (c) AStarGrid2D.get_point_path per unit ({grid['found']} found) "
        f"| - | {grid['wall_ms']:.1f} ms in one frame (CPU {grid['main_thread_cpu_ms']:.1f} ms; "
        f"grid set-up {grid['build_ms']:.0f} ms) | blocks 1 |",
        "",
        "Fields' first tiles arrived "
        + ", ".join(f"{ms:.0f}" for ms in fields["fields_ready_ms"])
        + " ms after the order (a field's first answer brings the tiles of its first units).",
        "",
        f"Flow fields: {fields['field_requests']} field.request and {fields['tile_fetches']} "
        f"field.tiles sent, {fields['tiles_received']} tiles received "
        f"({units / max(fields['tiles_received'], 1):.2f} units per tile).",
        "",
    ]
    total = door["tiles_per_field"]
    lines += [
        f"A door closed ({len(door['cells'])} cells at {door['cells'][0]}): graph.update "
        f"{door['update_ms']:.0f} ms, sidecar CPU {door['sidecar_cpu_ms']:.0f} ms; the fields "
        f"fetched {door['refetched']} tiles again",
        "",
        "| field.changed | tiles recomputed | tiles re-sent | of tiles |",
        "|---|---|---|---|",
    ]
    for changed in door["changed"]:
        lines.append(f"| {changed['field']} | {changed['recomputed']} | {len(changed['tiles'])} | {total} |")
    unchanged = door["fields"] - len(door["changed"])
    if unchanged:
        lines.append(f"| {unchanged} other field(s): no tile changed | - | 0 | {total} |")
    shut, opened = door["async_close"], door["async_open"]
    lines += [
        "",
        "The same door, main thread per change: waiting (set_cells_solid) close "
        f"{door['update_ms']:.0f} ms, open {door['sync_open_ms']:.0f} ms; not waiting "
        f"(request_cells_solid) close {shut['call_ms']:.2f} ms (answered {shut['answer_ms']:.0f} ms "
        f"later, {shut['frames']} frames on), open {opened['call_ms']:.2f} ms (answered "
        f"{opened['answer_ms']:.0f} ms later, {opened['frames']} frames on)"
        + ("" if door["async_ok"] else " - AN UPDATE FAILED"),
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=2000, help="units (a multiple of 4)")
    args = parser.parse_args()
    print("\n".join(table(run(args.units))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
