"""The demo's obstacles level (issue 40) in a short headless run (8 NPCs, 14 simulated seconds):
three carts (AStarBridgeObstacle2D nodes) slide across the openings between rooms and through the
middle room, every frame's moves going as one graph.update; NPCs re-path around them. Every NPC
reaches every goal it is given, nothing fails, no NPC ever stands inside a cart's outline, and
the carts' moves made paths change (more paths asked than a run without carts would ask)."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import DEMO_PROJECT, import_project, run_demo, summary_rows

pytestmark = [pytest.mark.godot, pytest.mark.slow]

ARRIVAL = re.compile(r"^\[\s*\d+\.\d\d s\] obstacles npc (\d\d) reached goal (\d+) at \((\d+), (\d+)\)$")


@pytest.fixture(scope="module")
def lines(godot: str) -> list[str]:
    import_project(godot, DEMO_PROJECT)
    return run_demo(godot, ["--short", "--levels=obstacles", "--obstacles-npcs=8", "--seconds=14"])


def test_every_npc_reaches_every_goal_around_the_carts(lines: list[str]) -> None:
    rows = summary_rows(lines)
    assert rows["level"] == "obstacles"
    npcs = int(rows["NPCs"])
    arrivals = [int(m[1]) for line in lines if (m := ARRIVAL.match(line))]
    assert set(arrivals) == set(range(npcs)), "\n".join(lines[-40:])
    assert rows["goals reached"] == rows["goals given"] == str(len(arrivals))
    assert rows["NPCs at every goal"] == f"{npcs}/{npcs}"
    assert rows["failures"] == "0"
    assert "demo passed" in lines


def test_carts_move_as_obstacles_and_never_run_over_an_npc(lines: list[str]) -> None:
    rows = summary_rows(lines)
    assert rows["carts (obstacles)"] == "3"
    assert int(rows["cart updates"]) > 100, "the carts moved on most steps"
    assert rows["NPCs inside a cart"] == "0"
    # Each NPC asks about once a second on its own (REPATH_S) and once per goal; a cart moving
    # into a path re-asks its agent: many more answers than goals.
    assert int(rows["paths received"]) > 4 * int(rows["goals given"])
