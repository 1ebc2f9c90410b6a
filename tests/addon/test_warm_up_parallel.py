"""The warm-up in several processes: numba's cache filled whole and consistent, and why it locks.

Two cold compiles of every kernel into empty caches would take minutes; the first test does one
(two processes), then checks the cache file by file and that a second warm-up compiles nothing.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numba  # noqa: F401 (the cache's pickles name numba's types)
import pytest

from bridge.cli.warm_up_pool import WarmUpFailedError, compile_in_processes, worker_command
from python_core.warm_up_jobs import KERNEL_SIGNATURES, WarmUpJob
from tests.godot_env import REPO


def index_entries(cache: Path) -> list[tuple[Path, Any, str]]:
    """(index file, signature, data file name) of every entry of every numba index in ``cache``."""
    entries = []
    for index in sorted(cache.rglob("*.nbi")):
        with index.open("rb") as file:
            pickle.load(file)  # numba's version
            _stamp, overloads = pickle.loads(file.read())
        entries += [(index, key[0], name) for key, name in overloads.items()]
    return entries


def warm_up(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bridge", "warm-up", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )


@pytest.mark.slow
def test_two_processes_fill_an_empty_cache_with_every_kernel_once(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "bridge", "warm-up"]
    cold = subprocess.run(
        [*command, "--jobs", "2"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert cold.returncode == 0, cold.stdout + cold.stderr
    lines = cold.stderr.splitlines()
    assert lines[0].startswith("[warm-up] compiling pathfinding kernels in 2 processes")
    assert all(line.startswith("[warm-up] ") for line in lines), cold.stderr
    data_files = sum(1 for _ in tmp_path.rglob("*.nbc"))
    assert data_files == KERNEL_SIGNATURES, (
        f"the warm-up now compiles {data_files} kernel signatures: set"
        f" python_core.warm_up_jobs.KERNEL_SIGNATURES = {data_files}"
    )
    assert lines[-1].startswith(f"[warm-up] pathfinding kernels ready: {data_files} of {data_files}")
    assert f", {data_files} compiled," in cold.stdout  # each compiled once across the processes

    # Every index entry names a data file of its own that holds that very signature.
    entries = index_entries(tmp_path)
    assert len(entries) == data_files
    assert len({(index.parent, name) for index, _, name in entries}) == data_files
    for index, signature, name in entries:
        compiled = pickle.loads((index.parent / name).read_bytes())
        assert compiled[3].args == signature, (index.name, name)

    warm = subprocess.run(
        [*command, "--expect-cached"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert warm.returncode == 0, warm.stdout + warm.stderr
    assert " 0 compiled" in warm.stdout
    assert warm.stderr.startswith("[warm-up] loading pathfinding kernels")


RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import numba
    from numba.core import caching

    import python_core.compiled  # its cache folder, as in the warm-up

    folder, kind, locked = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "locked"
    other = "float" if kind == "int" else "int"
    save_index = caching.IndexDataCacheFile._save_index

    def save_index_when_both_read(self, overloads):
        # Both processes have read the index before either writes it (or, locked, the other waits
        # for the lock and this one stops waiting for it after 10 s).
        (folder / kind).touch()
        deadline = time.monotonic() + 10
        while not (folder / other).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        save_index(self, overloads)

    caching.IndexDataCacheFile._save_index = save_index_when_both_read
    if locked:
        from bridge.cli.warm_up_pool import serialize_cache_writes

        serialize_cache_writes(Path(numba.config.CACHE_DIR))
    sys.path.insert(0, str(folder))
    import racer_kernel

    print(racer_kernel.bump(1 if kind == "int" else 1.0))
    """
)


@pytest.mark.parametrize(("mode", "entries"), [("unlocked", 1), ("locked", 2)])
def test_two_processes_saving_one_kernel_keep_both_signatures_only_under_the_lock(
    tmp_path: Path, mode: str, entries: int
) -> None:
    """numba reads a kernel's index, picks a free data file name and writes the index back: two
    processes saving two signatures at once both take ``.1.nbc`` and one signature is lost (or
    worse, its index entry points at the other's machine code). The workers' lock prevents it."""
    (tmp_path / "racer_kernel.py").write_text(
        "import numba\n\n\n@numba.njit(cache=True)\ndef bump(x):\n    return x + 1\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(tmp_path), kind, mode],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kind in ("int", "float")
    ]
    outputs = [racer.communicate(timeout=300) for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], outputs
    assert [out.strip() for out, _ in outputs] == ["2", "2.0"]
    found = index_entries(tmp_path / "cache")
    assert len(found) == entries, found
    if mode == "locked":
        assert len({name for _, _, name in found}) == 2
        # A third process loads both from the cache, each the right machine code.
        check = (
            f"import sys, python_core.compiled; sys.path.insert(0, {str(tmp_path)!r});"
            " import racer_kernel as k;"
            " print(k.bump(1), k.bump(1.5), sum(k.bump.stats.cache_hits.values()),"
            " sum(k.bump.stats.cache_misses.values()))"
        )
        out = subprocess.run(
            [sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert out.stdout.split() == ["2", "2.5", "2", "0"], out.stdout + out.stderr


def test_a_worker_that_fails_fails_the_warm_up_and_names_its_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker dies on its job (here: a job no worker knows, so it raises): the warm-up stops the
    other workers and raises, naming the job."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    with pytest.raises(WarmUpFailedError, match="'no-such-job' exited with status 1"):
        compile_in_processes(
            [WarmUpJob("grid", "grid searches", ()), WarmUpJob("no-such-job", "nothing", ())],
            2,
            worker_command(),
        )
