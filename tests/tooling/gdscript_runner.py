"""Running the GDScript test runner from pytest and reading its closing line."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.godot_env import REPO, engine_errors, run_godot

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$", re.MULTILINE)


@dataclass(frozen=True)
class RunnerOutcome:
    """What one runner run reported."""

    returncode: int
    passed: int
    failed: int
    output: str

    @property
    def errors(self) -> list[str]:
        return engine_errors(self.output)


def run_gdscript_tests(
    godot: str,
    project: Path,
    folder: str = "res://tests",
    method_filter: str = "",
    *,
    env: dict[str, str] | None = None,
    timeout: float = 600,
) -> RunnerOutcome:
    """Run ``runner/run_tests.gd`` in ``project`` over ``folder``; parse ``N passed, N failed``."""
    args = ["--script", "res://runner/run_tests.gd", "--", folder]
    if method_filter:
        args.append(method_filter)
    # The addon starts the sidecar with this interpreter (it has the project installed).
    full_env = {"ASTAR_BRIDGE_PYTHON": sys.executable, "ASTAR_BRIDGE_REPO": str(REPO), **(env or {})}
    result = run_godot(godot, project, args, timeout=timeout, env=full_env)
    matches = SUMMARY.findall(result.stdout)
    passed, failed = (int(matches[-1][0]), int(matches[-1][1])) if matches else (0, 0)
    return RunnerOutcome(result.returncode, passed, failed, result.stdout)


def assert_clean_run(outcome: RunnerOutcome) -> None:
    """Fail unless the run passed, ran at least one test, and printed no engine error."""
    assert SUMMARY.search(outcome.output), f"no closing 'N passed, N failed' line:\n{outcome.output}"
    assert outcome.failed == 0, f"{outcome.failed} GDScript test(s) failed:\n{outcome.output}"
    assert outcome.passed > 0, f"the runner ran no test:\n{outcome.output}"
    assert outcome.returncode == 0, f"runner exited {outcome.returncode}:\n{outcome.output}"
    assert not outcome.errors, "engine errors/warnings:\n" + "\n".join(outcome.errors)
