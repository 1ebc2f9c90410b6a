"""Start-up of the self-contained sidecar on a moved copy, beside the virtual environment's, same run.

For each kind of sidecar, a few cold starts: launch, read the announcement line, connect, hello,
upload a 64 x 64 grid, answer one path. The bundle (built by ``tools/bundle.sh``) is first copied
to a temporary folder, as a player unpacks it, and started with an empty environment (no PATH, no
Python); the venv sidecar runs as the editor runs it (``python -m bridge serve``). The bundle's
very first start on a player's machine also unpacks its packed libraries (LLVM, OpenBLAS): each
run times that too, on a fresh copy of its own. Also printed:
the sidecar's own "kernels ready" seconds, which include any compilation (a cached load is well
under a second; a compile is tens of seconds), and what ``warm-up --expect-cached`` says of the
moved copy. A command, not a test::

    .venv/bin/python bench/bundle_start.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.client import Client
from tools.bundle import NAME, platform_tag

REPO = Path(__file__).resolve().parent.parent
READY = re.compile(r"kernels ready in ([0-9.]+) s")
SIDE = 64


def one_start(command: list[str], env: dict[str, str] | None, cwd: Path) -> dict[str, float]:
    """Seconds from launch to the announcement and to the first answered path."""
    began = time.perf_counter()
    process = subprocess.Popen(
        [*command, "serve", "--log-level", "INFO"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )
    try:
        assert process.stdout is not None
        announcement = json.loads(process.stdout.readline())
        announced = time.perf_counter() - began
        with Client.connect(announcement["host"], announcement["port"]) as client:
            client.hello(announcement["token"])
            client.load_grid("g", [[1] * SIDE for _ in range(SIDE)])
            found = client.find("g", (0, 0), (SIDE - 1, SIDE - 1))
        answered = time.perf_counter() - began
        assert found["status"] == "found", found
    finally:
        _, err = process.communicate(timeout=30)  # closes stdin: the sidecar stops
    ready = [float(seconds) for seconds in READY.findall(err)]
    return {"announce": announced, "first_path": answered, "kernels_ready": max(ready, default=0.0)}


def report(label: str, runs: list[dict[str, float]]) -> None:
    def cell(key: str) -> str:
        values = [run[key] for run in runs]
        text = f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"
        return f"{text:<19}"

    print(f"| {label:<30} | {cell('announce')} | {cell('first_path')} | {cell('kernels_ready')} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts of each sidecar")
    parser.add_argument("--bundle", type=Path, default=REPO / "build" / "sidecar" / platform_tag() / NAME)
    args = parser.parse_args()
    if not (args.bundle / NAME).exists():
        sys.exit(f"no bundle at {args.bundle}: run bash tools/bundle.sh first")
    with tempfile.TemporaryDirectory(prefix="bundle-start-") as scratch:
        moved = Path(scratch) / "player" / NAME
        shutil.copytree(args.bundle, moved, symlinks=True)
        check = subprocess.run(
            [str(moved / NAME), "warm-up", "--expect-cached"],
            capture_output=True,
            text=True,
            env={},
            check=False,
        )
        first = "bundle, first start (unpacks)"
        kinds = [
            ("bundle, moved copy, env -i", [str(moved / NAME)], {}),
            ("venv (python -m bridge)", [sys.executable, "-m", "bridge"], None),
        ]
        results: dict[str, list[dict[str, float]]] = {first: []}
        results.update({label: [] for label, _, _ in kinds})
        for run in range(args.runs):  # interleaved, so all see the same machine load
            fresh = Path(scratch) / f"fresh-{run}" / NAME
            shutil.copytree(args.bundle, fresh, symlinks=True)
            results[first].append(one_start([str(fresh / NAME)], {}, Path(scratch)))
            shutil.rmtree(fresh.parent)
            for label, command, env in kinds:
                results[label].append(one_start(command, env, Path(scratch)))
    print(f"moved copy: {check.stdout.strip()} (exit {check.returncode})")
    print(f"seconds, median (min-max) of {args.runs} cold starts; first path = launch to first answer")
    print(f"| {'sidecar':<30} | {'announce':<19} | {'first path':<19} | {'kernels ready':<19} |")
    print("|" + "|".join("-" * width for width in (32, 21, 21, 21)) + "|")
    for label, runs in results.items():
        report(label, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
