"""The README run's rounds beside its sidecar's state, for bench/addon_roundtrip.py: per round of
300 ``request_path``, when it began (seconds since the sidecar started loading kernels, from its
log), its wall time, whether the sidecar's kernels were all in yet, and with ``--probe`` the
sidecar's full garbage collections and stalls (bench/sidecar_probe) that overlapped it.

    rows = rounds(readme_report, probe_lines)   # one dict per round, the uncounted first
    print_rounds(rows)
"""

from __future__ import annotations

import re
import statistics
from datetime import datetime
from typing import Any

_LOG = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \S+ \w+ (.*)$")
_READY = re.compile(r"^kernels ready in ([0-9.]+) s")
_FIRST = re.compile(r"^grid and waypoint kernels loaded in ([0-9.]+) s")


def _log_times(lines: list[str]) -> dict[str, float]:
    """Unix times of the sidecar's start-up lines: 'began' (kernel loading started), 'first' (grid
    and waypoint kernels in), 'ready' (every kernel in); those it did not log are absent."""
    times: dict[str, float] = {}
    for line in lines:
        match = _LOG.match(line)
        if match is None:
            continue
        at = datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f").timestamp()
        if (ready := _READY.match(match[2])) is not None:
            times["ready"] = at
            times["began"] = at - float(ready[1])
        elif _FIRST.match(match[2]) is not None:
            times["first"] = at
    return times


def _events(probe: list[str]) -> list[tuple[str, float, float, str]]:
    """(kind, unix start, seconds, what) of the probe's lines; what: a jit line's thread."""
    events = []
    for line in probe:
        parts = line.split()
        if len(parts) >= 3 and parts[0] in {"gc2", "stall", "jit"}:
            what = parts[3] if parts[0] == "jit" and len(parts) > 3 else ""
            events.append((parts[0], float(parts[1]), float(parts[2]), what))
    return events


def rounds(readme: dict[str, Any], probe: list[str]) -> list[dict[str, Any]]:
    """One row per round of the README run (its uncounted rounds first, marked)."""
    frame = readme["frame"]
    times = _log_times(readme.get("sidecar_log", []))
    began = times.get("began", readme["ready_unix"])
    events = _events(probe)
    rows = []
    for counted, runs in ((False, frame.get("warm_up_runs", [])), (True, frame["runs"])):
        for run in runs:
            start = run["at_unix"]
            end = start + run["answered_ms"] / 1000
            ready = times.get("ready", end)
            if ready <= start:
                state = "all"
            elif ready < end:
                state = "in during"
            else:
                state = "some" if times.get("first", end) <= start else "none"
            overlapping = [e for e in events if e[1] < end and e[1] + e[2] > start]
            rows.append(
                {
                    "counted": counted,
                    "since_start_s": start - began,
                    "since_ready_s": start - readme["ready_unix"],
                    "answered_ms": run["answered_ms"],
                    "frames": run["frames"],
                    "kernels": state,
                    "gc2_ms": [e[2] * 1000 for e in overlapping if e[0] == "gc2"],
                    "stall_ms": [e[2] * 1000 for e in overlapping if e[0] == "stall"],
                    "jit_ms": [(e[2] * 1000, e[3]) for e in overlapping if e[0] == "jit"],
                }
            )
    return rows


def print_rounds(rows: list[dict[str, Any]], log_times: str) -> None:
    """The rows as a table (``log_times``: the sidecar's start-up line, printed above)."""
    print(f"  rounds beside the sidecar ({log_times}):")
    print(
        f"  {'round':>5} {'since load s':>12} {'since ready s':>13} {'answered ms':>11} {'frames':>6} "
        f"{'kernels in':>10}  full GCs ms / stalls ms / kernel loads: count, ms, threads (probe)"
    )
    counted = 0
    for row in rows:
        label = "warm" if not row["counted"] else str(counted := counted + 1)
        gcs = " ".join(f"{v:.0f}" for v in row["gc2_ms"]) or "-"
        stalls = " ".join(f"{v:.0f}" for v in sorted(row["stall_ms"], reverse=True)[:5]) or "-"
        jit = row["jit_ms"]
        loads = (
            f"{len(jit)}, {sum(ms for ms, _ in jit):.0f}, {','.join(sorted({t for _, t in jit}))}"
            if jit
            else "-"
        )
        print(
            f"  {label:>5} {row['since_start_s']:12.2f} {row['since_ready_s']:13.2f} "
            f"{row['answered_ms']:11.1f} {row['frames']:6d} {row['kernels']:>10}  {gcs} / {stalls} / {loads}"
        )


def start_up_line(readme: dict[str, Any]) -> str:
    times = _log_times(readme.get("sidecar_log", []))
    if "ready" not in times:
        return "no 'kernels ready' line in its log"
    first = f"grid kernels in {times['first'] - times['began']:.2f} s, " if "first" in times else ""
    return f"{first}all kernels in {times['ready'] - times['began']:.2f} s after loading began"


def summary(all_rows: list[list[dict[str, Any]]]) -> None:
    """Across runs: the first counted round's wall time, every counted round's, the slow ones."""
    firsts = [next(r["answered_ms"] for r in rows if r["counted"]) for rows in all_rows]
    every = [r["answered_ms"] for rows in all_rows for r in rows if r["counted"]]
    warm = [r["answered_ms"] for rows in all_rows for r in rows if not r["counted"]]
    print(f"\nREADME rounds over {len(all_rows)} runs (answered ms):")
    print(f"  uncounted first round: {' '.join(f'{v:.0f}' for v in warm)}")
    print(f"  1st counted round:     {' '.join(f'{v:.0f}' for v in firsts)}")
    print(
        f"  every counted round: median {statistics.median(every):.1f}, max {max(every):.1f}; "
        f"over 40 ms: {sum(v > 40 for v in every)} of {len(every)}"
    )
    slow = [r for rows in all_rows for r in rows if r["counted"] and r["answered_ms"] > 40]
    states = sorted({r["kernels"] for r in slow})
    print(f"  slow rounds' kernel states: {states}; with a full GC: {sum(bool(r['gc2_ms']) for r in slow)}")
