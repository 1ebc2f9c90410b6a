#!/usr/bin/env bash
# Build the self-contained sidecar for this platform into build/sidecar/<platform>/ (see
# tools/bundle.py and docs/shipping.md): set-up, the bundle extra (PyInstaller, zstandard), then the build.
# Arguments go to tools/bundle.py: --force (rebuild although up to date), --out DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh
if ! .venv/bin/python -c "import PyInstaller, zstandard" 2>/dev/null; then
  echo "[bundle] installing the bundle extra (PyInstaller, zstandard) into .venv" >&2
  .venv/bin/python -m pip install -q -e ".[bundle]" >&2
fi
exec .venv/bin/python tools/bundle.py "$@"
