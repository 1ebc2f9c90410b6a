"""What the README and the CHANGELOG claim about versions, checked against what runs.

The README names the Godot version the tests run on (a claim of "4.3+" with only 4.6 tested was
wrong for months); the CHANGELOG is a list of released versions in the Keep a Changelog shape, one
of them the version in plugin.cfg, not a development log.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.godot_env import REPO

CHANGELOG = REPO / "CHANGELOG.md"
PLUGIN_CFG = REPO / "addons" / "astar_bridge" / "plugin.cfg"
# Keep a Changelog's kinds of change.
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
VERSION = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$")


@pytest.mark.godot
def test_the_readme_names_the_godot_version_the_tests_run_on(godot: str) -> None:
    printed = subprocess.run([godot, "--version"], capture_output=True, text=True, check=False, timeout=60)
    version = re.match(r"(\d+)\.(\d+)", printed.stdout.strip())
    assert version is not None, printed.stdout
    tested = f"Tested with **Godot {version.group(1)}.{version.group(2)}**"
    assert tested in (REPO / "README.md").read_text(), f"the README does not say: {tested}"


def test_the_changelog_is_released_versions() -> None:
    lines = CHANGELOG.read_text().splitlines()
    assert lines[0] == "# Changelog", lines[0]
    sections = [line for line in lines if line.startswith("## ")]
    assert sections[0] == "## [Unreleased]", sections
    bad = [line for line in sections[1:] if not VERSION.match(line)]
    assert not bad, f"sections that are not '## [x.y.z] - yyyy-mm-dd': {bad}"
    kinds = {line[4:] for line in lines if line.startswith("### ")}
    assert kinds <= KINDS, f"change kinds outside Keep a Changelog's: {sorted(kinds - KINDS)}"
    # A summary per version, not a log of every commit (the log it replaced was 9,162 words).
    words = len(CHANGELOG.read_text().split())
    assert words < 3000, f"CHANGELOG.md has {words} words: summarise what users see"


def test_the_changelog_has_the_plugin_version() -> None:
    version = re.search(r'^version="([^"]+)"$', PLUGIN_CFG.read_text(), re.M)
    assert version is not None, PLUGIN_CFG.read_text()
    released = [m.group(1) for line in CHANGELOG.read_text().splitlines() if (m := VERSION.match(line))]
    assert version.group(1) in released, (
        f"plugin.cfg says {version.group(1)}; CHANGELOG.md has {released}: "
        "move the [Unreleased] notes under a section for that version"
    )
