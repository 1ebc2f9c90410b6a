"""The wire: msgpack framing, the protocol's constants and limits, its error codes and answer sizes
(what ``bridge/PROTOCOL.md`` describes); no sockets, no graphs."""
