"""``astar-bridge warm-up``: fills numba's cache with progress, and says what it compiled.

(It lives beside the export tests because it is the developer's half of issue 26's first-run
cost; it tests ``bridge.warm_up_cli``.)
"""

from __future__ import annotations

import io
import subprocess
import sys
import time

import numba

from bridge.warm_up_cli import compile_counter
from tests.godot_env import REPO


def test_after_set_up_the_warm_up_compiles_nothing() -> None:
    """tools/setup.sh filled the cache, so every kernel loads from it (exit 0 with the check)."""
    out = subprocess.run(
        [sys.executable, "-m", "bridge", "warm-up", "--expect-cached"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 compiled" in out.stdout, out.stdout
    assert "loaded from the cache" in out.stdout
    assert "[warm-up] search kernels" in out.stderr
    assert "[warm-up] HPA* kernels" in out.stderr


def test_the_counter_names_each_compiled_kernel() -> None:
    stream = io.StringIO()
    counter = compile_counter(stream, time.perf_counter())

    @numba.njit
    def twice(x: int) -> int:
        return 2 * x

    numba.core.event.register("numba:compile", counter)
    try:
        assert twice(21) == 42
        assert twice(1) == 2  # the same signature: no second compilation
    finally:
        numba.core.event.unregister("numba:compile", counter)
    assert counter.compiled == 1
    assert "compiling kernel 1: " in stream.getvalue()
    assert "twice" in stream.getvalue()
