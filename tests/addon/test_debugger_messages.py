"""The running game's debugger messages, end to end: a fresh project with the AStarBridge autoload runs
headless with ``--remote-debug`` against a listener that speaks the editor's debugger wire format (a
Godot process reading Variant packets with ``PacketPeerStream``, as the editor does), and the
``astar_bridge:state`` message it receives carries the sidecar's phase, the loaded graph and the
request stats. Without ``--remote-debug`` the game sends nothing (the reporter is not even added).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO, import_project, run_godot

pytestmark = [pytest.mark.godot]

PROJECT = """config_version=5

[application]
config/name="debugged"
run/main_scene="res://main.tscn"

[astar_bridge]
sidecar/python_executable="{python}"

[autoload]
AStarBridge="*res://addons/astar_bridge/astar_bridge.gd"
"""

# Loads an 8 x 8 grid once the sidecar is up, then asks a path every frame; quits after 60 s.
MAIN = """extends Node

var _began: int = Time.get_ticks_msec()


func _process(_delta: float) -> void:
	if Time.get_ticks_msec() - _began > 60000:
		get_tree().quit(3)
	var bridge: Node = get_node(^"/root/AStarBridge")
	var reporters: Array[Node] = bridge.find_children("AStarBridgeDebuggerReporter", "", false, false)
	if Time.get_ticks_msec() - _began < 100:
		print("game: reporter %s" % ("added" if not reporters.is_empty() else "absent"))
	if not bridge.call("is_ready"):
		return
	if bridge.call("get_graph_ids").is_empty():
		var cells := PackedByteArray()
		cells.resize(64)
		cells.fill(1)
		bridge.call("load_grid", "level", 8, 8, cells)
	bridge.call("request_path", "level", Vector2(0, 0), Vector2(7, 7))
"""

SCENE = """[gd_scene format=3]

[ext_resource type="Script" path="res://main.gd" id="1"]

[node name="Main" type="Node"]
script = ExtResource("1")
"""

# The editor's side of the debugger connection: Variant packets, each a 4-byte length then the
# encoded [message, thread id, data] array (what RemoteDebuggerPeerTCP writes).
LISTENER = """extends SceneTree

var _server: TCPServer = TCPServer.new()
var _peer: PacketPeerStream = null
var _began: int = Time.get_ticks_msec()


func _initialize() -> void:
	var port: int = int(OS.get_cmdline_user_args()[0])
	print("listener: listen %s" % error_string(_server.listen(port, "127.0.0.1")))


func _process(_delta: float) -> bool:
	if Time.get_ticks_msec() - _began > 90000:
		print("listener: timed out")
		quit(2)
		return true
	if _peer == null and _server.is_connection_available():
		_peer = PacketPeerStream.new()
		_peer.input_buffer_max_size = 1 << 22
		_peer.stream_peer = _server.take_connection()
		print("listener: game connected")
	if _peer == null:
		return false
	(_peer.stream_peer as StreamPeerTCP).poll()
	while _peer.get_available_packet_count() > 0:
		var message: Variant = _peer.get_var()
		if not message is Array or (message as Array).size() < 3:
			continue
		var parts: Array = message
		if str(parts[0]) != "astar_bridge:state":
			continue
		var data: Array = parts[2]
		var state: Dictionary = data[0]
		var graphs: Array = state["graphs"]
		var stats: Dictionary = state["stats"]
		if not graphs.is_empty() and int(stats["requests"]) > 0:
			print("listener: state " + JSON.stringify(state))
			quit(0)
			return true
	return false
"""


@pytest.fixture
def debugged_project(tmp_path: Path, godot: str) -> Path:
    project = tmp_path / "debugged"
    shutil.copytree(REPO / "addons" / "astar_bridge", project / "addons" / "astar_bridge")
    (project / "project.godot").write_text(PROJECT.format(python=sys.executable))
    (project / "main.gd").write_text(MAIN)
    (project / "main.tscn").write_text(SCENE)
    (project / "listener.gd").write_text(LISTENER)
    import_project(godot, project)
    return project


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_game_sends_state_with_graphs_and_stats(godot: str, debugged_project: Path) -> None:
    port = _free_port()
    listen = [godot, "--headless", "--path", str(debugged_project), "--script", "res://listener.gd"]
    play = [godot, "--headless", "--path", str(debugged_project)]
    listener = subprocess.Popen(
        [*listen, "--", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    game: subprocess.Popen[bytes] | None = None
    try:
        assert listener.stdout is not None
        first: list[str] = []
        while not any(line.startswith("listener: listen") for line in first):
            line = listener.stdout.readline()
            assert line, "".join(first)  # the listener ended before listening
            first.append(line)
        assert "listener: listen OK" in "".join(first), "".join(first)
        game = subprocess.Popen(
            [*play, "--remote-debug", f"tcp://127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        rest, _ = listener.communicate(timeout=150)
        out = "".join(first) + rest
    finally:
        listener.kill()
        if game is not None:
            game.kill()
            game.wait(timeout=30)
    lines = [line for line in out.splitlines() if line.startswith("listener: ")]
    assert "listener: game connected" in lines, out
    states = [line for line in lines if line.startswith("listener: state ")]
    assert states, out
    state = json.loads(states[0].removeprefix("listener: state "))
    assert state["phase"] == "READY"
    assert state["pid"] > 0
    assert state["port"] > 0
    assert state["last_error"] == ""
    assert state["graphs"] == [{"id": "level", "summary": "grid 8 x 8"}]
    stats = state["stats"]
    assert stats["requests"] > 0
    assert stats["failures"] == 0
    assert stats["latency_ms_p50"] > 0
    for key in ("paths_per_second", "latency_ms_mean", "latency_ms_p99", "pending", "restarts"):
        assert key in stats


def test_without_the_debugger_no_reporter_is_added(godot: str, debugged_project: Path) -> None:
    result = run_godot(godot, debugged_project, ["--quit-after", "30"], timeout=120)
    assert "game: reporter absent" in result.stdout, result.stdout
