"""Fault and abuse figures of the sidecar, one row per case, measured over the wire against real
``python -m bridge serve`` subprocesses (so they measure whatever server the checkout runs).

    .venv/bin/python bench/fault_abuse.py                 # every case, full size
    .venv/bin/python bench/fault_abuse.py --quick         # smaller counts and maps
    .venv/bin/python bench/fault_abuse.py --case fuzz     # one case (repeat --case for more)

Cases: ``stderr`` (5,000 connect/close cycles with an unread stderr pipe at INFO: does it freeze?),
``amplify`` (RSS growth under 16 MiB of unauthenticated empty arrays), ``fuzz`` (``internal``
answers in 10,000 fuzzed messages), ``failed-load`` (a load refused by the workers leaves the old
graph answering its old cost?), ``one-step`` (a one-step query's latency while two unbudgeted
searches to an unreachable goal and a load of the same size run), ``token`` (absent from ``ps``
with ``--token-stdin``?), ``clients`` (32 clients x 1,000 ``path.find`` on 512x512: errors,
throughput, p99), and issue 37's attacks (``bench/fault_attacks.py``: ``field-lock``,
``navmesh-move``, ``flood``, ``tiles-repeat``, ``corridor``, ``unread``, ``huge-cell``,
``bogus-heuristic``: another client's worst round trip during each, beside its idle baseline, and
the sidecar's memory growth).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fault_attacks import ATTACKS  # noqa: E402
from bench.generated_maps import open_scattered, random_queries  # noqa: E402
from bridge.client import Client  # noqa: E402
from bridge.client.sidecar import Sidecar, start_sidecar  # noqa: E402
from tests.bridge.faults import rss_bytes, run_fuzz, send_quietly  # noqa: E402

MIB = 1024 * 1024
Row = tuple[str, str, str]
"""(case, measured, goal)."""


def _sidecar(*args: str, stderr: int | None = subprocess.DEVNULL) -> Sidecar:
    return start_sidecar("--log-level", "WARNING", *args, stderr=stderr)


def case_stderr(quick: bool) -> Row:
    """Connect/close cycles against a sidecar logging at INFO into a pipe nobody reads."""
    cycles = 1000 if quick else 5000
    sidecar = start_sidecar("--threads", "1", "--log-level", "INFO", stderr=subprocess.PIPE)
    try:
        done = 0
        for done in range(1, cycles + 1):  # noqa: B007  (``done`` is the figure)
            try:
                socket.create_connection((sidecar.host, sidecar.port), timeout=2).close()
            except OSError:
                break
        answered = _answers_a_find(sidecar)
    finally:
        sidecar.stop()
    figure = f"no freeze: {cycles} cycles, then a path.find answered" if answered else ""
    figure = figure or f"FROZE: connection {done} failed or the find after {done} cycles timed out"
    return (f"unread stderr pipe, {cycles} connect/close", figure, "no freeze")


def _answers_a_find(sidecar: Sidecar) -> bool:
    try:
        with sidecar.connect(timeout=10) as client:
            client.load_grid("g", np.ones((4, 4)))
            return bool(client.find("g", (0, 0), (3, 3))["status"] == "found")
    except OSError:
        return False


def case_amplify(quick: bool) -> Row:
    """Unauthenticated: an array header of 64 Mi values, then 16 MiB of empty arrays, unfinished."""
    sidecar = _sidecar("--threads", "1")
    try:
        with sidecar.connect() as client:  # the kernels load in the background: not the attack's
            client.load_grid("warm", [[1, 1], [1, 1]])
            client.find("warm", (0, 0), (1, 1))
        before = rss_bytes(sidecar.process.pid)
        peak = before
        with socket.create_connection((sidecar.host, sidecar.port), timeout=20) as sock:
            send_quietly(sock, b"\xdd\x04\x00\x00\x00")
            for _ in range(16):
                if not send_quietly(sock, b"\x90" * MIB):
                    break
            for _ in range(20):  # the sidecar may still be reading: the peak over 2 s
                peak = max(peak, rss_bytes(sidecar.process.pid))
                time.sleep(0.1)
    finally:
        sidecar.stop()
    grown = (peak - before) / MIB
    return (
        "RSS growth, 16 MiB of unauthenticated 0x90",
        f"+{grown:.0f} MB (from {before / MIB:.0f})",
        "< +64 MB",
    )


def case_fuzz(quick: bool) -> Row:
    """Fuzzed messages, one at a time (see tests/bridge/faults.py)."""
    count = 2000 if quick else 10_000
    sidecar = _sidecar("--threads", "1")
    try:
        report = run_fuzz(sidecar, count, stall_seconds=1.0)
        alive = sidecar.process.poll() is None
    finally:
        sidecar.stop()
    figure = f"{len(report.internal)} internal; {report.closed} closes, {report.stalled} stalls (1 s)"
    return (f"{count} fuzzed messages", figure + ("" if alive else "; CRASHED"), "0 internal")


def case_failed_load(quick: bool) -> Row:
    """Replace a loaded grid by one whose hierarchy the workers cannot build."""
    sidecar = _sidecar("--threads", "2")
    try:
        with sidecar.connect(timeout=20) as client:
            client.load_grid("g", np.ones((64, 64)), diagonal="never")
            before = client.find("g", (0, 0), (63, 63))["cost"]
            walls = np.ones((64, 64))
            walls[32, :63] = 0
            try:
                client.load_grid("g", walls, diagonal="never", hierarchy={"long_entrance": 2**63})
                refused = "accepted"
            except Exception as exc:  # the figure is what happened, whatever it was
                refused = f"refused ({_error_name(exc)})"
        with sidecar.connect(timeout=20) as client:
            try:
                after: object = client.find("g", (0, 0), (63, 63))["cost"]
            except Exception as exc:  # the figure is what happened, whatever it was
                after = _error_name(exc)
    finally:
        sidecar.stop()
    verdict = "yes" if after == before else f"NO: cost {before}, then {after}"
    return ("failed load keeps the old graph answering", f"{verdict}; the load was {refused}", "yes")


def _error_name(exc: Exception) -> str:
    code = getattr(exc, "code", None)
    return f"{type(exc).__name__} {code}" if code else type(exc).__name__


def case_one_step(quick: bool) -> Row:
    """A one-step query from another client while two worst-case searches and a big load run."""
    size = 2048 if quick else 4096
    sidecar = _sidecar("--max-expansions", str(4 * size * size))
    grid = np.ones((size, size), dtype=np.uint8)
    grid[size - 2, size - 2 :] = 0  # the goal corner walled off: every search explores it all
    grid[size - 2 :, size - 2] = 0
    try:
        with sidecar.connect(timeout=600) as owner:
            owner.load_grid("big", grid)
            owner.load_grid("small", np.ones((4, 4)))
            owner.find("small", (0, 0), (1, 0))
        seconds: dict[str, float] = {}
        jobs = [
            ("search-1", lambda c: c.find("big", (0, 0), (size - 1, size - 1))),
            ("search-2", lambda c: c.find("big", (1, 0), (size - 1, size - 1))),
            ("load", lambda c: c.load_grid("big-2", grid)),
        ]
        threads = [threading.Thread(target=_timed, args=(sidecar, n, j, seconds)) for n, j in jobs]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # the searches and the load are under way
        with sidecar.connect(timeout=600) as other:
            began = time.perf_counter()
            other.find("small", (0, 0), (1, 0))
            waited = (time.perf_counter() - began) * 1e3
        for thread in threads:
            thread.join()
    finally:
        sidecar.stop()
    others = ", ".join(f"{name} {s:.1f} s" for name, s in sorted(seconds.items()))
    return (f"one-step query under load ({size}x{size})", f"{waited:.0f} ms ({others})", "a few ms")


def _timed(sidecar: Sidecar, name: str, job: Callable[[Client], object], seconds: dict[str, float]) -> None:
    began = time.perf_counter()
    try:
        with sidecar.connect(timeout=600) as client:
            job(client)
        seconds[name] = time.perf_counter() - began
    except Exception:  # the row reports the job as failed rather than the bench stopping
        seconds[name + " FAILED"] = time.perf_counter() - began


def case_token(quick: bool) -> Row:
    """``serve --token-stdin``: is the token in ``ps`` output or /proc/<pid>/cmdline?"""
    token = os.urandom(16).hex()
    command = [sys.executable, "-m", "bridge", "serve", "--token-stdin", "--threads", "1"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        process.stdin.write(token.encode() + b"\n")
        process.stdin.flush()
        announced = json.loads(process.stdout.readline())
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, check=True).stdout
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        absent = token.encode() not in ps and token.encode() not in cmdline
    finally:
        process.stdin.close()
        process.wait(20)
    works = announced.get("token") == token
    return ("token absent from ps with --token-stdin", f"{'yes' if absent else 'NO'} (used: {works})", "yes")


def case_clients(quick: bool) -> Row:
    """32 clients, each ``per_client`` path.find one after another, on a 512x512 scattered map."""
    per_client = 100 if quick else 1000
    mask = open_scattered(512)
    queries = random_queries(mask, 32 * per_client)
    sidecar = _sidecar()
    latencies: list[float] = []
    errors: list[str] = []
    try:
        with sidecar.connect() as owner:
            owner.load_grid("map", mask)
            owner.find("map", *queries[0])
        clients = [sidecar.connect(timeout=120) for _ in range(32)]
        lock = threading.Lock()

        def run(client: Client, mine: list[tuple[tuple[int, int], tuple[int, int]]]) -> None:
            for start, goal in mine:
                began = time.perf_counter()
                try:
                    client.find("map", start, goal)
                except Exception as exc:  # counted, the client goes on
                    with lock:
                        errors.append(type(exc).__name__)
                with lock:
                    latencies.append(time.perf_counter() - began)

        threads = [
            threading.Thread(target=run, args=(c, queries[i * per_client : (i + 1) * per_client]))
            for i, c in enumerate(clients)
        ]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - began
        for client in clients:
            client.close()
    finally:
        sidecar.stop()
    p99 = float(np.percentile(latencies, 99)) * 1e3
    figure = f"{len(errors)} errors, {len(latencies) / elapsed:.0f} finds/s, p99 {p99:.0f} ms"
    return (f"32 clients x {per_client} path.find, 512x512", figure, "0 errors")


CASES: dict[str, Callable[[bool], Row]] = {
    "stderr": case_stderr,
    "amplify": case_amplify,
    "fuzz": case_fuzz,
    "failed-load": case_failed_load,
    "one-step": case_one_step,
    "token": case_token,
    "clients": case_clients,
    **ATTACKS,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--case", action="append", choices=list(CASES), help="run only this case")
    parser.add_argument("--quick", action="store_true", help="smaller counts and maps")
    args = parser.parse_args(argv)
    print("| case | measured | goal |")
    print("|---|---|---|")
    for name in args.case or list(CASES):
        began = time.perf_counter()
        case, measured, goal = CASES[name](args.quick)
        print(f"| {case} | {measured} | {goal} |  <!-- {name}, {time.perf_counter() - began:.0f} s -->")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
