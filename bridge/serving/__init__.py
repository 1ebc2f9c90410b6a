"""The serving layer: what runs the graphs behind the method table (the seam it implements is
:class:`bridge.methods.interface.Serving`), and the TCP server, connections and sessions around it."""
