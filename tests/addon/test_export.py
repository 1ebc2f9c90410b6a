"""An exported game on a player's machine: the demo exported as a pack, the self-contained sidecar
beside it (put there by the addon's export plugin), run from a temporary folder with an empty
environment (``env -i``: no PATH, no Python, no virtual environment).

The sidecar is built once per test session by the build command (``tools/bundle.sh``, which
reuses an up-to-date bundle; tests/addon/sidecar_builds.py); the export needs no export templates
(``--export-pack``), and the pack runs on the same headless Godot with ``--main-pack``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.addon.sidecar_builds import sidecar_bundle as built_sidecar_bundle
from tests.godot_env import DEMO_PROJECT, import_project, run_godot

pytestmark = [pytest.mark.godot, pytest.mark.slow]

BUNDLE = "astar-bridge-sidecar"
ARRIVAL = re.compile(r"^\[\s*\d+\.\d\d s\] npc (\d\d) reached goal (\d+) at \(\d+, \d+\)$")
ROW = re.compile(r"^\|\s*(.+?)\s*\|\s*(.+?)\s*\|$")


@pytest.fixture(scope="module")
def sidecar_bundle() -> Path:
    """The bundle for this platform, built once per session (tests/addon/sidecar_builds.py)."""
    return built_sidecar_bundle()


@pytest.fixture(scope="module")
def exported_game(godot: str, sidecar_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo exported with ``--export-pack``, then copied with its sidecar to a new folder."""
    import_project(godot, DEMO_PROJECT)
    export = tmp_path_factory.mktemp("export")
    result = run_godot(godot, DEMO_PROJECT, ["--export-pack", "Linux", str(export / "demo.pck")])
    assert result.returncode == 0, result.stdout
    assert (export / "demo.pck").is_file(), result.stdout
    assert "sidecar for linux-x86_64 copied" in result.stdout, result.stdout
    game = tmp_path_factory.mktemp("player") / "game"
    shutil.copytree(export, game, symlinks=True)  # a moved copy, as a player unpacks it
    return game


def _run_pack(godot: str, game: Path) -> subprocess.CompletedProcess[str]:
    """The headless short demo from the pack, with an empty environment, in the game's folder."""
    command = [godot, "--headless", "--main-pack", str(game / "demo.pck"), "--fixed-fps", "60"]
    command += ["--script", "res://headless/run_demo.gd", "--", "--short"]
    return subprocess.run(
        command,
        cwd=game,
        env={},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _rows(lines: list[str], name: str) -> list[str]:
    return [m.group(2) for line in lines if (m := ROW.match(line)) and m.group(1) == name]


def test_exported_pack_finds_paths_with_no_python(godot: str, exported_game: Path) -> None:
    result = _run_pack(godot, exported_game)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout
    bad = [line for line in lines if "SCRIPT ERROR" in line or "ERROR:" in line or "WARNING" in line]
    assert not bad, "\n".join(bad)
    npcs = [int(count) for count in _rows(lines, "NPCs")]
    assert npcs, result.stdout
    assert _rows(lines, "NPCs at every goal") == [f"{n}/{n}" for n in npcs]
    assert _rows(lines, "goals reached") == _rows(lines, "goals given")
    assert set(_rows(lines, "failures")) == {"0"}
    grid_npcs = {int(m.group(1)) for line in lines if (m := ARRIVAL.match(line))}
    assert grid_npcs == set(range(npcs[0]))
    assert "demo passed" in lines


def test_without_its_sidecar_the_pack_cannot_find_paths_and_says_why_once(
    godot: str, exported_game: Path, tmp_path: Path
) -> None:
    """The negative control: the same pack without the sidecar beside it finds no Python either
    (so the run above used the bundle), and says so once (run_demo.gd then gives up after its
    own 30 s wait for the sidecar)."""
    game = tmp_path / "game"
    game.mkdir()
    shutil.copy2(exported_game / "demo.pck", game / "demo.pck")
    result = _run_pack(godot, game)
    assert result.returncode != 0, result.stdout
    assert result.stdout.count("cannot start the sidecar") == 1, result.stdout
    # It names where it looked for the sidecar, not only the python3 it fell back on.
    assert "No self-contained sidecar at " in result.stdout, result.stdout
    assert f"{game}/{BUNDLE}/{BUNDLE}" in result.stdout, result.stdout
