"""The demo's headless run (short version) beyond the grid level: the navmesh level (a
NavigationPolygon baked in code), the 3D level (a NavigationMesh baked from colliders) and the big
level (a generated 257 x 257 grid with an HPA* hierarchy, hierarchical paths and doors) each get
a summary section, every one of their NPCs reaches every goal it is given (two at least), and
nothing fails."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import DEMO_PROJECT, import_project, run_demo

pytestmark = [pytest.mark.godot, pytest.mark.slow]

ARRIVAL = re.compile(r"^\[\s*\d+\.\d\d s\] (navmesh|3d|big) npc (\d\d) reached goal (\d+) at \(.+\)$")
HIERARCHY = re.compile(r"^257x257 cells, HPA\* hierarchy built: clusters of 32, \d+ kB$")


@pytest.fixture(scope="module")
def lines(godot: str) -> list[str]:
    import_project(godot, DEMO_PROJECT)
    return run_demo(godot, ["--short", "--levels=navmesh,3d,big"])


def _sections(lines: list[str]) -> dict[str, dict[str, str]]:
    """Summary rows by level: {"navmesh": {"NPCs": "10", ...}, "3d": {...}, "big": {...}}."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in lines:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 2:
            continue
        if cells[0] == "level":
            current = sections.setdefault(cells[1], {})
        current[cells[0]] = cells[1]
    return sections


@pytest.mark.parametrize("level", ["navmesh", "3d", "big"])
def test_every_npc_of_the_level_arrives_and_nothing_fails(lines: list[str], level: str) -> None:
    rows = _sections(lines)[level]
    npcs = int(rows["NPCs"])
    arrivals = [int(m.group(2)) for line in lines if (m := ARRIVAL.match(line)) and m[1] == level]
    arrived = set(arrivals)
    assert arrived == set(range(npcs)), f"{level} NPCs that never arrived: {set(range(npcs)) - arrived}"
    assert rows["goals reached"] == rows["goals given"] == str(len(arrivals))
    assert rows["NPCs at every goal"] == f"{npcs}/{npcs}"
    assert rows["arrivals off the goal"] == "0", "navigation_finished only at the goal"
    assert int(rows["fewest goals an NPC"]) == min(arrivals.count(npc) for npc in arrived) >= 2
    assert rows["failures"] == "0"
    assert rows["goals missed"] == "0"
    assert int(rows["paths received"]) == int(rows["paths requested"]) >= npcs


def test_navmesh_level_has_at_least_ten_npcs(lines: list[str]) -> None:
    assert int(_sections(lines)["navmesh"]["NPCs"]) >= 10
    assert "demo passed" in lines


def test_the_big_level_paths_on_its_hierarchy_and_its_doors_update_it(lines: list[str]) -> None:
    """The sidecar built the hierarchy (graph.info says so), and the doors' graph.update calls
    went through it: a hierarchical query on a grid without one would fail, and none did."""
    assert sum(bool(HIERARCHY.match(line)) for line in lines) == 1, "\n".join(lines[:5])
    rows = _sections(lines)["big"]
    assert rows["failures"] == "0"
    doors = [line for line in lines if re.match(r"^\[\s*\d+\.\d\d s\] big door \d+ (closed|opened)$", line)]
    assert int(rows["door updates"]) == len(doors) >= 3
