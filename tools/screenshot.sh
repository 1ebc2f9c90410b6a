#!/usr/bin/env bash
# A screenshot of the windowed demo (docs/demo.png), rendered by Mesa (llvmpipe) under Xvfb with
# the OpenGL 3 driver. Mesa's GL/EGL libraries are unpacked into the same Godot root as Godot
# (tools/provision_godot.py); Xvfb comes from the machine's xvfb package (installed if missing).
# Usage: bash tools/screenshot.sh [output.png] [frames] [more Godot arguments...]
# e.g. bash tools/screenshot.sh docs/debug_draw.png 300 --debug-navigation  (the debug drawing, and
# the engine's own navigation debug too). ASTAR_BRIDGE_DEBUG=1 turns on only A* Bridge's drawing
# (astar_bridge/debug/enabled, through an override.cfg beside the demo for this run):
#   ASTAR_BRIDGE_DEBUG=1 bash tools/screenshot.sh docs/debug_draw_3d.png 300 res://levels/level_3d.tscn
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
out="${1:-docs/demo.png}"
frames="${2:-240}"
shift $(( $# < 2 ? $# : 2 ))
godot="$(cat .venv/.godot-path)"
root="$here/.godot/root"
if ! command -v Xvfb >/dev/null; then
  echo "[screenshot] installing xvfb" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y xvfb >&2; else sudo apt-get install -y xvfb >&2; fi
fi
display=":$(( 90 + RANDOM % 100 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
override="$here/demo_project/override.cfg"
trap 'kill "$xvfb_pid" 2>/dev/null || true; [ "${ASTAR_BRIDGE_DEBUG:-0}" = 1 ] && rm -f "$override"' EXIT
if [ "${ASTAR_BRIDGE_DEBUG:-0}" = 1 ]; then
  [ -e "$override" ] && { echo "[screenshot] $override exists; not replacing it" >&2; exit 1; }
  printf '[astar_bridge]\n\ndebug/enabled=true\n' > "$override"
fi
for _ in $(seq 50); do
  [ -e "/tmp/.X11-unix/X${display#:}" ] && break
  sleep 0.1
done
mkdir -p "$(dirname "$out")"
abs_out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
DISPLAY="$display" \
__GLX_VENDOR_LIBRARY_NAME=mesa \
__EGL_VENDOR_LIBRARY_DIRS="$root/usr/share/glvnd/egl_vendor.d" \
LIBGL_DRIVERS_PATH="$root/usr/lib/x86_64-linux-gnu/dri" \
  "$godot" --rendering-driver opengl3 --path demo_project --fixed-fps 60 "$@" \
  -- --screenshot="$abs_out" --frames="$frames"
echo "[screenshot] wrote $out" >&2
