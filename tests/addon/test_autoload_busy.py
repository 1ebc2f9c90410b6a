"""AStarBridge.sidecar_busy reaches a game: a sidecar that greets, then works (its CPU time
advancing) and answers nothing is reported busy once at the unresponsive timeout and kept, and
only past the busy limit reported unresponsive (and restarted).

The sidecar is a stand-in the project's python setting names: it announces itself, answers the
hello, then spins without reading its socket (a search that never yields, as seen from Godot)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.addon.new_projects import new_project
from tests.godot_env import import_project, run_godot

pytestmark = [pytest.mark.godot]

SPINNING = '''#!{python}
"""Greets, then works without answering; exits when its stdin closes, or after 60 s."""
import json, os, socket, sys, threading, time
import msgpack

def leave_with_stdin() -> None:
    sys.stdin.buffer.read()
    os._exit(0)

threading.Thread(target=leave_with_stdin, daemon=True).start()
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
port = server.getsockname()[1]
announcement = {{"event": "listening", "host": "127.0.0.1", "port": port, "token": "", "protocol": 1}}
print(json.dumps(announcement), flush=True)
conn, _ = server.accept()
unpacker = msgpack.Unpacker(raw=False)
while True:
    data = conn.recv(65536)
    if not data:
        os._exit(0)
    unpacker.feed(data)
    for message in unpacker:
        if message[0] == 0 and message[2] == "hello":
            answer = {{"server": "spinning", "protocol": 1, "methods": []}}
            conn.sendall(msgpack.packb([1, message[1], None, answer]))
            until = time.monotonic() + 60
            while time.monotonic() < until:
                pass
            os._exit(0)
'''

PROBE = """extends SceneTree

var _busy: Array[int] = []
var _unresponsive: Array[int] = []
var _began: int = -1


func _process(_delta: float) -> bool:
	var bridge: Node = root.get_node(^"AStarBridge")
	if _began < 0:
		_began = Time.get_ticks_msec()
		bridge.connect("sidecar_busy", func(waited: int) -> void: _busy.append(waited))
		bridge.connect(
			"sidecar_unresponsive", func(waited: int) -> void: _unresponsive.append(waited)
		)
	if not _unresponsive.is_empty() or Time.get_ticks_msec() - _began > 30000:
		print("probe: busy %s unresponsive %s" % [_busy, _unresponsive])
		quit(0)
	return false
"""

SETTINGS = """timeouts/heartbeat_ms=200
timeouts/unresponsive_ms=1000
timeouts/busy_limit_ms=3000
"""
RESULT = re.compile(r"probe: busy \[(\d+)\] unresponsive \[(\d+)\]")


def test_a_working_silent_sidecar_is_reported_busy_then_unresponsive_past_the_limit(
    godot: str, tmp_path: Path
) -> None:
    project = new_project(tmp_path, "busy sidecar", {"probe.gd": PROBE})
    spinning = project / "spinning_sidecar"
    spinning.write_text(SPINNING.format(python=sys.executable))
    spinning.chmod(0o755)
    settings = project / "project.godot"
    text = settings.read_text().replace(sys.executable, str(spinning))
    settings.write_text(text.replace("[astar_bridge]\n", "[astar_bridge]\n" + SETTINGS))
    import_project(godot, project)
    result = run_godot(
        godot, project, ["--script", "res://probe.gd"], timeout=120, env={"ASTAR_BRIDGE_PYTHON": ""}
    )
    out = result.stdout
    assert result.returncode == 0, out
    found = RESULT.search(out)
    assert found, f"not one busy report, then one unresponsive one:\n{out}"
    busy_ms, unresponsive_ms = int(found.group(1)), int(found.group(2))
    assert 1000 <= busy_ms < 3000, out  # at the unresponsive timeout, before the busy limit
    assert unresponsive_ms >= 3000, out  # kept up to the busy limit
    assert "busy limit" in out, out  # the restart's warning says why
