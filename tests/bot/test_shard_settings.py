"""Shard settings: KACHUFUL_SHARD_COUNT and KACHUFUL_SHARD_IDS are read, and a configuration
that cannot work is refused at start with one line (exit status 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Settings, SettingsError, load_settings

from .process import bot_env, run_bot

GOOD_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
SHARD_VARS = ("KACHUFUL_SHARD_COUNT", "KACHUFUL_SHARD_IDS", "KACHUFUL_DATABASE_URL")
POSTGRES = "postgresql://kachuful:pw-7Hq2@db.example/kachuful"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SHARD_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)


def settings_with(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(env_file=None)


def refusal(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    with pytest.raises(SettingsError) as caught:
        settings_with(monkeypatch, **env)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_without_shard_settings_the_bot_is_unsharded(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(env_file=None)
    assert settings.shard_count is None and settings.shard_ids is None


def test_shard_ids_are_read_from_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(
        monkeypatch,
        KACHUFUL_SHARD_COUNT="4",
        KACHUFUL_SHARD_IDS=" 2, 3",
        KACHUFUL_DATABASE_URL=POSTGRES,
    )
    assert (settings.shard_count, settings.shard_ids) == (4, (2, 3))
    assert "pw-7Hq2" not in repr(settings)


def test_every_shard_in_one_process_is_fine_on_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(monkeypatch, KACHUFUL_SHARD_COUNT="2", KACHUFUL_SHARD_IDS="1,0")
    assert settings.shard_ids == (1, 0)
    monkeypatch.delenv("KACHUFUL_SHARD_IDS")
    settings = settings_with(monkeypatch, KACHUFUL_SHARD_COUNT="3")
    assert (settings.shard_count, settings.shard_ids) == (3, None)


def test_ids_without_a_count_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_IDS="0,1")
    assert message.startswith("KACHUFUL_SHARD_IDS needs KACHUFUL_SHARD_COUNT")


def test_an_id_outside_the_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="0,4")
    assert message == "KACHUFUL_SHARD_IDS: shard 4 is outside 0..3 (KACHUFUL_SHARD_COUNT=4)"


def test_a_repeated_id_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="1,1")
    assert message == "KACHUFUL_SHARD_IDS: shard 1 is given twice"


@pytest.mark.parametrize("value", ["0,a", "0;1", "-1", "0,,1"])
def test_ids_that_are_not_numbers_are_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS=value)
    assert message == "KACHUFUL_SHARD_IDS: expected shard numbers separated by commas, e.g. 0,1"


def test_a_count_below_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_COUNT="0")
    assert message.startswith("KACHUFUL_SHARD_COUNT:")


def test_some_shards_on_the_sqlite_file_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    message = refusal(monkeypatch, KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="0,1")
    assert message.startswith("KACHUFUL_SHARD_IDS=0,1 holds only some of the 4 shards")
    assert "KACHUFUL_DATABASE_URL=postgresql://" in message


def test_some_shards_on_postgresql_are_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(
        monkeypatch,
        KACHUFUL_SHARD_COUNT="4",
        KACHUFUL_SHARD_IDS="0,1",
        KACHUFUL_DATABASE_URL=POSTGRES,
    )
    assert settings.shard_ids == (0, 1)


def test_the_process_refuses_with_one_line_and_status_2(tmp_path: Path) -> None:
    env = bot_env(tmp_path / "k.sqlite3", KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="2,3")
    result, requests = run_bot(tmp_path, env)
    assert result.returncode == 2, result.stderr
    assert requests == []  # refused before logging in
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("kachuful-bot: KACHUFUL_SHARD_IDS=2,3 holds only some of the 4")
    assert not (tmp_path / "k.sqlite3").exists()  # nothing written
