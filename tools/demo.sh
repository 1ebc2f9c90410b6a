#!/usr/bin/env bash
# The README's main command: set-up, then the demo level run headless for a fixed simulated time
# (fixed seed, a fixed 1/60 s step). Extra arguments go to the run: --short, --seconds=S,
# --npcs=N, --seed=N (see demo_project/headless/run_demo.gd).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
exec "$(cat .venv/.godot-path)" --headless --fixed-fps 60 --path demo_project \
  --script res://headless/run_demo.gd -- "$@"
