"""Joining (or starting) the Ray cluster the replicas run in, as ``serve --ray`` says.

    options = RayOptions(target="local", replicas=2, memory_mb=1024)
    started = connect(options)        # True: a private local instance this process must shut down

``local`` starts a private Ray instance on this machine for the gateway's life (small object store,
no dashboard, the workers' logs kept out of the gateway's stderr, Ray's machine-wide OOM killer off:
a replica's graphs are bounded by ``--ray-memory-mb``); ``auto`` joins the cluster that
``ray start --head`` made on this machine; anything else is a cluster address (its own settings).
"""

from __future__ import annotations

import logging
import os
import signal
from dataclasses import dataclass
from typing import Any

__all__ = ["LOCAL_OBJECT_STORE_BYTES", "NAMESPACE", "RayOptions", "connect", "ray_module", "require_ray"]

log = logging.getLogger("bridge.serving.ray")

LOCAL_OBJECT_STORE_BYTES = 256 << 20
"""The object store of a ``local`` instance: snapshots and batches pass through it (a 4096 x 4096
grid's record is 16 MiB); small, so tests and a laptop keep their memory."""

NAMESPACE = "astar_bridge"
"""The Ray namespace of the replicas (a shared cluster keeps them apart from other jobs)."""

INSTALL_HINT = (
    "serve --ray needs Ray: install the 'ray' extra (pip install '.[ray]', or tools/setup.sh --ray); "
    "the self-contained sidecar bundle has no Ray"
)


@dataclass(frozen=True, slots=True)
class RayOptions:
    """What ``serve --ray`` was asked for.

    Attributes:
        target: ``local``, ``auto`` or a cluster address.
        replicas: replica actors (each a process holding graphs and searching).
        memory_mb: what the graphs held by one replica may take before the least recently used go.
        threads: queries one replica runs at once (its threads).
    """

    target: str = "local"
    replicas: int = 2
    memory_mb: int = 1024
    threads: int = 2

    def __post_init__(self) -> None:
        if not self.target:
            raise ValueError("--ray needs 'local', 'auto' or a cluster address")
        for name in ("replicas", "memory_mb", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--ray-{name.replace('_', '-')} must be at least 1")


def ray_module() -> Any:
    """The ``ray`` module: imported here only, when first needed (``serve --ray``).

    Raises:
        RuntimeError: Ray is not installed (the message says how to install it).
    """
    try:
        import ray  # noqa: PLC0415 (the optional 'ray' extra, only with --ray)
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc
    return ray


def require_ray() -> None:
    """Raise ``RuntimeError`` with the install hint when Ray cannot be imported."""
    ray_module()


def connect(options: RayOptions) -> bool:
    """Start or join the cluster (on the main thread: Ray sets signal handlers, which this puts
    back as they were: the gateway's own stop on SIGTERM must stay). True when a private local
    instance was started (:func:`ray.shutdown` it when done)."""
    ray = ray_module()
    if ray.is_initialized():
        return False
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if options.target == "local":
            # Ray's own OOM killer watches the whole machine's memory and kills the newest tasks'
            # workers past 95 %: a game server's other processes would take replicas down with
            # them. A replica's graphs are bounded by --ray-memory-mb instead.
            os.environ.setdefault("RAY_memory_monitor_refresh_ms", "0")
            ray.init(
                num_cpus=max(os.cpu_count() or 1, options.replicas),
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                include_dashboard=False,
                log_to_driver=False,
                namespace=NAMESPACE,
                logging_level=logging.WARNING,
            )
        else:
            address = "auto" if options.target == "auto" else options.target
            ray.init(address=address, log_to_driver=False, namespace=NAMESPACE, logging_level=logging.WARNING)
    finally:
        for sig, handler in before.items():
            if handler is not None:
                signal.signal(sig, handler)
    log.info("ray: %s, %d replicas", options.target, options.replicas)
    return options.target == "local"
