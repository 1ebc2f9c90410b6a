"""``astar-bridge warm-up``: fills numba's cache with a few progress lines, and says what it compiled.

(It lives beside the export tests because it is the developer's half of the first-run cost; it
tests ``bridge.cli.warm_up`` and ``bridge.cli.warm_up_pool``. The cold compile in two processes is
tests/addon/test_warm_up_parallel.py.)
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bridge.cli.warm_up import Progress
from python_core.warm_up_jobs import KERNEL_SIGNATURES
from tests.godot_env import REPO


def warm_up(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bridge", "warm-up", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env=env,
    )


def test_after_set_up_the_warm_up_compiles_nothing() -> None:
    """tools/setup.sh filled the cache, so every kernel loads from it (exit 0 with the check), in
    this process, in two lines."""
    out = warm_up("--expect-cached")
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 compiled" in out.stdout, out.stdout
    assert "loaded from the cache" in out.stdout
    total = f"{KERNEL_SIGNATURES} of {KERNEL_SIGNATURES}"
    assert out.stderr.splitlines() == [
        f"[warm-up] loading pathfinding kernels: {total} in the cache",
        out.stderr.splitlines()[-1],
    ]
    assert out.stderr.splitlines()[-1].startswith(
        f"[warm-up] pathfinding kernels ready: {total} in the cache"
    )


@pytest.mark.parametrize("bad", ["0", "-2", "two"])
def test_a_bad_process_count_is_refused(bad: str) -> None:
    out = warm_up("--jobs", bad)
    assert out.returncode == 2
    assert "--jobs" in out.stderr
    assert "expected a" in out.stderr


def test_progress_lines_at_each_tenth_with_an_estimate_and_a_line_after_a_silence(tmp_path: Path) -> None:
    now = [0.0]
    stream = io.StringIO()
    (tmp_path / "sub").mkdir()
    progress = Progress(tmp_path, 100, stream, clock=lambda: now[0])
    progress.begin(2)

    def compiled(count: int, at: float) -> None:
        for index in range(count):
            (tmp_path / "sub" / f"k{at}-{index}.nbc").write_bytes(b"")
        now[0] = at
        progress.check()

    compiled(4, 2.0)  # below a tenth: no line
    compiled(6, 10.0)  # 10 of 100 in 10 s: 90 left at that rate
    compiled(1, 11.0)  # 11: still the same tenth
    now[0] = 45.0
    progress.check()  # 34 s without a line: one, with the count unchanged
    compiled(39, 50.0)  # 50 of 100
    progress.finish(50.0)
    assert stream.getvalue().splitlines() == [
        "[warm-up] compiling pathfinding kernels in 2 processes, once per install: 0 of 100 in the cache",
        "[warm-up] compiling pathfinding kernels: 10 of 100 (~2 min left)",
        "[warm-up] compiling pathfinding kernels: 11 of 100 (~6 min left)",
        "[warm-up] compiling pathfinding kernels: 50 of 100 (~50 s left)",
        "[warm-up] pathfinding kernels ready: 50 of 100 in the cache, 50.0 s",
    ]


def test_the_counter_names_python_core_kernels_only(tmp_path: Path) -> None:
    """A cold compile of the waypoint kernels, in a fresh process with its own cache: the
    counter names python_core's kernel signatures, and not a kernel of anyone else."""
    script = textwrap.dedent(
        """
        import json, numba
        from bridge.cli.warm_up_pool import SignatureCounter
        from python_core.warm_up_jobs import run_job

        @numba.njit
        def twice(x):
            return 2 * x

        with SignatureCounter().listening() as counter:
            assert twice(21) == 42
            run_job("waypoints")
            run_job("waypoints")  # loaded in this process already: nothing more
        print(json.dumps(counter.take()))
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr
    names: list[str] = json.loads(out.stdout)
    assert any(name.startswith("python_core.csr.kernel.astar_kernel(") for name in names), names
    assert all(name.startswith("python_core.") for name in names)
    assert len(names) == len(set(names))
    assert len(names) == sum(1 for _ in tmp_path.rglob("*.nbc"))  # one cached signature each
