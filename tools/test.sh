#!/usr/bin/env bash
# The README's test command: set-up, then every test (Python, GDScript in headless Godot, and the
# quality gates ruff / mypy / gdlint / gdformat / Godot parse check, which are pytest tests too).
# Its set-up adds the test tools (--dev) and Ray (--ray: the tests of `serve --ray` run, and with
# CI=true fail without it) to what the demo's set-up installs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/setup.sh --dev --ray
godot="$(cat .venv/.godot-path)"
if [ -n "$godot" ]; then export GODOT="$godot"; fi
# Two workers (CI has 2 cores); tests that start Godot or use the sidecar bundle stay on one of them,
# in order (tests/conftest.py groups them). The 25 slowest are listed at the end for the CI log.
exec .venv/bin/python -m pytest -n 2 --dist loadgroup --durations=25 "$@"
