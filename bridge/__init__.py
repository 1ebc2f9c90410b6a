"""bridge: the msgpack-RPC sidecar serving python_core to the Godot addon.

    from bridge import Client, start_sidecar
    with start_sidecar() as sidecar, sidecar.connect() as client:   # connect() says hello
        client.load_grid("g", [[1, 1, 1]])
        assert client.find("g", (0, 0), (2, 0))["status"] == "found"

The wire is described in ``bridge/PROTOCOL.md``; ``python -m bridge serve`` runs the server.
"""

from __future__ import annotations

from bridge.client import Client, ClosedError, decode_points
from bridge.errors import BridgeError
from bridge.protocol import PROTOCOL_VERSION
from bridge.sidecar import Sidecar, SidecarError, start_sidecar

__all__ = [
    "PROTOCOL_VERSION",
    "BridgeError",
    "Client",
    "ClosedError",
    "Sidecar",
    "SidecarError",
    "decode_points",
    "start_sidecar",
]
