#!/usr/bin/env bash
# Idempotent set-up shared by the README's two commands: a .venv with the project and its dev
# extras, and a Godot 4 binary. A second run reuses both (pip runs again only when pyproject changes).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv" >&2
  "$python" -m venv .venv
fi
stamp=.venv/.astar-bridge-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[setup] installing Python packages into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e ".[dev,bench]" >&2
  echo "$want" > "$stamp"
fi
# Fill numba's disk cache once (a cold compile takes a minute), so a sidecar's workers start warm:
# the same command a user runs after pip install, with a line per kernel it has to compile.
.venv/bin/python -m bridge warm-up >&2
# Without Godot the Python tests still run locally (Godot tests skip); with CI=true that is a failure.
if godot="$(.venv/bin/python tools/provision_godot.py)"; then
  echo "$godot" > .venv/.godot-path
elif [ "${CI:-}" = "true" ]; then
  echo "[setup] error: CI=true and no Godot 4.3+ could be found or provisioned" >&2
  exit 1
else
  echo "[setup] warning: no Godot 4.3+; Godot tests will be skipped (set GODOT=/path/to/godot)" >&2
  : > .venv/.godot-path
fi
