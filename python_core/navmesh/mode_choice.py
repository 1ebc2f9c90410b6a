"""Which mode answers a navmesh query that does not choose: Polyanya or the corridor + funnel.

    choice = choose_mode(mesh)        # ModeChoice(mode="optimal" | "funnel", seconds per mode)

Polyanya (``optimal``) gives the exactly shortest path; the corridor + funnel a path never
shorter. Which one is faster depends on the mesh: on a small arena the funnel's corridor A* wins,
on a big mesh of many thin polygons (aurora) Polyanya expands fewer nodes and wins. So the mesh is
measured once, when it is built: :data:`PROBES` seeded pairs of polygon centres, each solved by
both (compiled code warmed first), best of :data:`REPEATS` (on aurora, 34,816 polygons, a few
tenths of a second), timed by this thread's CPU: wall time on a busy machine (a game and a build
on two cores) charged one mode for the other processes' turns, and aurora fell back to the funnel,
ten times slower than Polyanya. Polyanya answers by default only when
it took at most :data:`MARGIN` of the funnel's time: a mode that is exact and faster. Meshes with
off-mesh links, or regions of different costs, keep the funnel (Polyanya plans on polygons
only, by length). A probed mesh gets Polyanya's landmarks first
(:func:`~python_core.navmesh.polyanya.build_landmarks`: on aurora a few tenths of a second more).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from python_core.navmesh.mesh import NavMesh
from python_core.navmesh.polyanya import build_landmarks, find_optimal_path

__all__ = ["MARGIN", "PROBES", "REACH", "ModeChoice", "choose_mode"]

PROBES = 10
"""Pairs of polygon centres timed in each mode."""
REACH = 0.25
"""A probe's goal lies within this share of the mesh's extent (its bounding box's diagonal)."""
REPEATS = 1
"""Each mode's probes run this many times; the fastest run counts (less noise from other work)."""
MARGIN = 1.0
"""Polyanya is the default when its probes took at most this share of the funnel's (exact: ties go
to it)."""
SMALL = 64
"""Meshes of fewer polygons keep the funnel without probing (microseconds either way)."""


@dataclass(frozen=True)
class ModeChoice:
    """The default mode of a mesh and what decided it.

    Attributes:
        mode: ``"optimal"`` (Polyanya) or ``"funnel"`` (corridor + funnel).
        funnel_us, optimal_us: the probes' mean time per query in each mode (0 when not probed).
        reason: why (``"measured"``, ``"links"``, ``"costs"``, ``"small"``).
    """

    mode: str
    funnel_us: float = 0.0
    optimal_us: float = 0.0
    reason: str = "measured"

    def to_info(self) -> dict[str, object]:
        """The choice as ``graph.info`` shows it."""
        return {"mode": self.mode, "reason": self.reason,
                "funnel_us": round(self.funnel_us, 1), "optimal_us": round(self.optimal_us, 1)}  # fmt: skip


def _probe_ends(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """Seeded pairs of polygon centres (the same on every run), each goal within
    :data:`REACH` of the mesh's extent from its start (a whole-map probe on a big mesh takes tens
    of milliseconds)."""
    rng = np.random.default_rng(40)
    picks = rng.integers(0, mesh.polygon_count, size=PROBES * 8)
    centres = np.array([mesh.vertices[mesh.polygon(int(p))].mean(axis=0) for p in picks])
    reach = REACH * float(np.linalg.norm(np.ptp(mesh.vertices, axis=0)))
    starts, goals = centres[:PROBES], []
    for s in starts:
        near = np.flatnonzero(np.linalg.norm(centres[PROBES:] - s, axis=1) <= reach)
        goals.append(centres[PROBES + near[0]] if near.size else s)
    return starts, np.array(goals)


def choose_mode(mesh: NavMesh) -> ModeChoice:
    """The faster exact mode of ``mesh`` by its probes (see the module docstring)."""
    if mesh.links:
        return ModeChoice("funnel", reason="links")
    if np.any(mesh.enter_costs != 0.0) or np.any(mesh.travel_costs != mesh.travel_costs[0]):
        return ModeChoice("funnel", reason="costs")  # Polyanya minimises length, not cost
    if mesh.polygon_count < SMALL:
        return ModeChoice("funnel", reason="small")
    build_landmarks(mesh)  # Polyanya's lower bounds, before it is timed as it will run
    starts, goals = _probe_ends(mesh)
    find_optimal_path(mesh, starts[0], goals[0])  # compiled code loaded before timing
    mesh.find_path(starts[0], goals[0])
    best = {"funnel": float("inf"), "optimal": float("inf")}
    for _ in range(REPEATS):
        for mode in ("funnel", "optimal"):
            t0 = time.thread_time()  # CPU: not the turns other processes took meanwhile
            for s, g in zip(starts, goals, strict=True):
                if mode == "optimal":
                    find_optimal_path(mesh, s, g)
                else:
                    mesh.find_path(s, g)
            best[mode] = min(best[mode], (time.thread_time() - t0) / PROBES * 1e6)
    mode = "optimal" if best["optimal"] <= MARGIN * best["funnel"] else "funnel"
    return ModeChoice(mode, best["funnel"], best["optimal"])
