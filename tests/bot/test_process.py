"""The process entry point, run as ``python -m bot`` against a local stand-in for Discord's REST
API: login failures are one line, warnings name unknown settings, DEBUG shows the bot's own
lines, and SIGTERM / SIGINT stop the bot cleanly with its database checkpointed."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from .process import FAKE_TOKEN, bot_env, fake_discord, launch, run_bot

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")

USER = {
    "id": "1012345678901234567",
    "username": "kachuful",
    "discriminator": "0",
    "global_name": None,
    "avatar": None,
    "bot": True,
}
APPLICATION = {
    "id": "1012345678901234567",
    "name": "Kachuful",
    "description": "",
    "icon": None,
    "bot_public": True,
    "bot_require_code_grant": False,
    "owner": USER,
    "verify_key": "0" * 64,
    "flags": 0,
}


def status(code: int) -> Any:
    def respond(path: str) -> tuple[int, Any]:
        return code, {"message": "refused by the test", "code": 0}

    return respond


def logged_in_then_gateway_hangs(path: str) -> tuple[int, Any] | None:
    if path.endswith("/users/@me"):
        return 200, USER
    if path.endswith("/oauth2/applications/@me"):
        return 200, APPLICATION
    if path.endswith("/commands"):
        return 200, []  # the command sync reads the application's commands first
    return None  # the gateway: never answered, the bot waits to connect


def gateway_refuses(path: str) -> tuple[int, Any]:
    if path.endswith("/users/@me"):
        return 200, USER
    if path.endswith("/oauth2/applications/@me"):
        return 200, APPLICATION
    return 503, {"message": "no gateway today"}


def test_an_unreachable_gateway_is_one_line_exit_1(tmp_path: Path) -> None:
    result, requests = run_bot(tmp_path, bot_env(tmp_path / "k.sqlite3"), gateway_refuses)
    assert any("/gateway/" in path for path in requests)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert _lines(result.stderr)[-1] == "kachuful-bot: cannot reach Discord's gateway"
    reconnect = [line for line in _lines(result.stderr) if "Attempting a reconnect" in line]
    assert len(reconnect) == 1 and "WSServerHandshakeError" in reconnect[0]


def _lines(stderr: str) -> list[str]:
    return [line for line in stderr.strip().splitlines() if line]


def test_an_http_error_at_login_is_one_line_exit_1(tmp_path: Path) -> None:
    result, requests = run_bot(tmp_path, bot_env(tmp_path / "k.sqlite3"), status(403))
    assert requests and requests[0].endswith("/users/@me")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in _lines(result.stderr) if line.startswith("kachuful-bot:")]
    assert errors == [
        "kachuful-bot: Discord answered HTTP 403 while the bot was logging in or starting; "
        "try again later"
    ]
    # Nothing else on stderr at INFO: in particular no voice-library warnings (this bot has
    # no voice), and the database was opened before the login.
    assert len(_lines(result.stderr)) == 1 + result.stderr.count(" INFO "), result.stderr
    assert "PyNaCl" not in result.stderr and "davey" not in result.stderr
    assert (tmp_path / "k.sqlite3").exists()


def test_a_refused_token_is_one_line_exit_2(tmp_path: Path) -> None:
    result, _ = run_bot(tmp_path, bot_env(tmp_path / "k.sqlite3"), status(401))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "login failed" in _lines(result.stderr)[-1]


def test_unreachable_discord_is_one_line_exit_1(tmp_path: Path) -> None:
    with fake_discord(status(500)) as fake:
        pass
    # The server is gone: nothing listens on its port any more.
    process = launch(tmp_path, fake, bot_env(tmp_path / "k.sqlite3"))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "Traceback" not in err
    assert _lines(err)[-1].startswith("kachuful-bot: cannot reach Discord (")


def test_unknown_settings_are_named_with_a_suggestion(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        f"DISCORD_TOKEN={FAKE_TOKEN}\nKACHUFUL_TURN_SECOND=20\n", encoding="utf-8"
    )
    env = bot_env(tmp_path / "k.sqlite3", KACHUFUL_BOT_DELAY="3", KACHUFUL_ZZZ="1")
    result, _ = run_bot(tmp_path, env, status(403))
    warnings = [line for line in _lines(result.stderr) if " WARNING " in line]
    assert any(
        "unknown setting KACHUFUL_BOT_DELAY (did you mean KACHUFUL_BOT_DELAY_SECONDS?)" in w
        for w in warnings
    ), result.stderr
    assert any(
        "unknown setting KACHUFUL_TURN_SECOND (did you mean KACHUFUL_TURN_SECONDS?)" in w
        for w in warnings
    ), result.stderr
    assert any("unknown setting KACHUFUL_ZZZ:" in w for w in warnings), result.stderr
    assert len(warnings) == 3
    assert FAKE_TOKEN not in result.stderr


def test_log_level_debug_shows_the_bots_own_debug_lines(tmp_path: Path) -> None:
    result, _ = run_bot(tmp_path, bot_env(tmp_path / "k.sqlite3", LOG_LEVEL="DEBUG"), status(403))
    debug = [line for line in _lines(result.stderr) if " DEBUG " in line]
    assert any(" bot." in line for line in debug), result.stderr
    # Libraries stay at INFO (their DEBUG lines carry request bodies and SQL parameters).
    assert not any(" discord." in line or " aiosqlite" in line for line in debug)
    assert FAKE_TOKEN not in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_shuts_the_bot_down_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    db = tmp_path / "data" / "k.sqlite3"
    with fake_discord(logged_in_then_gateway_hangs) as fake:
        process = launch(tmp_path, fake, bot_env(db, LOG_LEVEL="DEBUG"))
        try:
            # Logged in, set up (the database open), now connecting to the gateway.
            assert fake.wait_for("/gateway/?v=")
            sent = time.monotonic()
            process.send_signal(sig)
            _, err = process.communicate(timeout=10)
            took = time.monotonic() - sent
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, err
    assert took < 10
    assert "Traceback" not in err
    assert f"{sig.name} received: shutting down" in err
    assert "bot.client: database closed" in err  # the bot's own close() ran to its end
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # checkpointed into the database
    with sqlite3.connect(f"{db.as_uri()}?mode=ro&immutable=1", uri=True) as raw:
        assert raw.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] >= 1
