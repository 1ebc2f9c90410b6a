#!/usr/bin/env bash
# A screenshot of the real Godot editor with the A* Bridge plugin enabled, its Debugger panel open
# on the "A* Bridge" tab (docs/editor_debugger.png): the demo project opened from a throw-away
# copy (its folders linked) that also enables the probe plugin (tools/godot/editor_probe), which
# brings up the tab and saves the editor window. Rendered by Mesa (llvmpipe) under Xvfb, as
# tools/screenshot.sh does.
# The probe runs the demo's main scene as the editor's Run button (F5) does: the editor starts its
# own executable again (the provisioned Godot is a real executable for that, see
# tools/provision_godot.py), the game's debugger messages feed the tab, and the probe waits for a
# graph and answered requests before the picture. The sidecar's Python comes from
# ASTAR_BRIDGE_PYTHON, so the settings in the picture are the demo's own (no path of this machine).
# Usage: bash tools/screenshot_editor.sh [output.png]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
out="${1:-docs/editor_debugger.png}"
godot="$(cat .venv/.godot-path)"
root="$here/.godot/root"
if ! command -v Xvfb >/dev/null; then
  echo "[screenshot] installing xvfb" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y xvfb >&2; else sudo apt-get install -y xvfb >&2; fi
fi
work="$(mktemp -d)"
display=":$(( 90 + RANDOM % 100 ))"
Xvfb "$display" -screen 0 1600x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  [ -e "/tmp/.X11-unix/X${display#:}" ] && break
  sleep 0.1
done
project="$work/demo"
mkdir -p "$project/addons"
for entry in demo_project/*; do
  name="$(basename "$entry")"
  case "$name" in addons|project.godot) ;; *) ln -s "$here/$entry" "$project/$name" ;; esac
done
ln -s "$here/addons/astar_bridge" "$project/addons/astar_bridge"
ln -s "$here/tools/godot/editor_probe" "$project/addons/editor_probe"
sed -e 's#^enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg")#enabled=PackedStringArray("res://addons/astar_bridge/plugin.cfg", "res://addons/editor_probe/plugin.cfg")#' \
  demo_project/project.godot > "$project/project.godot"
mkdir -p "$(dirname "$out")"
abs_out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
# The first editor run imports the project; the second is the one photographed.
DISPLAY="$display" "$godot" --headless --path "$project" --import >/dev/null 2>&1 || true
DISPLAY="$display" \
__GLX_VENDOR_LIBRARY_NAME=mesa \
__EGL_VENDOR_LIBRARY_DIRS="$root/usr/share/glvnd/egl_vendor.d" \
LIBGL_DRIVERS_PATH="$root/usr/lib/x86_64-linux-gnu/dri" \
ASTAR_BRIDGE_PYTHON="$here/.venv/bin/python" \
  "$godot" --rendering-driver opengl3 --editor --path "$project" --resolution 1600x900 \
  -- --probe-play --probe-wait-game --probe-screenshot="$abs_out" | grep '^probe: ' | cut -c1-400
echo "[screenshot] wrote $out" >&2
