"""The token never reaches a log line: message, arguments, tracebacks, other handlers."""

from __future__ import annotations

import io
import logging

import pytest

from bot.logs import REDACTED, RedactFilter, setup_logging
from tests.conftest import FAKE_TOKEN


@pytest.fixture
def restore_root():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        for f in list(handler.filters):
            if isinstance(f, RedactFilter):
                handler.removeFilter(f)
    root.setLevel(level)


def test_the_token_is_redacted_everywhere(restore_root: logging.Logger) -> None:
    stream = io.StringIO()
    setup_logging("DEBUG", secrets=[FAKE_TOKEN], stream=stream)
    log = logging.getLogger("discord.http.test")
    log.info("token in message %s", "x")
    log.info("login with %s", FAKE_TOKEN)
    log.warning(f"formatted {FAKE_TOKEN}")
    log.debug("%(token)s in a mapping", {"token": FAKE_TOKEN})
    try:
        raise RuntimeError(f"bad header Authorization: Bot {FAKE_TOKEN}")
    except RuntimeError:
        log.exception("failed")
    out = stream.getvalue()
    assert FAKE_TOKEN not in out
    assert out.count(REDACTED) == 4
    assert "Traceback" in out and "RuntimeError" in out
    assert "token in message x" in out


def test_level_comes_from_settings(restore_root: logging.Logger) -> None:
    stream = io.StringIO()
    setup_logging("WARNING", secrets=[FAKE_TOKEN], stream=stream)
    logging.getLogger("fray.test").info("quiet")
    logging.getLogger("fray.test").warning("loud")
    assert "quiet" not in stream.getvalue() and "loud" in stream.getvalue()


def test_the_filter_on_its_own() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a %s b", (FAKE_TOKEN,), None)
    assert RedactFilter([FAKE_TOKEN]).filter(record)
    assert record.getMessage() == f"a {REDACTED} b"
