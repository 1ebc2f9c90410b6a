"""The demo's headless run (short version): every NPC reaches its first goal, no request fails,
and a second run prints the same lines apart from those marked "(timing)"."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import DEMO_PROJECT, import_project, run_demo

pytestmark = [pytest.mark.godot, pytest.mark.slow]

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


def test_short_run_every_npc_arrives_and_nothing_fails(demo_godot: str) -> None:
    lines = _run(demo_godot)
    npcs = int(_row(lines, "NPCs"))
    arrived = {int(m.group(1)) for line in lines if (m := ARRIVAL.match(line))}
    assert arrived == set(range(npcs)), f"NPCs that never arrived: {set(range(npcs)) - arrived}"
    assert _row(lines, "NPCs at first goal") == f"{npcs}/{npcs}"
    assert _row(lines, "failures") == "0"
    assert int(_row(lines, "paths requested")) >= npcs
    assert "demo passed" in lines


def test_two_runs_print_the_same_apart_from_timings(demo_godot: str) -> None:
    first, second = ([line for line in _run(demo_godot) if "(timing)" not in line] for _ in range(2))
    assert first == second
