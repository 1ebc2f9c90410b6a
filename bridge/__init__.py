"""bridge: the msgpack-RPC sidecar serving python_core to the Godot addon.

    from bridge import Client, start_sidecar
    with start_sidecar() as sidecar, sidecar.connect() as client:   # connect() says hello
        client.load_grid("g", [[1, 1, 1]])
        assert client.find("g", (0, 0), (2, 0))["status"] == "found"

The wire is described in ``bridge/PROTOCOL.md``; ``python -m bridge serve`` runs the server. The
package's rooms: ``wire/`` (framing, constants and limits, error codes), ``methods/`` (the protocol's
methods), ``serving/`` (what runs them: graphs, threads, the TCP server), ``client/`` (the Python
client), ``cli/`` (``serve``, ``warm-up``, ``build-hierarchy``).
"""

from __future__ import annotations

from bridge.client.sidecar import Sidecar, SidecarError, start_sidecar
from bridge.client.sync_client import Client, ClosedError, decode_points
from bridge.wire.errors import BridgeError
from bridge.wire.protocol import PROTOCOL_VERSION

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
