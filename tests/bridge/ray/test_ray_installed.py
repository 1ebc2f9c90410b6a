"""The ``ray`` extra is installed where the Ray tests run; with CI=true a missing Ray fails the run,
on a developer machine it only skips (the tests below hide Ray behind a stand-in package that
cannot be imported, in an inner pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.bridge.ray.ray_env import MIN_VERSION, require_ray
from tests.godot_env import REPO

NEEDS_RAY = """
def test_needs_ray():
    import ray
    assert ray
"""


def test_ray_is_importable_for_the_ray_tests() -> None:
    require_ray()  # with CI=true: fails here when the test command's set-up did not install it
    import ray

    assert tuple(int(part) for part in ray.__version__.split(".")[:2]) >= MIN_VERSION


def run_inner_pytest(ci: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """A one-test pytest under tests/bridge/ray (so its conftest.py applies) with ``ray`` shadowed
    by a package whose import fails, as when the extra is not installed."""
    hidden = tmp_path / "hidden"
    (hidden / "ray").mkdir(parents=True)
    (hidden / "ray" / "__init__.py").write_text("raise ImportError('No module named ray (hidden)')\n")
    inner = REPO / "tests" / "bridge" / "ray" / f"_inner_{os.getpid()}_{ci or 'local'}"
    inner.mkdir()
    test_file = inner / "test_inner.py"
    test_file.write_text(NEEDS_RAY)
    path = os.pathsep.join(filter(None, [str(hidden), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "PYTHONPATH": path, "CI": ci}
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", str(test_file)],
            capture_output=True, text=True, env=env, cwd=REPO, check=False, timeout=120,
        )  # fmt: skip
    finally:
        test_file.unlink()
        inner.rmdir()


def test_ci_true_without_ray_fails_loudly(tmp_path: Path) -> None:
    result = run_inner_pytest("true", tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "CI=true and Ray is not installed" in result.stdout
    assert "setup.sh --ray" in result.stdout


def test_without_ci_a_missing_ray_skips(tmp_path: Path) -> None:
    result = run_inner_pytest("", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
