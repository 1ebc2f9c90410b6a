"""The demo's headless run (short version): the NPCs go from goal to goal and every NPC reaches
every goal it is given (the summary counts them all, not only the first), no request fails and
no failure line is printed, and a second run prints the same lines apart from those marked
"(timing)"."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import DEMO_PROJECT, import_project, run_demo

pytestmark = [pytest.mark.godot, pytest.mark.slow]

FAILURE = re.compile(r"\bfailed\b", re.IGNORECASE)
ARRIVAL = re.compile(r"^\[\s*\d+\.\d\d s\] npc (\d\d) reached goal (\d+) at \(\d+, \d+\)$")


@pytest.fixture(scope="module")
def demo_godot(godot: str) -> str:
    import_project(godot, DEMO_PROJECT)
    return godot


def _run(godot: str) -> list[str]:
    return run_demo(godot, ["--short"])


def _row(lines: list[str], name: str) -> str:
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 2 and cells[0] == name:
            return cells[1]
    raise AssertionError(f"no summary row {name!r} in:\n" + "\n".join(lines))


def test_short_run_every_npc_reaches_every_goal_and_nothing_fails(demo_godot: str) -> None:
    lines = _run(demo_godot)
    npcs = int(_row(lines, "NPCs"))
    goals: dict[int, list[int]] = {}
    for line in lines:
        if m := ARRIVAL.match(line):
            goals.setdefault(int(m.group(1)), []).append(int(m.group(2)))
    assert set(goals) == set(range(npcs)), f"NPCs that never arrived: {set(range(npcs)) - set(goals)}"
    for npc, numbers in goals.items():
        assert numbers == list(range(1, len(numbers) + 1)), f"npc {npc}: one line a goal, in order"
    reached = sum(len(numbers) for numbers in goals.values())
    assert _row(lines, "goals reached") == str(reached), "every arrival line is counted"
    assert _row(lines, "goals given") == str(reached), "every goal given was reached"
    assert _row(lines, "NPCs at every goal") == f"{npcs}/{npcs}"
    assert _row(lines, "arrivals off the goal") == "0", "navigation_finished only at the goal"
    fewest = min(len(numbers) for numbers in goals.values())
    assert _row(lines, "fewest goals an NPC") == str(fewest)
    assert fewest >= 2, "every NPC went on to a second goal: none idles after its first"
    assert _row(lines, "failures") == "0"
    assert not [line for line in lines if FAILURE.search(line)], "a passing run prints no failure"
    assert "demo passed" in lines


def test_two_runs_print_the_same_apart_from_timings(demo_godot: str) -> None:
    first, second = ([line for line in _run(demo_godot) if "(timing)" not in line] for _ in range(2))
    assert first == second
