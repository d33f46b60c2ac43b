"""``python -m bot`` on PostgreSQL (KACHUFUL_DATABASE_URL), as an operator starts it: the
database is migrated before the login, its password is never in the output (even at DEBUG),
and a server that cannot be reached or a malformed URL is one line and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pg import execute_raw

from .process import bot_env, run_bot
from .test_process import status

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")


def with_password(url: str) -> str:
    # The throw-away cluster trusts local connections: any password is accepted.
    return url.replace("postgresql://kachuful@", "postgresql://kachuful:s3cret@", 1)


def last_line(stderr: str) -> str:
    return [line for line in stderr.splitlines() if line.strip()][-1]


def test_the_bot_migrates_its_postgresql_database_and_never_shows_the_password(
    tmp_path: Path, pg_url: str
) -> None:
    url = with_password(pg_url)
    env = bot_env(tmp_path / "unused.sqlite3", KACHUFUL_DATABASE_URL=url, LOG_LEVEL="DEBUG")
    result, _ = run_bot(tmp_path, env, status(401))  # Discord refuses the token
    assert result.returncode == 2
    assert "login failed" in last_line(result.stderr)
    assert "s3cret" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert execute_raw(pg_url, "SELECT COUNT(*) FROM schema_version") != [(0,)]
    assert not (tmp_path / "unused.sqlite3").exists()  # SQLite was not used


def test_a_postgresql_server_that_cannot_be_reached_is_one_line(tmp_path: Path) -> None:
    url = f"postgresql://kachuful:s3cret@/kachuful?host={tmp_path}"  # no server listens there
    env = bot_env(tmp_path / "k.sqlite3", KACHUFUL_DATABASE_URL=url)
    result, paths = run_bot(tmp_path, env, status(401))
    assert result.returncode == 2 and paths == []  # before any request to Discord
    line = last_line(result.stderr)
    assert line.startswith("kachuful-bot: cannot connect to postgresql://kachuful:***@/kachuful")
    assert "s3cret" not in result.stderr and "Traceback" not in result.stderr


def test_a_malformed_database_url_is_one_line(tmp_path: Path) -> None:
    env = bot_env(
        tmp_path / "k.sqlite3", KACHUFUL_DATABASE_URL="postgresql://kachuful:s3cret@db:port/k"
    )
    result, paths = run_bot(tmp_path, env, status(401))
    assert result.returncode == 2 and paths == []
    assert last_line(result.stderr).startswith("kachuful-bot: KACHUFUL_DATABASE_URL: ")
    assert "s3cret" not in result.stderr and "Traceback" not in result.stderr
