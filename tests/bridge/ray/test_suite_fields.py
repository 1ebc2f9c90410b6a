"""tests/bridge/methods/test_fields.py again, every test against a ``serve --ray local`` sidecar
(the ``sidecar`` fixture of tests/bridge/ray/conftest.py): the same answers as LocalServing's."""

from tests.bridge.methods.test_fields import *  # noqa: F403
