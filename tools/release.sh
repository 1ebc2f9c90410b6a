#!/usr/bin/env bash
# The release zip: dist/astar-bridge-<version>-<platform>.zip, the addon with this platform's
# self-contained sidecar inside (see tools/release.py and docs/shipping.md). Builds the sidecar
# first (tools/bundle.sh, which reuses an up-to-date one). Arguments go to tools/release.py:
# --out DIR (folder of the zip).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash tools/bundle.sh
exec .venv/bin/python tools/release.py "$@"
