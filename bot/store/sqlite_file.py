"""An SQLite file looked at before the store opens it: read-only checks that it is this bot's
database (or can become one), so that another application's file or a damaged one is refused
untouched (part of the SQLite driver, :mod:`.sqlite`)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path

from . import migrate as _migrate
from .failures import StoreError

# A locked database must fail well inside Discord's 3 s deadline for answering a click.
BUSY_TIMEOUT_SECONDS = 1.5

SQLITE_HEADER = b"SQLite format 3\x00"
_OUR_SCHEMA_VERSION_COLUMNS = ("version", "name", "applied_at")


def _refuse(path: Path, reason: str) -> StoreError:
    # One line for the operator, whatever SQLite's message holds (quick_check's are several).
    return StoreError(f"cannot open the database {str(path)!r}: {' '.join(reason.split())}")


def inspect_database(path: Path) -> None:
    """Check, without writing anything, that ``path`` is this bot's database (or can become
    one); raise :class:`StoreError` with the reason otherwise.

    Opening a file read-write first would already change it (WAL mode, a -wal file, the
    schema_version table of migration), so another application's file or a damaged one is
    looked at read-only and refused untouched. The one write: a hot rollback journal (a
    process killed in the middle of a write) is rolled back first, as SQLite does for any
    client that opens the file, since the file cannot be read before.
    """
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        _check_new_location(path)
        return
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "it is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "it is not a regular file")
    # Root may write a file whatever its mode; a file nobody may write is still meant to be
    # read-only, and refusing it beats a half-working bot that fails at its first move.
    if not info.st_mode & 0o222 or not os.access(path, os.R_OK | os.W_OK):
        raise _refuse(path, "the file is read-only (the bot must write to it)")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise _refuse(path, f"its folder {str(path.parent)!r} is not writable (SQLite needs it)")
    if Path(f"{path}-journal").exists():
        _roll_back_hot_journal(path)
        info = path.stat()
    if info.st_size == 0:
        return  # an empty file is an empty SQLite database
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    if header != SQLITE_HEADER:
        raise _refuse(path, "it is not an SQLite database")
    _check_contents(path)


def _check_new_location(path: Path) -> None:
    folder = path.parent
    while not folder.exists():
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        raise _refuse(path, f"{str(folder)!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _refuse(path, f"the folder {str(folder)!r} is not writable")


def _roll_back_hot_journal(path: Path) -> None:
    """A process killed in the middle of a write in rollback-journal mode (a new file, in the
    moment before it is switched to WAL) leaves a hot ``-journal``: the file cannot even be
    read until it is rolled back, which SQLite does at the first read of a connection that may
    write. That only puts back the last committed state, as any SQLite client opening the file
    would; nothing else is written."""
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS)) as raw:
            raw.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        raise _refuse(path, f"its interrupted write could not be rolled back ({error})") from None


def _check_contents(path: Path) -> None:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal")):
        # Nothing is being written to it (no other process has it open for writing, no crash
        # left a journal behind), so the file alone is the database: "immutable" reads it
        # without creating the -wal and -shm files a WAL database needs even to be read.
        uri += "&immutable=1"
    try:
        raw = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error as error:
        raise _refuse(path, str(error)) from None
    try:
        check = raw.execute("PRAGMA quick_check(1)").fetchone()
        if not check or check[0] != "ok":
            raise _refuse(path, f"the database is damaged ({check[0] if check else 'no answer'})")
        tables = {
            row[0]
            for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(row[0]).startswith("sqlite_")
        }
        if not tables:
            return
        if "schema_version" not in tables:
            raise _refuse(path, "it is not this bot's database " + _foreign(tables))
        columns = tuple(row[1] for row in raw.execute("PRAGMA table_info(schema_version)"))
        if columns != _OUR_SCHEMA_VERSION_COLUMNS:
            raise _refuse(path, "its schema_version table is not this bot's " + _foreign(tables))
        ours = _migrate.names()
        applied = raw.execute(
            "SELECT version, name FROM schema_version ORDER BY version"
        ).fetchall()
        for version, name in applied:
            if version in ours and ours[version] != name:
                raise _refuse(
                    path,
                    f"its schema_version table names {name!r} for version {version}, "
                    f"not this bot's {ours[version]!r} " + _foreign(tables),
                )
        if not applied and tables != {"schema_version"}:
            raise _refuse(path, "it is not this bot's database " + _foreign(tables))
        newest = max((version for version, _ in applied), default=0)
        if newest > _migrate.newest():
            raise _refuse(
                path,
                f"the database is at schema version {newest}, newer than this bot "
                f"({_migrate.newest()}); upgrade the bot",
            )
        if applied and not {"games", "results"} <= tables:
            raise _refuse(path, "tables of this bot are missing " + _foreign(tables))
    except sqlite3.Error as error:
        if isinstance(error, sqlite3.DatabaseError) and "not a database" in str(error):
            raise _refuse(path, "it is not an SQLite database") from None
        if isinstance(error, sqlite3.DatabaseError) and "malformed" in str(error):
            raise _refuse(path, "the database is damaged (malformed)") from None
        raise _refuse(path, str(error)) from None
    finally:
        raw.close()


def _foreign(tables: set[str]) -> str:
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    return f"(tables: {shown}); it was left unchanged"
