#!/usr/bin/env bash
# Build the self-contained sidecar for this platform into build/sidecar/<platform>/ (see
# tools/bundle.py and docs/shipping.md). Arguments go to tools/bundle.py: --force (rebuild although
# up to date), --out DIR. Only what the build needs is set up: a .venv with the project's runtime
# packages and the bundle extra (PyInstaller, zstandard); not the developer set-up (dev tools,
# Godot, the venv's own kernel warm-up), which the bundle never uses.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[bundle] creating .venv" >&2
  "$python" -m venv .venv
fi
if ! .venv/bin/python -c "import PyInstaller, zstandard, numba, msgpack, bridge" 2>/dev/null; then
  echo "[bundle] installing the project and its bundle extra (PyInstaller, zstandard) into .venv" >&2
  .venv/bin/python -m pip install -q -e ".[bundle]" >&2
fi
exec .venv/bin/python tools/bundle.py "$@"
