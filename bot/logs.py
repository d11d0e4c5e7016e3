"""Logging: standard ``logging`` to stderr, one format, level from settings, and the token never printed."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

REDACTED = "[redacted]"
FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"


class RedactFilter(logging.Filter):
    """Replaces each secret (the bot token) in a record's message, arguments and traceback text.

    Attach it to handlers (a logger's own filters do not see records propagated from child loggers).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = tuple(s for s in secrets if s)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep the raw parts, redacted
            message = f"{record.msg} {record.args}"
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def setup_logging(level: str | int = "INFO", *, secrets: Iterable[str] = (), stream=None) -> logging.Handler:
    """Configure the root logger once: a stderr handler with the redaction filter. Returns the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    redactor = RedactFilter(secrets)
    handler.addFilter(redactor)
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_fray", False):
            root.removeHandler(old)
    handler._fray = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    for other in root.handlers:  # handlers someone else installed get the filter too
        if redactor not in other.filters:
            other.addFilter(redactor)
    root.setLevel(level)
    quiet = logging.WARNING if root.level > logging.DEBUG else logging.DEBUG
    for noisy in ("aiosqlite", "alembic"):  # bot.db logs each migration applied
        logging.getLogger(noisy).setLevel(quiet)
    return handler
