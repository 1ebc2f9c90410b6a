"""Whether Ray, the optional ``ray`` extra that ``serve --ray`` needs, is here for the tests.

Without it the Ray tests skip on a developer machine but fail with ``CI=true``: CI must never pass
by skipping the distributed serving (as tests/godot_env.py does for Godot). ``tools/test.sh`` sets
up with ``--ray``.
"""

from __future__ import annotations

import functools
import importlib
import os

import pytest

MIN_VERSION = (2, 40)
"""The oldest Ray the ``ray`` extra of pyproject.toml accepts."""

INSTALL = "bash tools/setup.sh --ray (tools/test.sh does)"


@functools.cache
def ray_problem() -> str:
    """Why Ray cannot be used here, or "" when it can (imported once per test process)."""
    try:
        ray = importlib.import_module("ray")
    except ImportError as exc:
        return f"Ray is not installed ({exc}); install it with {INSTALL}"
    version = str(getattr(ray, "__version__", "0"))
    parts = tuple(int(part) for part in version.split(".")[:2] if part.isdigit())
    if parts < MIN_VERSION:
        return f"Ray {version} is older than {'.'.join(map(str, MIN_VERSION))}; upgrade it with {INSTALL}"
    return ""


def require_ray() -> None:
    """Ray for a test: skip without it, except under CI=true where its absence is a failure."""
    problem = ray_problem()
    if not problem:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {problem}", pytrace=False)
    pytest.skip(problem)
