"""The protocol's methods: requests decoded and checked, one module per method family, the method
table (:mod:`bridge.methods.handlers`) and the seam to the serving layer that runs them
(:mod:`bridge.methods.interface`)."""
