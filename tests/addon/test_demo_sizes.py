"""The demo's unit sizes level (issue 38), headless and short: small (1x1) and large (2x2) units on
one loaded grid, rooms joined by one-cell doors and four-cell openings. Every unit reaches every
goal it is given, nothing fails, the small units take the one-cell doors and no large unit ever
stands in one (its agent paths for its 2x2 footprint, taken from its body's collision circle)."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import DEMO_PROJECT, import_project, run_demo, summary_rows

pytestmark = [pytest.mark.godot]

ARRIVAL = re.compile(r"^\[\s*\d+\.\d\d s\] sizes npc (\d\d) reached goal (\d+) at \(\d+, \d+\)$")


@pytest.fixture(scope="module")
def lines(godot: str) -> list[str]:
    import_project(godot, DEMO_PROJECT)
    return run_demo(godot, ["--short", "--levels=sizes"])


def test_every_unit_small_or_large_reaches_every_goal(lines: list[str]) -> None:
    rows = summary_rows(lines)
    assert rows["level"] == "sizes"
    npcs = int(rows["NPCs"])
    arrived = {int(m.group(1)) for line in lines if (m := ARRIVAL.match(line))}
    assert arrived == set(range(npcs)), f"never arrived: {set(range(npcs)) - arrived}"
    assert rows["NPCs at every goal"] == f"{npcs}/{npcs}"
    assert rows["goals reached"] == rows["goals given"]
    assert rows["arrivals off the goal"] == "0"
    assert rows["failures"] == "0"
    assert "demo passed" in lines


def test_only_the_small_units_take_the_one_cell_doors(lines: list[str]) -> None:
    rows = summary_rows(lines)
    large, npcs = (int(n) for n in rows["large units (2x2)"].split("/"))
    assert 0 < large < npcs, "both sizes play"
    assert rows["large in 1-cell doors"] == "0 steps"
    assert int(rows["small in 1-cell doors"].split()[0]) > 0, "the small units use the shortcuts"
