"""Start-up of the self-contained sidecar on a moved copy, beside the virtual environment's, same run;
and, with ``--game``, an exported game's start to its first path.

For each kind of sidecar, a few cold starts: launch, read the announcement line, connect, hello,
upload a 64 x 64 grid, answer one path. The bundle (built by ``tools/bundle.sh``) is first copied
to a temporary folder, as a player unpacks it, and started with an empty environment (no PATH, no
Python); the venv sidecar runs as the editor runs it (``python -m bridge serve``). The bundle's
very first start on a player's machine also unpacks its packed libraries (LLVM, OpenBLAS): each
run times that too, on a fresh copy of its own. Also printed:
the sidecar's own "kernels ready" seconds, which include any compilation (a cached load is well
under a second; a compile is tens of seconds), and what ``warm-up --expect-cached`` says of the
moved copy.

``--game``: the release zip (``tools/release.sh``) unpacked into a new project whose main scene
uploads a 64 x 64 ``AStarGrid2D`` and asks for one path, exported with ``--export-pack`` (the
export plugin puts the sidecar beside the pack), then started headless with an empty environment:
launch to the scene's ``_ready`` (the engine's share) and to the first path (the rest: the
sidecar's start, hello and the upload). The first start of the exported copy, which unpacks the
libraries, is timed apart. A command, not a test::

    .venv/bin/python bench/bundle_start.py --runs 3
    .venv/bin/python bench/bundle_start.py --game --runs 3
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.godot_binary import godot_binary
from bridge.client import Client
from tests.addon.new_projects import LINUX_EXPORT_PRESET
from tools.bundle import NAME, platform_tag

REPO = Path(__file__).resolve().parent.parent
READY = re.compile(r"kernels ready in ([0-9.]+) s")
SIDE = 64


def one_start(command: list[str], env: dict[str, str] | None, cwd: Path) -> dict[str, float]:
    """Seconds from launch to the announcement and to the first answered path."""
    began = time.perf_counter()
    process = subprocess.Popen(
        [*command, "serve", "--log-level", "INFO"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )
    try:
        assert process.stdout is not None
        announcement = json.loads(process.stdout.readline())
        announced = time.perf_counter() - began
        with Client.connect(announcement["host"], announcement["port"]) as client:
            client.hello(announcement["token"])
            client.load_grid("g", [[1] * SIDE for _ in range(SIDE)])
            found = client.find("g", (0, 0), (SIDE - 1, SIDE - 1))
        answered = time.perf_counter() - began
        assert found["status"] == "found", found
    finally:
        _, err = process.communicate(timeout=30)  # closes stdin: the sidecar stops
    ready = [float(seconds) for seconds in READY.findall(err)]
    return {"announce": announced, "first_path": answered, "kernels_ready": max(ready, default=0.0)}


def report(label: str, runs: list[dict[str, float]]) -> None:
    def cell(key: str) -> str:
        values = [run[key] for run in runs]
        text = f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"
        return f"{text:<19}"

    print(f"| {label:<30} | {cell('announce')} | {cell('first_path')} | {cell('kernels_ready')} |")


GAME_PROJECT = """config_version=5

[application]
config/name="start bench"
run/main_scene="res://main.tscn"
run/flush_stdout_on_print=true

[astar_bridge]
timeouts/connect_ms=60000

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"

