"""Provenance of the oracle: the checked-in dump is what the engine prints today (the dump script
run in a real headless Godot gives the same file)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.grid.layouts.godot_dump import DUMP, dump
from tests.godot_env import engine_errors, run_godot

SCRIPT = DUMP.parent / "dump_tile_layouts.gd"


def test_the_checked_in_dump_is_the_engines(godot: str, tmp_path: Path) -> None:
    (tmp_path / "project.godot").write_text("config_version=5\n")
    out = tmp_path / "dump.json"
    result = run_godot(godot, tmp_path, ["--script", str(SCRIPT), "--", str(out)], timeout=120)
    assert result.returncode == 0, result.stdout
    assert not engine_errors(result.stdout), result.stdout
    fresh = json.loads(out.read_text())
    fresh["godot"] = dump()["godot"]  # a newer 4.x patch release may print its own name
    assert fresh == dump()
