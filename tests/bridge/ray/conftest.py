"""Every test under tests/bridge/ray needs Ray: a skip without it, a failure with CI=true
(tests/bridge/ray/ray_env.py). Test modules here import ray only inside tests or not at all (the
sidecars they start import it), so a missing Ray reaches this fixture rather than failing collection."""

from __future__ import annotations

import pytest

from tests.bridge.ray.ray_env import require_ray


@pytest.fixture(autouse=True)
def _ray_required() -> None:
    require_ray()
