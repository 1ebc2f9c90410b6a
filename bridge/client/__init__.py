"""The Python client: a synchronous msgpack-RPC :class:`Client` and :func:`start_sidecar`, which runs
``python -m bridge serve`` as a subprocess (tests, benchmarks, Python programs).

    from bridge.client import Client, start_sidecar
    with start_sidecar() as sidecar, sidecar.connect() as client:
        client.load_grid("g", [[1, 1]])
"""

from __future__ import annotations

from bridge.client.sidecar import Sidecar, SidecarError, start_sidecar
from bridge.client.sync_client import BridgeError, Client, ClosedError, decode_points

__all__ = [
    "BridgeError",
    "Client",
    "ClosedError",
    "Sidecar",
    "SidecarError",
    "decode_points",
    "start_sidecar",
]
