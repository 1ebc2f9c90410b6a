#!/usr/bin/env bash
# A picture of the flow-field debug drawing (docs/flow_field_arrows.png), rendered by Mesa
# (llvmpipe) under Xvfb with the OpenGL 3 driver, as tools/screenshot.sh does for the demo: it runs
# tools/godot/field_screenshot.gd in tests/godot_project.
# Usage: bash tools/screenshot_field.sh [output.png] [zoom]  (zoom 1: the whole map; default 2.5)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
out="${1:-docs/flow_field_arrows.png}"
godot="$(cat .venv/.godot-path)"
root="$here/.godot/root"
if ! command -v Xvfb >/dev/null; then
  echo "[screenshot] installing xvfb" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y xvfb >&2; else sudo apt-get install -y xvfb >&2; fi
fi
display=":$(( 90 + RANDOM % 100 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  [ -e "/tmp/.X11-unix/X${display#:}" ] && break
  sleep 0.1
done
mkdir -p "$(dirname "$out")"
abs_out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
"$godot" --headless --path tests/godot_project --import >/dev/null 2>&1 || true
DISPLAY="$display" \
__GLX_VENDOR_LIBRARY_NAME=mesa \
__EGL_VENDOR_LIBRARY_DIRS="$root/usr/share/glvnd/egl_vendor.d" \
LIBGL_DRIVERS_PATH="$root/usr/lib/x86_64-linux-gnu/dri" \
ASTAR_BRIDGE_PYTHON="$here/.venv/bin/python" \
ASTAR_BRIDGE_REPO="$here" \
  "$godot" --rendering-driver opengl3 --path tests/godot_project --resolution 700x860 \
  --script "$here/tools/godot/field_screenshot.gd" -- "$abs_out" ${2:+"$2"}
echo "[screenshot] wrote $out" >&2
