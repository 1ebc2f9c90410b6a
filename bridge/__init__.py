"""bridge: the msgpack-RPC sidecar serving python_core to the Godot addon."""
