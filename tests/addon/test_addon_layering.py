"""The addon's rooms depend one way, checked by reading every script's preloads as text.

Rules (what :func:`rule_breaks` reports):

- nothing in the addon preloads a top-level script (``astar_bridge.gd``, the facade; ``plugin.gd``):
  the facade uses ``runtime/``, never the other way round;
- ``runtime/`` (private) preloads nothing of ``nodes/``, ``debug/`` or ``editor/``;
- the low rooms (``msgpack/``, ``serializers/``, ``rpc/``) preload only each other.

A dependency is a ``preload("...")`` / ``load("...")`` of a ``.gd`` or an ``extends "..."``, by a
``res://addons/astar_bridge/`` path or a path relative to the script.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.godot_env import REPO

ADDON = REPO / "addons" / "astar_bridge"
RES = "res://addons/astar_bridge/"
TOP = "(top)"
DEPENDENCY = re.compile(r'(?:\bpreload|\bload)\(\s*"([^"]+\.gd)"\s*\)|^extends\s+"([^"]+\.gd)"', re.M)
LOW = frozenset({"msgpack", "serializers", "rpc"})
# Room -> rooms it must not preload.
FORBIDDEN = {"runtime": frozenset({TOP, "nodes", "debug", "editor"})}


def room(addon: Path, script: Path) -> str:
    """The folder directly under the addon that holds ``script``; TOP for the loose files."""
    parts = script.relative_to(addon).parts
    return parts[0] if len(parts) > 1 else TOP


def dependencies(addon: Path, script: Path) -> list[Path]:
    """The addon scripts ``script`` preloads, loads or extends by path."""
    found: list[Path] = []
    for match in DEPENDENCY.finditer(script.read_text()):
        target = match.group(1) or match.group(2)
        if target.startswith(RES):
            found.append(addon / target.removeprefix(RES))
        elif not target.startswith("res://"):
            found.append(Path(*_normalised((script.parent / target).parts)))
    return found


def _normalised(parts: tuple[str, ...]) -> list[str]:
    """``a/b/../c`` -> ``a/c`` without touching the disk (a symlinked addon stays where it is)."""
    kept: list[str] = []
    for part in parts:
        if part == "..":
            kept.pop()
        elif part != ".":
            kept.append(part)
    return kept


def rule_breaks(addon: Path) -> list[str]:
    """Every preload that breaks a rule above, as ``from -> to``."""
    breaks: list[str] = []
    for script in sorted(addon.rglob("*.gd")):
        source = room(addon, script)
        for target in dependencies(addon, script):
            if not target.is_relative_to(addon):
                continue
            goal = room(addon, target)
            name = f"{script.relative_to(addon)} -> {target.relative_to(addon)}"
            if goal == TOP and source != TOP:
                breaks.append(f"{name} (nothing preloads the top level)")
            elif goal in FORBIDDEN.get(source, frozenset()):
                breaks.append(f"{name} ({source}/ must not reach {goal})")
            elif source in LOW and goal not in LOW:
                breaks.append(f"{name} ({source}/ preloads only {sorted(LOW)})")
    return breaks


def test_every_room_is_read() -> None:
    rooms = {room(ADDON, script) for script in ADDON.rglob("*.gd")}
    assert {TOP, "api", "runtime", "rpc", "msgpack", "nodes", "serializers"} <= rooms, rooms
    assert dependencies(ADDON, ADDON / "astar_bridge.gd"), "the facade's preloads were not seen"


def test_the_addon_keeps_its_layering() -> None:
    assert rule_breaks(ADDON) == []


def test_the_check_sees_relative_and_res_paths(tmp_path: Path) -> None:
    addon = tmp_path / "astar_bridge"
    for folder in ("runtime", "nodes", "rpc", "api"):
        (addon / folder).mkdir(parents=True)
    (addon / "astar_bridge.gd").write_text('extends Node\nconst Calls = preload("runtime/calls.gd")\n')
    (addon / "nodes" / "agent.gd").write_text("extends Node\n")
    (addon / "api" / "result.gd").write_text("extends RefCounted\n")
    (addon / "runtime" / "calls.gd").write_text(
        'extends RefCounted\nconst Agent = preload("../nodes/agent.gd")\n'
        f'const Facade = preload("{RES}astar_bridge.gd")\n'
        'const Result = preload("../api/result.gd")\n'
    )
    (addon / "rpc" / "client.gd").write_text('extends "../api/result.gd"\n')
    assert rule_breaks(addon) == [
        "rpc/client.gd -> api/result.gd (rpc/ preloads only ['msgpack', 'rpc', 'serializers'])",
        "runtime/calls.gd -> nodes/agent.gd (runtime/ must not reach nodes)",
        "runtime/calls.gd -> astar_bridge.gd (nothing preloads the top level)",
    ]
