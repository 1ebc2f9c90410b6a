"""docs/settings.md is what tools/godot/settings_doc.gd prints from the settings table, so the page
that describes every project setting cannot fall behind the table the plugin registers; and every
member of ``AStarBridge.config`` (bridge_config.gd) is documented there, as a project setting or in
the table of members set from code only."""

from __future__ import annotations

import re

import pytest

from tests.godot_env import REPO, TEST_PROJECT, run_godot

CONFIG = REPO / "addons" / "astar_bridge" / "runtime" / "bridge_config.gd"
PAGE = REPO / "docs" / "settings.md"


@pytest.mark.godot
def test_settings_page_matches_the_table(godot_test_project: str) -> None:
    script = REPO / "tools" / "godot" / "settings_doc.gd"
    result = run_godot(godot_test_project, TEST_PROJECT, ["--script", str(script)], timeout=120)
    assert result.returncode == 0, result.stdout
    printed = result.stdout[result.stdout.index("# Project settings") :].strip()
    page = PAGE.read_text().strip()
    assert printed == page, "docs/settings.md is stale: regenerate it (see settings_doc.gd)"
    assert page.count("| `astar_bridge/") >= 17


def test_every_config_member_is_documented() -> None:
    """A member load_settings() fills comes from a project setting (on the page by the table);
    any other one must have a row of its own: report_failures was once nowhere."""
    text = CONFIG.read_text()
    members = re.findall(r"^var (\w+)\b", text, re.M)
    assert "report_failures" in members, text
    loaded = set(re.findall(r"^\t(\w+) = ", text[text.index("func load_settings") :], re.M))
    rows = set(re.findall(r"^\| `(\w+)` \|", PAGE.read_text(), re.M))
    missing = [name for name in members if name not in loaded and name not in rows]
    assert not missing, f"AStarBridge.config members on no page: {missing} (tools/godot/settings_doc.gd)"
