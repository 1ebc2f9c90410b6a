"""Test and bench hook: kill a replica of a running ``serve --ray local`` gateway from another process.

    pids = replica_pids_of(sidecar.process.pid)     # its replica workers, by pid
    killed = kill_replica_of(sidecar.process.pid)   # SIGKILL one, as a crash would

With ``--ray local`` the Ray instance is the gateway's child, so its replica workers are the
gateway's descendants, titled ``ray::ReplicaActor`` (``ray::ReplicaActor.find`` while answering).
Ray restarts a killed replica (empty: it rebuilds graphs from snapshots and logs when asked), and
the requests that were in flight on it are answered by another replica. Linux only (``/proc``).
In process, :meth:`bridge.serving.ray.serving.RayServing.kill_replica` does the same by index.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["REPLICA_TITLE", "kill_replica_of", "replica_pids_of", "replica_titles_of"]

REPLICA_TITLE = "ray::ReplicaActor"
"""The start of a replica worker's process title (Ray names workers after their actor class)."""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        pid = int(stat.parent.name)
        parent = int(text[text.rindex(")") + 2 :].split()[1])
        tree.setdefault(parent, []).append(pid)
    return tree


def _title(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""


def replica_titles_of(gateway_pid: int) -> dict[int, str]:
    """``{pid: process title}`` of the replica workers below ``gateway_pid`` (a busy one's title
    names the method it runs, e.g. ``ray::ReplicaActor.find_packed``)."""
    tree, found, stack = _children(), {}, [gateway_pid]
    while stack:
        for child in tree.get(stack.pop(), []):
            title = _title(child)
            if title.startswith(REPLICA_TITLE):
                found[child] = title.strip()
            stack.append(child)
    return found


def replica_pids_of(gateway_pid: int) -> list[int]:
    """The pids of the replica workers below ``gateway_pid``, ascending."""
    return sorted(replica_titles_of(gateway_pid))


def kill_replica_of(gateway_pid: int, index: int = 0) -> int:
    """SIGKILL the ``index``-th (by pid) replica worker below ``gateway_pid``; returns its pid.

    Raises:
        LookupError: the gateway has no such replica (not ``--ray local``, or not started yet).
    """
    pids = replica_pids_of(gateway_pid)
    if not 0 <= index < len(pids):
        raise LookupError(f"gateway {gateway_pid} has {len(pids)} replica workers, not {index + 1}")
    os.kill(pids[index], signal.SIGKILL)
    return pids[index]
