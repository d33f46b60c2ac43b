"""Settings: every problem is one line and exit status 2; the token never leaks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Settings, SettingsError, load_settings

REPO = Path(__file__).resolve().parents[2]
GOOD_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
ALL_VARS = (
    "DISCORD_TOKEN",
    "KACHUFUL_DB_PATH",
    "KACHUFUL_DEV_GUILD_ID",
    "KACHUFUL_SYNC_GLOBAL",
    "LOG_LEVEL",
    "KACHUFUL_TURN_SECONDS",
    "KACHUFUL_LOBBY_TIMEOUT_SECONDS",
    "KACHUFUL_BOT_DELAY_SECONDS",
    "KACHUFUL_IDLE_HOURS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ALL_VARS:
        monkeypatch.delenv(name, raising=False)


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    settings = load_settings(env_file=None)
    assert settings.discord_token.get_secret_value() == GOOD_TOKEN
    assert settings.db_path == Path("data/kachuful.sqlite3")
    assert settings.dev_guild_id is None
    assert settings.sync_global is False
    assert settings.log_level == "INFO"
    assert settings.turn_seconds == 90
    assert settings.lobby_timeout_seconds == 900
    assert settings.bot_delay_seconds == 1.5
    assert settings.idle_hours == 24
    assert GOOD_TOKEN not in repr(settings)


def test_every_variable_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "Bot " + GOOD_TOKEN)
    monkeypatch.setenv("KACHUFUL_DB_PATH", str(tmp_path / "x.sqlite3"))
    monkeypatch.setenv("KACHUFUL_DEV_GUILD_ID", "123456789012345678")
    monkeypatch.setenv("KACHUFUL_SYNC_GLOBAL", "true")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("KACHUFUL_TURN_SECONDS", "30")
    monkeypatch.setenv("KACHUFUL_LOBBY_TIMEOUT_SECONDS", "60")
    monkeypatch.setenv("KACHUFUL_BOT_DELAY_SECONDS", "0")
    monkeypatch.setenv("KACHUFUL_IDLE_HOURS", "72")
    settings = load_settings(env_file=None)
    assert settings.discord_token.get_secret_value() == GOOD_TOKEN  # "Bot " prefix dropped
    assert settings.db_path == tmp_path / "x.sqlite3"
    assert settings.dev_guild_id == 123456789012345678
    assert settings.sync_global is True
    assert settings.log_level == "DEBUG"
    assert (settings.turn_seconds, settings.lobby_timeout_seconds) == (30, 60)
    assert settings.bot_delay_seconds == 0
    assert settings.idle_hours == 72


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={GOOD_TOKEN}\nKACHUFUL_TURN_SECONDS=45\n", encoding="utf-8")
    settings = load_settings(env_file=env_file)
    assert settings.turn_seconds == 45


def test_missing_token_is_one_line_with_help() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=None)
    message = str(caught.value)
    assert "\n" not in message
    assert "DISCORD_TOKEN" in message
    assert "Developer Portal" in message and "Reset Token" in message and ".env" in message


def test_empty_token_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "")
    with pytest.raises(SettingsError, match="DISCORD_TOKEN is not set"):
        load_settings(env_file=None)


def test_malformed_token_is_refused_without_echoing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "not-a-token-but-maybe-a-password"
    monkeypatch.setenv("DISCORD_TOKEN", secret)
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=None)
    assert secret not in str(caught.value)
    assert "does not look like a bot token" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KACHUFUL_TURN_SECONDS", "soon"),
        ("KACHUFUL_TURN_SECONDS", "1"),
        ("KACHUFUL_BOT_DELAY_SECONDS", "-1"),
        ("KACHUFUL_SYNC_GLOBAL", "perhaps"),
        ("KACHUFUL_DEV_GUILD_ID", "my-server"),
        ("LOG_LEVEL", "chatty"),
        ("KACHUFUL_IDLE_HOURS", "a day"),
        ("KACHUFUL_IDLE_HOURS", "0"),
        ("KACHUFUL_IDLE_HOURS", "1000"),
    ],
)
def test_bad_setting_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings(env_file=None)
    assert str(caught.value).startswith(name + ":")
    assert "\n" not in str(caught.value)


def test_settings_model_constructs_by_field_name() -> None:
    settings = Settings(_env_file=None, discord_token=GOOD_TOKEN, turn_seconds=20)  # type: ignore[call-arg]
    assert settings.turn_seconds == 20


def _run_bot(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_main_without_token_exits_2_with_one_line(tmp_path: Path) -> None:
    result = _run_bot(tmp_path, {})
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "DISCORD_TOKEN" in lines[0] and "Reset Token" in lines[0]


def test_main_with_bad_setting_exits_2(tmp_path: Path) -> None:
    result = _run_bot(tmp_path, {"DISCORD_TOKEN": GOOD_TOKEN, "KACHUFUL_TURN_SECONDS": "x"})
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "KACHUFUL_TURN_SECONDS" in result.stderr
    assert GOOD_TOKEN not in result.stderr


def test_login_failure_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import discord

    import bot.__main__ as entry

    async def refused(settings: Settings) -> None:
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    monkeypatch.chdir(REPO / "tests")  # no .env here
    monkeypatch.setattr(entry, "_run", refused)
    monkeypatch.setattr(entry, "configure_logging", lambda settings: None)
    with pytest.raises(SystemExit) as exited:
        entry.main()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "login failed" in err and "Reset Token" in err
    assert GOOD_TOKEN not in err


async def test_unopenable_database_is_a_startup_error(tmp_path: Path) -> None:
    from bot.client import KachufulBot, StartupError

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    settings = load_settings(env_file=None, discord_token=GOOD_TOKEN, db_path=blocker / "k.db")
    bot = KachufulBot(settings)
    with pytest.raises(StartupError, match="cannot open the database"):
        await bot.setup_hook()


def test_logging_keeps_http_and_webhook_at_info_and_redacts_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import logging

    from bot.__main__ import RedactFilter, configure_logging

    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        configure_logging(load_settings(env_file=None, log_level="DEBUG"))
        assert logging.getLogger("discord.http").getEffectiveLevel() == logging.INFO
        assert logging.getLogger("discord.webhook.async_").getEffectiveLevel() == logging.INFO
        assert logging.getLogger("discord.gateway").getEffectiveLevel() == logging.INFO
        assert logging.getLogger("bot.tables").getEffectiveLevel() == logging.DEBUG
        # Each engine's library, as its driver names it.
        assert logging.getLogger("aiosqlite").getEffectiveLevel() == logging.INFO
        assert logging.getLogger("psycopg").getEffectiveLevel() == logging.INFO
        assert logging.getLogger("asyncio").getEffectiveLevel() == logging.INFO
        record = logging.LogRecord("x", logging.INFO, "f", 1, "token is %s", (GOOD_TOKEN,), None)
        RedactFilter(GOOD_TOKEN).filter(record)
        assert GOOD_TOKEN not in record.getMessage()
    finally:
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])
        for name in ("discord", "discord.http", "discord.webhook", "aiosqlite", "bot", "cogs"):
            logging.getLogger(name).setLevel(logging.NOTSET)
        logging.getLogger("psycopg").setLevel(logging.NOTSET)
        logging.getLogger("kachuful_core").setLevel(logging.NOTSET)


async def test_debug_logging_never_shows_a_stored_record(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """With LOG_LEVEL=DEBUG, saving a game must not write its record (every hand, the seed)
    to the log: aiosqlite logs each statement with its parameters at DEBUG."""
    import logging
    from datetime import UTC, datetime

    from bot.__main__ import configure_logging
    from bot.model import Seat, TableOptions
    from bot.store.store import Store

    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        configure_logging(load_settings(env_file=None, log_level="DEBUG"))
        store = await Store.open(tmp_path / "k.sqlite3", clock=lambda: datetime.now(UTC))
        try:
            game = await store.create_game(
                guild_id=1,
                channel_id=2,
                host_id=3,
                options=TableOptions(),
                max_seats=3,
                seats=[Seat(user_id=3, name="Asha")],
            )
            game.record = {"hands": "SECRET-HAND-AS-KS-QS"}
            game.seed = "SECRET-SEED"
            game.version = 1
            await store.save_game(game)
            logging.getLogger("bot.tables").debug("the bot's own debug line")
        finally:
            await store.close()
    finally:
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])
        for name in ("discord", "discord.http", "discord.webhook", "aiosqlite", "bot", "cogs"):
            logging.getLogger(name).setLevel(logging.NOTSET)
        logging.getLogger("kachuful_core").setLevel(logging.NOTSET)
    err = capsys.readouterr().err
    assert "the bot's own debug line" in err  # DEBUG is on for the bot ...
    assert "SECRET-HAND" not in err and "SECRET-SEED" not in err  # ... not for the database


def test_unreachable_discord_is_one_line_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import aiohttp

    import bot.__main__ as entry

    async def offline(settings: Settings) -> None:
        raise aiohttp.ClientConnectionError("no route")

    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    monkeypatch.chdir(REPO / "tests")
    monkeypatch.setattr(entry, "_run", offline)
    monkeypatch.setattr(entry, "configure_logging", lambda settings: None)
    with pytest.raises(SystemExit) as exited:
        entry.main()
    assert exited.value.code == 1
    assert (
        capsys.readouterr().err.strip()
        == "kachuful-bot: cannot reach Discord (ClientConnectionError)"
    )
