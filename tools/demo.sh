#!/usr/bin/env bash
# The README's main command: set-up (runtime packages only: the test tools come with the test
# command), then the demo levels run headless for a fixed simulated time
# (fixed seed, a fixed 1/60 s step). Extra arguments go to the run: --short, --seconds=S,
# --npcs=N, --crowd-units=N, --seed=N, --levels=... (see demo_project/headless/run_demo.gd).
# Exits non-zero when the run fails, and also when Godot reported any script or engine error:
# Godot itself exits 0 after a parse error or a failed autoload.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
godot="$(cat .venv/.godot-path)"
if [ -z "$godot" ]; then
  echo "[demo] error: no Godot 4.3+ (set GODOT=/path/to/godot, see docs/development.md)" >&2
  exit 1
fi
# Godot registers class_name types only when it scans a project (the editor, or --import); a fresh
# clone has never been scanned, and a script added since the last scan is unknown too.
cache=demo_project/.godot/global_script_class_cache.cfg
if [ ! -f "$cache" ] || [ -n "$(find -L demo_project -path demo_project/.godot -prune -o \
    \( -name '*.gd' -o -name '*.tscn' -o -name project.godot \) -newer "$cache" -print -quit)" ]; then
  echo "[demo] importing demo_project (Godot's first scan of it registers the class names)" >&2
  if ! env -u LD_LIBRARY_PATH "$godot" --headless --path demo_project --import > .venv/demo-import.log 2>&1 \
      || grep -qE '(SCRIPT ERROR|^ERROR):' .venv/demo-import.log; then
    cat .venv/demo-import.log >&2
    echo "[demo] error: godot --import of demo_project failed (log above)" >&2
    exit 1
  fi
fi
log=.venv/demo-run.log
set +e
env -u LD_LIBRARY_PATH "$godot" --headless --fixed-fps 60 --path demo_project \
  --script res://headless/run_demo.gd -- "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -eq 0 ] && grep -qE '(SCRIPT ERROR|^ERROR|^USER ERROR):' "$log"; then
  echo "[demo] error: Godot reported errors (above) although it exited 0" >&2
  status=3
fi
exit "$status"
