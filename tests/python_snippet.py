"""Run a Python snippet in a fresh interpreter from the repository root (what a kernel cache, an
environment variable or a first call in a process does can only be seen there)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_snippet(script: str, env: dict[str, str], timeout: float) -> str:
    """Run ``script`` with ``python -c`` under ``env``; assert it exits 0 (its stderr as the
    message) and return its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
