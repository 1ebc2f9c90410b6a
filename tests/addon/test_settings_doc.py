"""docs/settings.md is what tools/godot/settings_doc.gd prints from the settings table, so the page
that describes every project setting cannot fall behind the table the plugin registers."""

from __future__ import annotations

import pytest

from tests.godot_env import REPO, TEST_PROJECT, run_godot

pytestmark = [pytest.mark.godot]


def test_settings_page_matches_the_table(godot_test_project: str) -> None:
    script = REPO / "tools" / "godot" / "settings_doc.gd"
    result = run_godot(godot_test_project, TEST_PROJECT, ["--script", str(script)], timeout=120)
    assert result.returncode == 0, result.stdout
    printed = result.stdout[result.stdout.index("# Project settings") :].strip()
    page = (REPO / "docs" / "settings.md").read_text().strip()
    assert printed == page, "docs/settings.md is stale: regenerate it (see settings_doc.gd)"
    assert page.count("| `astar_bridge/") >= 17
