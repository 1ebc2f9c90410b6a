"""The serving layer: what runs the graphs behind the method table (see ``interface.Serving``)."""

from bridge.serving.interface import BatchOutcome, LoadRequest, Outcome, Progress, Serving
from bridge.serving.local import LocalServing

__all__ = ["BatchOutcome", "LoadRequest", "LocalServing", "Outcome", "Progress", "Serving"]
