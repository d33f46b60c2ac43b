"""Operations: the token's quotes, unknown settings, the voice warnings, the health check."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import simcord

from bot import health
from bot.client import KachufulBot
from bot.config import Settings, load_settings, unknown_setting_warnings

from .process import FAKE_TOKEN, REPO


@pytest.mark.parametrize(
    "written", [f'"{FAKE_TOKEN}"', f"'{FAKE_TOKEN}'", f'" {FAKE_TOKEN} "', f'"Bot {FAKE_TOKEN}"']
)
def test_quotes_around_the_token_are_dropped(monkeypatch: pytest.MonkeyPatch, written: str) -> None:
    # docker run --env-file passes DISCORD_TOKEN="abc" with its quotes.
    monkeypatch.setenv("DISCORD_TOKEN", written)
    assert load_settings(env_file=None).discord_token.get_secret_value() == FAKE_TOKEN


def test_a_token_with_one_stray_quote_is_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import SettingsError

    monkeypatch.setenv("DISCORD_TOKEN", f'"{FAKE_TOKEN}')
    with pytest.raises(SettingsError, match="does not look like a bot token"):
        load_settings(env_file=None)


def test_unknown_settings_are_named(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("KACHUFUL_IDLE_HOUR=3\nKACHUFUL_TURN_SECONDS=30\nOTHER=1\n", encoding="utf-8")
    environ = {
        "KACHUFUL_BOT_DELAY": "1",
        "KACHUFUL_DB_PATH": "x",
        "kachuful_sync_global": "true",  # a known setting in another case
        "PATH": "/bin",
    }
    assert unknown_setting_warnings(dotenv, environ) == [
        "unknown setting KACHUFUL_BOT_DELAY (did you mean KACHUFUL_BOT_DELAY_SECONDS?): "
        "it is ignored",
        "unknown setting KACHUFUL_IDLE_HOUR (did you mean KACHUFUL_IDLE_HOURS?): it is ignored",
    ]
    assert unknown_setting_warnings(None, {"KACHUFUL_DB_PATH": "x"}) == []


def test_no_voice_library_warnings(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, settings: Settings
) -> None:
    import discord

    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True)
    with caplog.at_level(logging.WARNING, logger="discord.client"):
        bot = KachufulBot(settings)
    assert "voice" not in caplog.text
    assert not bot.is_connected()  # never started: no heartbeat


def test_health_reads_the_heartbeat(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    beat = health.heartbeat_path(db)
    assert beat.parent == tmp_path
    healthy, line = health.check(db)
    assert not healthy and "no heartbeat" in line
    beat.touch()
    assert health.check(db)[0]
    stale = time.time() - health.STALE_AFTER_SECONDS - 5
    os.utime(beat, (stale, stale))
    healthy, line = health.check(db)
    assert not healthy and "ago" in line


def test_python_m_bot_health_exit_status(tmp_path: Path) -> None:
    db = tmp_path / "data" / "k.sqlite3"
    db.parent.mkdir()

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot.health"],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "KACHUFUL_DB_PATH": str(db)},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    assert run().returncode == 1
    health.heartbeat_path(db).touch()
    result = run()
    assert result.returncode == 0, result.stderr
    assert "healthy" in result.stdout


async def test_the_bot_beats_only_while_connected_and_writable(
    env: simcord.Env, tmp_path: Path
) -> None:
    import sqlite3

    bot = env.bot
    path = tmp_path / "beat"
    assert bot.is_connected()
    assert await bot.beat(path) and path.exists()
    path.unlink()
    other = sqlite3.connect(bot.settings.db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # the database is stuck: no heartbeat
        assert not await bot.beat(path)
        assert not path.exists()
    finally:
        other.close()
    assert await bot.beat(path)


async def test_a_failing_heartbeat_is_logged_once_until_it_passes_again(
    env: simcord.Env, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlite3

    bot = env.bot
    path = tmp_path / "beat"
    other = sqlite3.connect(bot.settings.db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        for _ in range(3):  # three beats, 30 s apart in the real bot
            assert not await bot.beat(path)
    finally:
        other.close()
    failed = [r.getMessage() for r in caplog.records if "health check" in r.getMessage()]
    assert len(failed) == 1 and failed[0].startswith("health check failed")
    assert await bot.beat(path)
    assert "health check passes again" in caplog.text
    assert not [r for r in caplog.records if r.exc_info]
