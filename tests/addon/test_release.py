"""The release zip in the hands of a Godot developer who has no Python.

``tools/release.sh`` makes ``astar-bridge-<version>-<platform>.zip`` once per session
(tests/addon/sidecar_builds.py). It is unpacked, as Godot's asset installer does (no file modes,
no links), into a brand-new project that holds nothing else but the README's quick start; the
project is imported, then run headless with an empty environment (no PATH, so no Python): the
autoload must find the sidecar inside the addon with no setting. The same project exported as a
pack must carry the sidecar beside the pack, not in it, and find paths from there.
"""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.addon.new_projects import LINUX_EXPORT_PRESET
from tests.addon.sidecar_builds import release_zip
from tests.addon.test_quick_start import SCENE, readme_block
from tests.godot_env import REPO, engine_errors, import_project, run_godot

pytestmark = [pytest.mark.godot, pytest.mark.slow]

BUNDLE = "astar-bridge-sidecar"
PLATFORM = "linux-x86_64"
IN_ADDON = f"addons/astar_bridge/sidecar/{PLATFORM}/{BUNDLE}"

# A project as a developer makes it by hand: the plugin enabled (its export plugin copies the
# sidecar) and the autoload line the README names; no python setting. The connect timeout is
# raised from its 5 s: a first start copies and unpacks the sidecar, which takes longer than that
# on a CI machine running other tests (about 2 s on a quiet one).
PROJECT = """config_version=5

[application]
config/name="release"
run/main_scene="res://main.tscn"

[astar_bridge]
timeouts/connect_ms=60000

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"

[editor_plugins]
enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg")
"""


QUICK_START_LINES = (
    "quick start: door closed, status FOUND",
    "quick start: 20 of 20 NPCs have a path",
)


@pytest.fixture(scope="module")
def release() -> Path:
    return release_zip()


@pytest.fixture(scope="module")
def project(godot: str, release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new project: the zip unpacked into it with Python's zipfile (modes and links dropped, as
    Godot's installer drops them), the quick start as its main scene, imported."""
    root = tmp_path_factory.mktemp("release") / "game"
    root.mkdir()
    with zipfile.ZipFile(release) as archive:
        archive.extractall(root)
    script = readme_block()
    node = re.search(r"^extends (\w+)", script, re.M)
    (root / "project.godot").write_text(PROJECT)
    (root / "main.tscn").write_text(SCENE.format(root=node.group(1) if node else "Node"))
    (root / "quick_start.gd").write_text(script)
    (root / "export_presets.cfg").write_text(LINUX_EXPORT_PRESET)
    import_project(godot, root)
    return root


def _run_with_no_python(command: list[str], cache: Path, cwd: Path) -> str:
    """``command`` with an empty environment but the cache folder the sidecar copies itself to."""
    result = subprocess.run(
        command,
        cwd=cwd,
        env={"XDG_CACHE_HOME": str(cache)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout
    return result.stdout


def _assert_quick_start(output: str) -> None:
    assert not engine_errors(output), output
    path = re.search(r"quick start: a path of (\d+) points", output)
    assert path is not None, output
    assert int(path.group(1)) > 2, output
    for line in QUICK_START_LINES:
        assert line in output, output


def test_release_zip_is_the_addon_with_its_sidecar_inside(release: Path) -> None:
    version = re.search(r'^version="([^"]+)"', (REPO / "addons/astar_bridge/plugin.cfg").read_text(), re.M)
    assert version is not None
    assert release.name == f"astar-bridge-{version.group(1)}-{PLATFORM}.zip"
    with zipfile.ZipFile(release) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    assert all(name.startswith("addons/astar_bridge/") for name in infos), sorted(infos)[:5]
    assert "addons/astar_bridge/plugin.cfg" in infos
    assert "addons/astar_bridge/sidecar/.gdignore" in infos
    program = infos[f"{IN_ADDON}/{BUNDLE}"]
    assert (program.external_attr >> 16) & 0o777 == 0o755
    assert not [name for name, info in infos.items() if stat.S_ISLNK(info.external_attr >> 16)]
    assert f"{IN_ADDON}/_internal/links.json" in infos
    assert f"{IN_ADDON}/run-from-cache" in infos


def test_new_project_runs_the_quick_start_from_the_release_with_no_python(
    godot: str, project: Path, tmp_path: Path
) -> None:
    """No PATH, no Python, no setting: the autoload starts the addon's sidecar, which runs from a
    copy in the cache folder and leaves the project's files as they were."""
    before = sorted(p.relative_to(project).as_posix() for p in (project / IN_ADDON).rglob("*"))
    cache = tmp_path / "cache"
    command = [godot, "--headless", "--path", str(project), "--quit-after", "3000"]
    _assert_quick_start(_run_with_no_python(command, cache, tmp_path))
    after = sorted(p.relative_to(project).as_posix() for p in (project / IN_ADDON).rglob("*"))
    assert after == before, "the first start changed the addon's sidecar folder"
    copies = list((cache / "astar-bridge").glob(f"sidecar-*/{BUNDLE}/{BUNDLE}"))
    assert len(copies) == 1, copies


def test_exported_pack_carries_the_sidecar_beside_it_and_finds_paths(
    godot: str, project: Path, tmp_path: Path
) -> None:
    """The export plugin copies the addon's sidecar beside the pack (without the run-from-cache
    marker: a game's copy unpacks in place), the frozen program stays out of the pack, and the
    pack, moved elsewhere, runs the quick start with no Python."""
    export = tmp_path / "export"
    export.mkdir()
    result = run_godot(godot, project, ["--export-pack", "Linux", str(export / "game.pck")])
    assert result.returncode == 0, result.stdout
    assert f"sidecar for {PLATFORM} copied" in result.stdout, result.stdout
    assert (export / "game.pck").stat().st_size < 5_000_000, "the sidecar went into the pack"
    assert b"astar-bridge-sidecar/_internal" not in (export / "game.pck").read_bytes()
    assert not (export / BUNDLE / "run-from-cache").exists()
    assert (export / BUNDLE / BUNDLE).stat().st_mode & stat.S_IXUSR
    game = tmp_path / "player" / "game"
    shutil.copytree(export, game, symlinks=True)
    cache = tmp_path / "cache"
    command = [godot, "--headless", "--main-pack", str(game / "game.pck"), "--quit-after", "3000"]
    _assert_quick_start(_run_with_no_python(command, cache, game))
    assert not (cache / "astar-bridge").exists(), "a writable game folder runs in place"
