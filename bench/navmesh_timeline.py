"""The timelines of bench/navmesh_frame.py --timeline: Godot's moments and the sidecar's trace as one.

    print_timelines(report, Path("trace.jsonl"))    # the BENCH report of the Godot run, the trace

Each run of section (a) / (b) sends one ``path.find_packed``; the trace's requests of as many
queries, in order, after the warm-up run's, are its runs'. All moments in milliseconds from the
run's first ``request_path`` call (unix clock on both sides).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["print_timelines"]


def _requests(trace: Path) -> list[list[dict[str, Any]]]:
    """The trace's events cut at each ``recv``: one list per request, in order."""
    out: list[list[dict[str, Any]]] = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["event"] == "recv":
            out.append([])
        if out:
            out[-1].append(event)
    return out


def _stages(godot: dict[str, Any], sidecar: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """One run's moments, ``(what, ms after the first call)``, in time order."""
    t0 = dict(godot["events"])["issue"]
    rows = [(name, t) for name, t in godot["events"]]
    rows += [(f"frame {i + 1} starts (Godot)", t) for i, t in enumerate(godot["frames"])]
    rows += [("first request completed", godot["first_done"]), ("last request completed", godot["last_done"])]
    for e in sidecar:
        what = e["event"]
        if what.startswith("piece"):
            extra = f" cpu {e['cpu_ms']:.1f} ms" if what == "piece_end" else ""
            what = f"{what} [{e['lo']}:{e['hi']}) thread {e['thread']}{extra}"
        rows.append((f"sidecar {what}", e["t"]))
    return sorted(((what, 1e3 * (t - t0)) for what, t in rows), key=lambda row: row[1])


def _summary(godot: dict[str, Any], sidecar: list[dict[str, Any]]) -> dict[str, float]:
    """The run's stage lengths in ms: calls, to the sidecar, searching, answer out, to completion."""
    t0 = dict(godot["events"])["issue"]
    at = {e["event"]: e["t"] for e in sidecar if not e["event"].startswith("piece")}
    starts = [e["t"] for e in sidecar if e["event"] == "piece_start"]
    ends = [e["t"] for e in sidecar if e["event"] == "piece_end"]
    cpu = sum(e["cpu_ms"] for e in sidecar if e["event"] == "piece_end")
    out = at.get("written", at.get("respond_end", max(ends, default=t0)))
    return {
        "calls": 1e3 * (dict(godot["events"])["calls_done"] - t0),
        "recv": 1e3 * (at.get("recv", t0) - t0),
        "search": 1e3 * (max(ends, default=t0) - min(starts, default=t0)),
        "piece_cpu": cpu,
        "answered": 1e3 * (out - t0),
        "done": 1e3 * (godot["last_done"] - t0),
    }


def print_timelines(report: dict[str, Any], trace: Path) -> None:
    """Print each section's runs as timelines, and their stage lengths' medians."""
    requests = _requests(trace)
    for section in report["frame"]:
        if "error" in section:
            print(f"\n{section['mesh']}: failed: {section['error']}")
            continue
        n = section["queries"]
        mine = [r for r in requests if r[0].get("queries") == n][1:]  # after the warm-up run's
        print(f"\n{section['mesh']}: {n} request_path in one frame, {len(section['runs'])} runs")
        summaries = []
        for i, (run, traced) in enumerate(zip(section["runs"], mine, strict=False)):
            print(f"  run {i}: {run['frames']} frames, wall {run['wall_ms']:.1f} ms")
            for what, ms in _stages(run["timeline"], traced):
                print(f"    {ms:8.2f}  {what}")
            summaries.append(_summary(run["timeline"], traced))
        if summaries:
            keys = list(summaries[0])
            medians = ", ".join(f"{k} {np.median([s[k] for s in summaries]):.1f}" for k in keys)
            print(f"  medians (ms from the first call; search and piece_cpu are lengths): {medians}")
    decode = report.get("decode", {})
    if decode:
        print(f"\nGodot decoding the first aurora answer: {decode}")
