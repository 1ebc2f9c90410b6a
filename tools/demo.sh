#!/usr/bin/env bash
# The README's main command: set-up, then the demo level run headless for a fixed simulated time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
exec "$(cat .venv/.godot-path)" --headless --path demo_project --script res://headless/run_demo.gd -- "$@"