[editor_plugins]
enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg")
"""
GAME_SCENE = """[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://main.gd" id="1"]

[node name="Main" type="Node"]
script = ExtResource("1")
"""
GAME_SCRIPT = """extends Node


func _ready() -> void:
	print("bench: ready")
	var grid := AStarGrid2D.new()
	grid.region = Rect2i(0, 0, 64, 64)
	grid.update()
	AStarBridge.load_astar_grid_2d("g", grid)
	var path: PackedVector2Array = AStarBridge.find_path("g", Vector2i(0, 0), Vector2i(63, 63))
	print("bench: first path of %d points" % path.size())
	get_tree().quit()
"""


def exported_game(godot: str, release: Path, scratch: Path) -> Path:
    """The bench project made from ``release``, exported as ``game.pck`` (sidecar beside it)."""
    project = scratch / "project"
    with zipfile.ZipFile(release) as archive:
        archive.extractall(project)
    files = {"project.godot": GAME_PROJECT, "main.tscn": GAME_SCENE, "main.gd": GAME_SCRIPT}
    files["export_presets.cfg"] = LINUX_EXPORT_PRESET
    for name, text in files.items():
        (project / name).write_text(text)
    for args in (["--import"], ["--export-pack", "Linux", str(scratch / "game" / "game.pck")]):
        (scratch / "game").mkdir(exist_ok=True)
        out = subprocess.run(
            [godot, "--headless", "--path", str(project), *args], capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            sys.exit(f"godot {' '.join(args)} failed:\n{out.stdout}{out.stderr}")
    return scratch / "game"


def one_game_start(godot: str, game: Path) -> dict[str, float]:
    """Seconds from launch to the scene's _ready and to its first path (empty environment)."""
    began = time.perf_counter()
    command = [godot, "--headless", "--main-pack", str(game / "game.pck")]
    process = subprocess.Popen(
        command, cwd=game, env={}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    seen: dict[str, float] = {}
    for line in process.stdout:
        if line.startswith("bench: ready"):
            seen["engine"] = time.perf_counter() - began
        elif line.startswith("bench: first path"):
            seen["first_path"] = time.perf_counter() - began
            assert "of 0 points" not in line, line
    process.wait(timeout=60)
    assert {"engine", "first_path"} <= seen.keys(), (
        f"the game printed no first path (exit {process.returncode})"
    )
    return {
        "engine": seen["engine"],
        "first_path": seen["first_path"],
        "rest": seen["first_path"] - seen["engine"],
    }


def game_main(runs: int, release: Path) -> int:
    godot = godot_binary()
    with tempfile.TemporaryDirectory(prefix="game-start-") as scratch:
        game = exported_game(godot, release, Path(scratch))
        first = one_game_start(godot, game)  # unpacks the libraries beside the game
        starts = [one_game_start(godot, game) for _ in range(runs)]
    print(f"exported game from {release.name}, empty environment; seconds from launch")
    print(f"first start (unpacks): first path {first['first_path']:.2f} (engine {first['engine']:.2f})")
    print(f"| {'later starts, median (min-max) of ' + str(runs):<40} | {'seconds':<19} |")
    print("|" + "|".join("-" * width for width in (42, 21)) + "|")
    for key, label in (
        ("engine", "engine: launch to _ready"),
        ("rest", "sidecar start, hello, upload"),
        ("first_path", "launch to first path"),
    ):
        values = [start[key] for start in starts]
        text = f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"
        print(f"| {label:<40} | {text:<19} |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts of each sidecar")
    parser.add_argument("--bundle", type=Path, default=REPO / "build" / "sidecar" / platform_tag() / NAME)
    parser.add_argument("--game", action="store_true", help="an exported game's start instead")
    parser.add_argument("--release", type=Path, default=None, help="release zip (default: newest in dist/)")
    args = parser.parse_args()
    if args.game:
        zips = sorted((REPO / "dist").glob("astar-bridge-*.zip"), key=lambda zip_: zip_.stat().st_mtime)
        release = args.release or (zips[-1] if zips else None)
        if release is None or not release.is_file():
            sys.exit("no release zip: run bash tools/release.sh first (or pass --release)")
        return game_main(args.runs, release)
    if not (args.bundle / NAME).exists():
        sys.exit(f"no bundle at {args.bundle}: run bash tools/bundle.sh first")
    with tempfile.TemporaryDirectory(prefix="bundle-start-") as scratch:
        moved = Path(scratch) / "player" / NAME
        shutil.copytree(args.bundle, moved, symlinks=True)
        check = subprocess.run(
            [str(moved / NAME), "warm-up", "--expect-cached"],
            capture_output=True,
            text=True,
            env={},
            check=False,
        )
        first = "bundle, first start (unpacks)"
        kinds = [
            ("bundle, moved copy, env -i", [str(moved / NAME)], {}),
            ("venv (python -m bridge)", [sys.executable, "-m", "bridge"], None),
        ]
        results: dict[str, list[dict[str, float]]] = {first: []}
        results.update({label: [] for label, _, _ in kinds})
        for run in range(args.runs):  # interleaved, so all see the same machine load
            fresh = Path(scratch) / f"fresh-{run}" / NAME
            shutil.copytree(args.bundle, fresh, symlinks=True)
            results[first].append(one_start([str(fresh / NAME)], {}, Path(scratch)))
            shutil.rmtree(fresh.parent)
            for label, command, env in kinds:
                results[label].append(one_start(command, env, Path(scratch)))
    print(f"moved copy: {check.stdout.strip()} (exit {check.returncode})")
    print(f"seconds, median (min-max) of {args.runs} cold starts; first path = launch to first answer")
    print(f"| {'sidecar':<30} | {'announce':<19} | {'first path':<19} | {'kernels ready':<19} |")
    print("|" + "|".join("-" * width for width in (32, 21, 21, 21)) + "|")
    for label, runs in results.items():
        report(label, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
