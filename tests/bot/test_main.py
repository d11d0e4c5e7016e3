"""``python -m bot`` as an operator meets it: a clean environment in an empty folder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.__main__ import health, main
from tests.conftest import FAKE_TOKEN


def run_bot(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), **env}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_one_clean_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_no_token_exits_2_with_one_line(tmp_path: Path) -> None:
    line = assert_one_clean_line(run_bot(tmp_path))
    assert "DISCORD_TOKEN" in line and "Reset Token" in line and ".env.example" in line
    assert "fray play" in line
    assert not (tmp_path / "var").exists()


def test_malformed_token_exits_2_without_echo(tmp_path: Path) -> None:
    proc = run_bot(tmp_path, DISCORD_TOKEN="not-a-token-secretvalue")
    line = assert_one_clean_line(proc)
    assert "secretvalue" not in proc.stderr + proc.stdout
    assert "does not look like a bot token" in line


def test_bad_database_url_exits_2_with_one_line(tmp_path: Path) -> None:
    proc = run_bot(
        tmp_path, "migrate", DISCORD_TOKEN=FAKE_TOKEN, DATABASE_URL="postgresql://u:p@localhost/fray"
    )
    line = assert_one_clean_line(proc)
    assert "DATABASE_URL" in line
    assert FAKE_TOKEN not in proc.stderr


def test_token_from_dotenv_and_migrate_creates_var(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={FAKE_TOKEN}\nLOG_LEVEL=warning\n", encoding="utf-8")
    proc = run_bot(tmp_path, "migrate")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "var" / "fray.db").is_file()
    assert FAKE_TOKEN not in proc.stderr


def test_real_environment_beats_dotenv(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={FAKE_TOKEN}\n", encoding="utf-8")
    proc = run_bot(tmp_path, "migrate", LOG_LEVEL="LOUD")
    assert "LOG_LEVEL" in assert_one_clean_line(proc)


def test_health(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    beat = tmp_path / "var" / "heartbeat"
    assert health(beat) == 1  # no heartbeat yet
    beat.parent.mkdir()
    beat.write_text("now")
    assert health(beat) == 0
    assert health(beat, now=time.time() + 91) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HEARTBEAT_FILE", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["health"]) == 0  # needs no token
    os.utime(beat, (time.time() - 120, time.time() - 120))
    assert main(["health"]) == 1


def test_health_subprocess(tmp_path: Path) -> None:
    assert run_bot(tmp_path, "health").returncode == 1
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "heartbeat").write_text("now")
    assert run_bot(tmp_path, "health").returncode == 0
