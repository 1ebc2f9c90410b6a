#!/usr/bin/env bash
# The README's test command: set-up, then every test (Python, GDScript in headless Godot, and the
# quality gates ruff / mypy / gdlint / gdformat / Godot parse check, which are pytest tests too).
# Its set-up adds the test tools (--dev) to what the demo's set-up installs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh --dev
godot="$(cat .venv/.godot-path)"
if [ -n "$godot" ]; then export GODOT="$godot"; fi
exec .venv/bin/python -m pytest "$@"
