"""The database is checked before the bot logs in: a file that cannot be this bot's database is
refused with one line and exit status 2, no request to Discord, and the file left byte for
byte as it was."""

from __future__ import annotations

import os
import random
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.store.failures import StoreError
from bot.store.store import Store

from ..process import bot_env, run_bot


def _ours(path: Path) -> None:
    """A database made by this bot (in a thread: some tests call this from a running loop)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def make() -> None:
        await (await Store.open(path)).close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, make()).result()


def _random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(8).randbytes(8192))


def _text(path: Path) -> None:
    path.write_text("games:\n  - asha 42\n  - bilal 17\n" * 50, encoding="utf-8")


def _header_then_garbage(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(9).randbytes(4096 - 16))


def _damaged(path: Path) -> None:
    # A real database of this bot whose later pages were overwritten: the header is fine.
    _ours(path)
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA journal_mode = DELETE")
        raw.execute("CREATE TABLE filler (x)")
        raw.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,)] * 200)
    data = bytearray(path.read_bytes())
    page = 4096
    data[page : page * 6] = random.Random(10).randbytes(page * 5)
    path.write_bytes(bytes(data))


def _read_only(path: Path) -> None:
    _ours(path)
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def _another_application(path: Path) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
        raw.execute("CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT)")
        raw.execute("INSERT INTO games (title) VALUES ('chess')")
    raw.close()


def _foreign_schema_version(path: Path) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE schema_version (version INTEGER)")
        raw.execute("INSERT INTO schema_version VALUES (3)")
        raw.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
    raw.close()


def _foreign_migration_names(path: Path) -> None:
    # The same columns as ours, but another application's migrations.
    with sqlite3.connect(path) as raw:
        raw.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL)"
        )
        raw.execute("INSERT INTO schema_version VALUES (1, '0001_users.sql', '2024-01-01')")
        raw.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
    raw.close()


def _newer(path: Path) -> None:
    _ours(path)
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO schema_version VALUES (999, '0999_future.sql', 'x')")
    raw.close()


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "random bytes": (_random_bytes, "not an SQLite database"),
    "a text file": (_text, "not an SQLite database"),
    "an SQLite header then garbage": (_header_then_garbage, "not an SQLite database|damaged"),
    "a damaged database": (_damaged, "damaged"),
    "a read-only file": (_read_only, "read-only"),
    "another application's database": (_another_application, "not this bot's database"),
    "a foreign schema_version table": (_foreign_schema_version, "schema_version table is not"),
    "foreign migration names": (_foreign_migration_names, "0001_users.sql"),
    "a newer schema": (_newer, "newer than this bot"),
}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _one_line(stderr: str, path: Path) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    assert str(path) in lines[0]
    return lines[0]


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_bad_database_file_is_refused_untouched_before_login(tmp_path: Path, kind: str) -> None:
    import re

    make, reason = BAD_FILES[kind]
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "kachuful.sqlite3"
    make(path)
    before = _files(folder)
    mode = path.stat().st_mode
    result, requests = run_bot(tmp_path, bot_env(path))
    assert result.returncode == 2, result.stderr
    line = _one_line(result.stderr, path)
    assert re.search(reason, line), line
    assert requests == []  # refused before any request to Discord
    assert _files(folder) == before  # byte for byte, and no -wal or -shm beside it
    assert path.stat().st_mode == mode


def test_a_directory_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "kachuful.sqlite3"
    path.mkdir()
    (path / "keep").write_text("x", encoding="utf-8")
    result, requests = run_bot(tmp_path, bot_env(path))
    assert result.returncode == 2
    assert "directory" in _one_line(result.stderr, path)
    assert requests == []
    assert [p.name for p in path.iterdir()] == ["keep"]


def test_a_path_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    path = blocker / "sub" / "k.sqlite3"
    result, requests = run_bot(tmp_path, bot_env(path))
    assert result.returncode == 2
    assert "not a folder" in _one_line(result.stderr, path)
    assert requests == []
    assert blocker.read_text(encoding="utf-8") == "x"


def test_an_unwritable_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    # Root writes into any folder whatever its mode bits, but not into an immutable one.
    immutable = os.geteuid() == 0
    if immutable:
        subprocess.run(["chattr", "+i", str(folder)], check=True)
    try:
        result, _ = run_bot(tmp_path, bot_env(folder / "k.sqlite3"))
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)
    assert result.returncode == 2
    assert "not writable" in result.stderr


async def test_refusals_in_process_leave_the_file_unchanged(tmp_path: Path) -> None:
    """The same checks guard Store.open itself (the path the tests' bots take)."""
    for index, (make, reason) in enumerate(BAD_FILES.values()):
        path = tmp_path / f"{index}.sqlite3"
        make(path)
        before = _files(tmp_path)
        with pytest.raises(StoreError, match=reason):
            await Store.open(path)
        assert _files(tmp_path) == before


async def test_our_database_and_an_empty_file_are_accepted(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    ours = tmp_path / "ours.sqlite3"
    _ours(ours)
    for path in (empty, ours):
        store = await Store.open(path)
        try:
            assert await store.schema_version() >= 1
        finally:
            await store.close()


# A process killed in the middle of the first write to a new file, before WAL mode: the
# file is left with a hot rollback journal (a cache small enough to spill pages into the file).
_KILLED_MID_WRITE = """
import os, signal, sqlite3, sys
raw = sqlite3.connect(sys.argv[1], isolation_level=None)
raw.execute("PRAGMA journal_mode = DELETE")
raw.execute("PRAGMA cache_size = 2")
raw.execute("BEGIN")
raw.execute("CREATE TABLE half_written (x TEXT)")
for _ in range(2000):
    raw.execute("INSERT INTO half_written VALUES (?)", ("x" * 200,))
os.kill(os.getpid(), signal.SIGKILL)
"""


async def test_a_file_killed_in_its_first_write_opens_as_it_was_before_it(tmp_path: Path) -> None:
    """The interrupted write is rolled back (as any SQLite client does when it opens the
    file), not refused as "a readonly database": the bot starts, and nothing of the half
    written transaction is left."""
    path = tmp_path / "k.sqlite3"
    subprocess.run([sys.executable, "-c", _KILLED_MID_WRITE, str(path)], timeout=60)
    assert Path(f"{path}-journal").exists() and path.stat().st_size > 0
    with pytest.raises(sqlite3.OperationalError, match="readonly"):  # what a reader meets
        sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True).execute(
            "SELECT * FROM sqlite_master"
        ).fetchall()
    store = await Store.open(path)
    try:
        assert await store.schema_version() >= 1
    finally:
        await store.close()
    assert not Path(f"{path}-journal").exists()
    with sqlite3.connect(path) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert "half_written" not in tables and "games" in tables


def test_a_path_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    # Even root cannot create folders in /proc.
    path = Path("/proc/kachuful-test/k.sqlite3")
    result, requests = run_bot(tmp_path, bot_env(path))
    assert result.returncode == 2
    _one_line(result.stderr, path)
    assert requests == []


async def test_a_database_left_by_a_crash_is_accepted_with_its_wal(tmp_path: Path) -> None:
    import shutil

    from bot.model import Seat, TableOptions

    live = tmp_path / "live"
    store = await Store.open(live / "k.sqlite3")
    try:
        for channel in range(5):
            await store.create_game(
                guild_id=1,
                channel_id=channel,
                host_id=1,
                options=TableOptions(),
                max_seats=3,
                seats=[Seat(user_id=1, name="Asha")],
            )
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        for name in ("k.sqlite3", "k.sqlite3-wal", "k.sqlite3-shm"):
            shutil.copy(live / name, crashed / name)  # the files as a killed process leaves them
    finally:
        await store.close()
    assert (crashed / "k.sqlite3-wal").stat().st_size > 0
    reopened = await Store.open(crashed / "k.sqlite3")
    try:
        assert len(await reopened.games_with_status("lobby")) == 5  # the WAL's commits are kept
    finally:
        await reopened.close()
