"""The Godot binary a benchmark drives: ``GODOT`` when set, else the one tools/provision_godot.py
unpacks (and prints last)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

__all__ = ["godot_binary"]


def godot_binary() -> str:
    """The path of the Godot binary (provisioned on first use)."""
    if os.environ.get("GODOT"):
        return os.environ["GODOT"]
    out = subprocess.run(
        [sys.executable, str(REPO / "tools" / "provision_godot.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]
