"""tests/bridge/methods/test_packed.py again, every test against a ``serve --ray local`` sidecar
(the ``sidecar`` fixture of tests/bridge/ray/conftest.py): the same answers as LocalServing's."""

from tests.bridge.methods.test_packed import *  # noqa: F403
