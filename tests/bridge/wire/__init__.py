"""Tests of bridge/wire/: framing, msgpack golden bytes, raw-socket framing against a sidecar."""
