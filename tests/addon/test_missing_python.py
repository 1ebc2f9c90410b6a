"""A project whose sidecar cannot start because of its Python, with no self-contained sidecar: the
one error the autoload pushes says what was looked for and names every way to fix it (the
setting, the environment variable, the release zip), and calls fail at once with not_connected.

Three Pythons: one that does not exist (an absolute path), ``python3`` missing from PATH, and a
real Python (a bare virtual environment) that has no A* Bridge package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.addon.new_projects import new_project
from tests.godot_env import import_project, run_godot

pytestmark = [pytest.mark.godot]

PROBE = """extends SceneTree


func _process(_delta: float) -> bool:
	var bridge: Node = root.get_node(^"AStarBridge")
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 4, 4)
	grid.update()
	var result: RefCounted = bridge.call("load_astar_grid_2d", "level", grid)
	print("probe: load %s" % result.get("code"))
	quit(0)
	return true
"""
SETTING = "astar_bridge/sidecar/python_executable"


@pytest.fixture(scope="module")
def project(godot: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new project with the addon (and no self-contained sidecar in it), imported once."""
    made = new_project(tmp_path_factory.mktemp("missing python"), "no python", {"probe.gd": PROBE})
    import_project(godot, made)
    return made


def the_one_error(godot: str, project: Path, python: str, env: dict[str, str]) -> str:
    """Run the probe with ``python`` as the project's setting; the only ``ERROR:`` line."""
    settings = project / "project.godot"
    lines = [
        line
        for line in settings.read_text().splitlines()
        if not line.startswith("sidecar/python_executable=")
    ]
    at = lines.index("[astar_bridge]") + 1
    lines.insert(at, f'sidecar/python_executable="{python}"')
    settings.write_text("\n".join(lines) + "\n")
    result = run_godot(godot, project, ["--script", "res://probe.gd"], timeout=120, env=env)
    output = result.stdout
    assert result.returncode == 0, output
    assert "probe: load not_connected" in output, output
    errors = [line for line in output.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, output
    return errors[0]


def assert_names(error: str, needed: list[str]) -> None:
    for text in needed:
        assert text in error, f"the error does not name {text!r}:\n{error}"


def in_addon(project: Path) -> str:
    folder = project / "addons" / "astar_bridge" / "sidecar" / "linux-x86_64" / "astar-bridge-sidecar"
    return str(folder / "astar-bridge-sidecar")


def test_a_missing_python_names_the_setting_the_variable_and_the_release_zip(
    godot: str, project: Path
) -> None:
    env = {"PATH": "/usr/bin:/bin", "ASTAR_BRIDGE_PYTHON": ""}
    error = the_one_error(godot, project, "/nonexistent/bin/python3", env)
    assert_names(
        error,
        [
            '"/nonexistent/bin/python3" could not be started (no such file)',
            "ASTAR_BRIDGE_PYTHON (not set)",
            f'the project setting {SETTING} ("/nonexistent/bin/python3")',
            "No self-contained sidecar at ",
            in_addon(project),
            "install the release zip of the addon",
            "Project Settings > General > Astar Bridge > Sidecar",
            "then python -m bridge warm-up",
            "code not_connected",
        ],
    )


def test_python3_not_on_path_is_said_so(godot: str, project: Path) -> None:
    """The default setting and no python3 anywhere on PATH (a player's machine without Python)."""
    error = the_one_error(godot, project, "python3", {"PATH": "/nonexistent", "ASTAR_BRIDGE_PYTHON": ""})
    assert_names(
        error, ['"python3" could not be started (not found on PATH)', in_addon(project), "release zip"]
    )


def test_the_variable_wins_and_is_named(godot: str, project: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "ASTAR_BRIDGE_PYTHON": "/nonexistent/env/python"}
    error = the_one_error(godot, project, sys.executable, env)
    assert_names(
        error,
        ['"/nonexistent/env/python" could not be started', 'ASTAR_BRIDGE_PYTHON ("/nonexistent/env/python")'],
    )
    assert "No self-contained sidecar" not in error, error  # the variable skipped them
    assert "unset ASTAR_BRIDGE_PYTHON and install the release zip" in error, error


def test_a_python_without_the_package_is_told_how_to_install_it(
    godot: str, project: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    error = the_one_error(godot, project, python, {"ASTAR_BRIDGE_PYTHON": ""})
    assert_names(
        error,
        [
            f"{python} has no A* Bridge package",
            f"{python} -m pip install <this repository>, then {python} -m bridge warm-up",
            SETTING,
            "ASTAR_BRIDGE_PYTHON",
            "release zip",
        ],
    )


def test_a_python3_on_path_without_the_package_is_told_so(godot: str, project: Path, tmp_path: Path) -> None:
    """The default setting, and the python3 found on PATH lacks the package: the Python ran, so
    the package is what is missing."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    env = {"PATH": str(bare / "bin"), "ASTAR_BRIDGE_PYTHON": ""}
    error = the_one_error(godot, project, "python3", env)
    assert_names(error, ["python3 has no A* Bridge package", "python3 -m pip install <this repository>"])


def test_without_path_the_default_search_is_judged(godot: str, project: Path) -> None:
    """PATH unset: the launcher searches /bin:/usr/bin, so a system python3 there runs; its missing
    package is said, not a python3 "not found on PATH"."""
    system = Path("/usr/bin/python3")
    if (
        not system.exists()
        or subprocess.run(
            [system, "-c", "import bridge"], cwd="/", capture_output=True, check=False
        ).returncode
        == 0
    ):
        pytest.skip("needs a /usr/bin/python3 without A* Bridge")
    settings = project / "project.godot"
    lines = [
        line
        for line in settings.read_text().splitlines()
        if not line.startswith("sidecar/python_executable=")
    ]
    settings.write_text("\n".join(lines) + "\n")
    env = {key: value for key, value in os.environ.items() if key not in ("PATH", "LD_LIBRARY_PATH")}
    env["ASTAR_BRIDGE_PYTHON"] = ""
    command = [godot, "--headless", "--path", str(project), "--script", "res://probe.gd"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    output = result.stdout + result.stderr
    errors = [line for line in output.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, output
    assert "python3 has no A* Bridge package" in errors[0], output
