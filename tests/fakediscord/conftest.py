"""Make the ``fake_discord`` fixture available to the tests in this package."""

from .pytest_plugin import fake_discord  # noqa: F401
