"""Settings: validated once from a mapping, one clear line per problem, never the token in a message."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, heartbeat_file_from_env
from tests.conftest import FAKE_TOKEN


def env(**values: str) -> dict[str, str]:
    return {"DISCORD_TOKEN": FAKE_TOKEN, **values}


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings.from_env(env())
    assert settings.token == FAKE_TOKEN
    assert settings.database_path == tmp_path / "var" / "fray.db"
    assert settings.database_url == f"sqlite+aiosqlite:///{tmp_path.as_posix()}/var/fray.db"
    assert settings.heartbeat_file == tmp_path / "var" / "heartbeat"
    assert settings.log_level == "INFO"
    assert settings.dev_guild_id is None
    assert settings.shard_count is None and settings.shard_ids == ()
    assert not (tmp_path / "var").exists(), "reading settings must not create anything"


def test_repr_hides_the_token() -> None:
    assert FAKE_TOKEN not in repr(Settings.from_env(env()))


@pytest.mark.parametrize("token", [None, "", "   "])
def test_missing_token_says_what_how_and_where(token: str | None) -> None:
    values = {} if token is None else {"DISCORD_TOKEN": token}
    with pytest.raises(SettingsError) as err:
        Settings.from_env(values)
    line = str(err.value)
    assert "\n" not in line
    assert "DISCORD_TOKEN" in line
    assert "Developer Portal" in line and "Bot" in line and "Reset Token" in line
    assert ".env" in line and ".env.example" in line


@pytest.mark.parametrize(
    "token",
    [
        "abc",
        "1015466177695466690",  # an application ID
        "Bot " + FAKE_TOKEN,
        FAKE_TOKEN.replace(".", "_"),
        FAKE_TOKEN + ".extra",
        "MTAxNTQ2NjE3NzY5NTQ2NjY5MA.Gx!Yz.abcdefghijklmnopqrstuvwxyz012345",
    ],
)
def test_malformed_token_is_refused_without_echo(token: str) -> None:
    with pytest.raises(SettingsError) as err:
        Settings.from_env({"DISCORD_TOKEN": token})
    line = str(err.value)
    assert "\n" not in line
    assert "does not look like a bot token" in line
    assert "Reset Token" in line
    assert token not in line
    for part in token.replace("Bot ", "").split("."):
        if len(part) >= 6:
            assert part not in line


def test_token_whitespace_is_stripped() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": f"  {FAKE_TOKEN}\n"}).token == FAKE_TOKEN


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://user:pw@localhost/fray",
        "sqlite:///var/fray.db",  # the sync driver
        "sqlite+pysqlite:///var/fray.db",
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///:memory:",
        "not a url",
    ],
)
def test_bad_database_url(url: str) -> None:
    with pytest.raises(SettingsError) as err:
        Settings.from_env(env(DATABASE_URL=url))
    assert "DATABASE_URL" in str(err.value) and "\n" not in str(err.value)
    assert FAKE_TOKEN not in str(err.value)


def test_database_url_relative_and_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    relative = Settings.from_env(env(DATABASE_URL="sqlite+aiosqlite:///data/x.db"))
    assert relative.database_path == tmp_path / "data" / "x.db"
    assert relative.heartbeat_file == tmp_path / "data" / "heartbeat"
    absolute = Settings.from_env(env(DATABASE_URL="sqlite+aiosqlite:////srv/fray/fray.db"))
    assert absolute.database_path == Path("/srv/fray/fray.db")
    assert absolute.database_url == "sqlite+aiosqlite:////srv/fray/fray.db"
    assert heartbeat_file_from_env({"DATABASE_URL": "sqlite+aiosqlite:////srv/fray/fray.db"}) == Path(
        "/srv/fray/heartbeat"
    )


def test_heartbeat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings.from_env(env(HEARTBEAT_FILE="/tmp/hb")).heartbeat_file == Path("/tmp/hb")
    assert Settings.from_env(env(HEARTBEAT_FILE="run/hb")).heartbeat_file == tmp_path / "run" / "hb"


@pytest.mark.parametrize(
    ("raw", "level"), [("debug", "DEBUG"), ("INFO", "INFO"), ("warn", "WARNING"), ("", "INFO")]
)
def test_log_level(raw: str, level: str) -> None:
    assert Settings.from_env(env(LOG_LEVEL=raw)).log_level == level


@pytest.mark.parametrize("raw", ["LOUD", "5", "info,debug"])
def test_bad_log_level(raw: str) -> None:
    with pytest.raises(SettingsError, match="LOG_LEVEL must be one of DEBUG, INFO"):
        Settings.from_env(env(LOG_LEVEL=raw))


def test_dev_guild_id() -> None:
    assert Settings.from_env(env(DEV_GUILD_ID="123456789012345678")).dev_guild_id == 123456789012345678
    for bad in ("abc", "-5", "0", "1" * 25, "²", "①"):  # digit look-alikes int() cannot read
        with pytest.raises(SettingsError, match="DEV_GUILD_ID"):
            Settings.from_env(env(DEV_GUILD_ID=bad))


def test_shards() -> None:
    settings = Settings.from_env(env(SHARD_COUNT="2", SHARD_IDS="1"))
    assert (settings.shard_count, settings.shard_ids) == (2, (1,))
    several = Settings.from_env(env(SHARD_COUNT="4", SHARD_IDS="3, 1"))  # one process may run several
    assert (several.shard_count, several.shard_ids) == (4, (1, 3))
    alone = Settings.from_env(env(SHARD_COUNT="4"))  # every shard in this process
    assert (alone.shard_count, alone.shard_ids) == (4, ())
    for values in (
        {"SHARD_IDS": "0"},
        {"SHARD_COUNT": "0"},
        {"SHARD_COUNT": "2", "SHARD_IDS": "2"},
        {"SHARD_COUNT": "²"},
        {"SHARD_COUNT": "2", "SHARD_IDS": "①"},
    ):
        with pytest.raises(SettingsError, match="SHARD"):
            Settings.from_env(env(**values))


def test_a_postgresql_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = "postgresql+asyncpg://fray:s3cret-pw@db:5432/fray"
    settings = Settings.from_env(env(DATABASE_URL=url))
    assert settings.database_url == url and settings.postgres and settings.database_path is None
    assert settings.heartbeat_file == tmp_path / "var" / "heartbeat"
    assert "s3cret-pw" not in repr(settings) and "s3cret-pw" not in settings.database
    assert settings.database_password == "s3cret-pw"  # handed to the log redactor
    for bad in ("postgresql://fray@db/fray", "postgres://fray@db/fray", "postgresql+asyncpg:///fray"):
        with pytest.raises(SettingsError, match="DATABASE_URL") as err:
            Settings.from_env(env(DATABASE_URL=bad))
        assert "postgresql+asyncpg://" in str(err.value)


def test_settings_are_frozen() -> None:
    settings = Settings.from_env(env())
    with pytest.raises(AttributeError):
        settings.log_level = "DEBUG"  # type: ignore[misc]
