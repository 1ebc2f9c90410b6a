"""Bridge round-trip benchmark (a command, not a test): what the sidecar adds over a bare socket.

    .venv/bin/python bench/bridge_roundtrip.py            # about a minute
    .venv/bin/python bench/bridge_roundtrip.py --quick    # fewer samples

Prints, from one run:
- median and p99 round trip of a short ``path.find`` on a loaded 64x64 grid, against a raw msgpack
  echo over the same loopback (a tiny echo server in this script), and their ratio;
- throughput of one ``path.find_many`` of 1,000 queries, and of 32 concurrent clients, with the
  error count (must be zero);
- ``path.find_many`` on a 512x512 map with ``--workers 1`` against ``--workers 2``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgpack
import numpy as np

from bridge.client import Client
from bridge.errors import BridgeError
from bridge.sidecar import Sidecar, start_sidecar


def _percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def _echo_server() -> tuple[socket.socket, int]:
    """A thread answering each msgpack request with a same-shaped response (the floor to beat)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        unpacker = msgpack.Unpacker(raw=False)
        with conn:
            while data := conn.recv(65536):
                unpacker.feed(data)
                for message in unpacker:
                    conn.sendall(msgpack.packb([1, message[1], None, message[3][0]], use_bin_type=True))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener, int(listener.getsockname()[1])


def _timed_calls(client: Client, method: str, params: dict[str, Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        t0 = time.perf_counter()
        client.call(method, params)
        samples.append(time.perf_counter() - t0)
    return samples


def round_trip(sidecar: Sidecar, count: int) -> None:
    """Short path.find vs raw echo: median, p99, ratio."""
    query = Client.query("bench-64", (3, 3), (10, 12))
    with sidecar.connect() as client:
        client.load_grid("bench-64", np.ones((64, 64), dtype=bool))
        _timed_calls(client, "path.find", query, 200)  # warm up workers and caches
        find = _timed_calls(client, "path.find", query, count)
    listener, port = _echo_server()
    with Client.connect("127.0.0.1", port) as echo:
        _timed_calls(echo, "path.find", query, 200)
        raw = _timed_calls(echo, "path.find", query, count)
    listener.close()
    f50, f99 = statistics.median(find) * 1e6, _percentile(find, 99) * 1e6
    e50, e99 = statistics.median(raw) * 1e6, _percentile(raw, 99) * 1e6
    print(f"round trip, short path.find on 64x64 ({count} calls): median {f50:.0f} us, p99 {f99:.0f} us")
    print(f"round trip, raw msgpack echo ({count} calls):          median {e50:.0f} us, p99 {e99:.0f} us")
    print(f"  ratio path.find / echo: median {f50 / e50:.1f}x, p99 {f99 / e99:.1f}x")


def _queries(
    graph: str, size: int, count: int, seed: int, walkable: np.ndarray[Any, Any] | None = None
) -> list[dict[str, Any]]:
    """Random start/goal pairs (on walkable cells when a mask is given: a wall start is an error)."""
    rng = np.random.default_rng(seed)
    open_cells = np.argwhere(walkable)[:, ::-1] if walkable is not None else None
    if open_cells is None:
        cells = rng.integers(0, size, (count, 2, 2))
    else:
        cells = open_cells[rng.integers(0, len(open_cells), (count, 2))]
    return [Client.query(graph, tuple(map(int, a)), tuple(map(int, b))) for a, b in cells]


def _errors(results: list[dict[str, Any]]) -> int:
    return sum(r.get("status") == "error" for r in results)


def throughput(sidecar: Sidecar) -> None:
    """find_many of 1,000 queries, then 32 concurrent clients of single finds."""
    queries = _queries("bench-64", 64, 1000, 1)
    with sidecar.connect() as client:
        client.find_many(queries[:50])
        t0 = time.perf_counter()
        results = client.find_many(queries)
        elapsed = time.perf_counter() - t0
    rate = len(results) / elapsed
    print(f"path.find_many, 1,000 queries on 64x64: {rate:,.0f} queries/s, errors {_errors(results)}")

    per_client = 100

    def work(seed: int) -> int:
        errors = 0
        with sidecar.connect() as client:
            for query in _queries("bench-64", 64, per_client, seed):
                try:
                    client.call("path.find", query)
                except (BridgeError, OSError):
                    errors += 1
        return errors

    t0 = time.perf_counter()
    with ThreadPoolExecutor(32) as pool:
        errors = sum(pool.map(work, range(32)))
    elapsed = time.perf_counter() - t0
    rate = 32 * per_client / elapsed
    print(f"32 concurrent clients x {per_client} path.find: {rate:,.0f} queries/s, errors {errors}")


def _map_512() -> np.ndarray[Any, np.dtype[np.bool_]]:
    rng = np.random.default_rng(7)
    walkable = rng.random((512, 512)) > 0.25
    walkable[0, :] = walkable[:, 0] = True
    return walkable


def scaling(count: int) -> None:
    """find_many on a 512x512 map with one worker, then two."""
    walkable = _map_512()
    queries = _queries("bench-512", 512, count, 3, walkable)
    rates = {}
    for workers in (1, 2):
        options = ("--workers", str(workers), "--log-level", "WARNING")
        with start_sidecar(*options, stderr=subprocess.DEVNULL) as car, car.connect(timeout=600) as client:
            client.load_grid("bench-512", walkable, diagonal="only_if_no_obstacles")
            client.find_many(queries[:4])
            t0 = time.perf_counter()
            results = client.find_many(queries)
            elapsed = time.perf_counter() - t0
        rates[workers] = len(results) / elapsed
        print(f"path.find_many, {count} queries on 512x512, --workers {workers}: "
              f"{rates[workers]:,.1f} queries/s ({elapsed:.2f} s), errors {_errors(results)}")  # fmt: skip
    print(f"  speed-up 2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")


def main() -> None:
    """Run every measurement once and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    calls, big = (500, 40) if args.quick else (3000, 200)
    with start_sidecar("--workers", "2", "--log-level", "WARNING", stderr=subprocess.DEVNULL) as sidecar:
        round_trip(sidecar, calls)
        throughput(sidecar)
    scaling(big)


if __name__ == "__main__":
    main()
