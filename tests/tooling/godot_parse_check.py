"""A strict parse check of a Godot project's scripts, with every warning raised to an error.

Godot prints warnings only in the editor, and ``--check-only`` is unreliable about exit codes, so the
check copies the project's settings into a throw-away project (its folders linked, not copied), sets
each warning that is at level "warn" to "error", loads every script, and reads the log.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from tests.godot_env import REPO, engine_errors, import_project, run_godot

CHECK_SCRIPT = REPO / "tools" / "godot" / "parse_check.gd"
LOADED = re.compile(r"parse_check: loaded (\d+) scripts")


def strict_copy(godot: str, project: Path, where: Path) -> Path:
    """A project in ``where`` linking ``project``'s folders, with warnings as errors."""
    where.mkdir(parents=True, exist_ok=True)
    for entry in project.iterdir():
        if entry.name not in ("project.godot", ".godot", "override.cfg"):
            (where / entry.name).symlink_to(entry.resolve())
    shutil.copy(CHECK_SCRIPT, where / "_parse_check.gd")
    settings = (project / "project.godot").read_text()
    (where / "project.godot").write_text(settings)
    listed = run_godot(godot, where, ["--script", "res://_parse_check.gd", "--", "--list-warnings"])
    keys = re.findall(r"^WARN_SETTING (\S+)$", listed.stdout, re.MULTILINE)
    assert keys, f"no warning settings listed:\n{listed.stdout}"
    strict = "\n".join(f"{key}=2" for key in keys)
    (where / "project.godot").write_text(f"{settings}\n[debug]\n\n{strict}\n")
    return where


def parse_check(godot: str, project: Path, where: Path) -> tuple[int, list[str], str]:
    """(scripts loaded, error/warning lines, full log) for every .gd of ``project``."""
    copy = strict_copy(godot, project, where)
    import_project(godot, copy)
    # The demo's autoload may start a sidecar while scripts load; give it this interpreter.
    env = {"ASTAR_BRIDGE_PYTHON": sys.executable}
    result = run_godot(godot, copy, ["--script", "res://_parse_check.gd"], env=env)
    match = LOADED.search(result.stdout)
    return (int(match.group(1)) if match else 0), engine_errors(result.stdout), result.stdout
