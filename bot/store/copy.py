"""``kachuful-bot migrate-to postgresql://...``: copy a stopped bot's SQLite file into an empty
PostgreSQL database.

The target is refused (one line, nothing written) unless it has no table at all. It is then
given the schema by the bot's own migrations (the same Alembic revisions as SQLite's), and
every table of the SQLite file is copied in one transaction, with PostgreSQL's COPY (through
psycopg itself: the one step that is PostgreSQL's alone). Before that transaction
commits, each table's row count and digest are computed on both sides and compared: a copy
that differs is rolled back. Identity sequences are moved past the copied ids, so the next
game gets a fresh id.

The digest of a table is the sum (modulo 2**256) of the SHA-256 of each of its rows, each row
written the same way on both sides (integers as digits, floats in their shortest exact form,
NULL as a mark of its own): independent of row order and collation, and read as a stream.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from .failures import StoreError
from .postgres import CONNECT_TIMEOUT_SECONDS, check_url, redacted

_DIGEST_MODULUS = 2**256
# Parent tables first: the foreign keys of results, posts and hand_messages name games.
_FIRST = ("schema_version", "alembic_version", "games")
# What the migrations of the target recorded, replaced by the source's rows.
_RECORDS = ("schema_version", "alembic_version")
_BATCH = 1000


@dataclass(frozen=True)
class TableCopy:
    name: str
    rows: int
    digest: str  # hex, the same on both sides


def row_digest(row: Sequence[Any]) -> int:
    parts = []
    for value in row:
        if value is None:
            parts.append("\x00N")
        elif isinstance(value, bool):
            parts.append(f"i{int(value)}")
        elif isinstance(value, int):
            parts.append(f"i{value}")
        elif isinstance(value, float):
            parts.append(f"f{value!r}")
        elif isinstance(value, bytes):
            parts.append("b" + value.hex())
        else:
            parts.append(f"s{value}")
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest(), "big")


def _fold(rows: Iterable[Sequence[Any]]) -> tuple[int, int]:
    count = total = 0
    for row in rows:
        count += 1
        total = (total + row_digest(row)) % _DIGEST_MODULUS
    return count, total


def _source_tables(raw: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    names = [
        str(row[0])
        for row in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    names.sort(
        key=lambda name: (name not in _FIRST, _FIRST.index(name) if name in _FIRST else 0, name)
    )
    return [
        (name, [str(row[1]) for row in raw.execute(f'PRAGMA table_info("{name}")')])
        for name in names
    ]


def _open_source(path: Path) -> sqlite3.Connection:
    from .migrate import newest as newest_version
    from .sqlite_file import inspect_database

    if not path.is_file():
        raise StoreError(f"no SQLite database at {str(path)!r}")
    inspect_database(path)  # read-only: this bot's database, not damaged, not newer
    heartbeat = path.parent / "kachuful.heartbeat"
    with contextlib.suppress(OSError):
        age = time.time() - heartbeat.stat().st_mtime
        if age < 90:
            raise StoreError(
                f"a bot is running on {str(path)!r} (heartbeat {age:.0f} s ago): stop it first"
            )
    raw = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    newest = newest_version()
    (version,) = raw.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
    if version != newest:
        raw.close()
        raise StoreError(
            f"the SQLite database is at schema version {version}, this bot's is {newest}: "
            "start this bot once on it (it upgrades the file), stop it, then copy"
        )
    return raw


Connection = psycopg.AsyncConnection[Any]


async def _connect(url: str) -> Connection:
    try:
        return await psycopg.AsyncConnection.connect(
            url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            options="-c application_name=kachuful-migrate-to",
        )
    except psycopg.Error as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise StoreError(f"cannot connect to {redacted(url)}: {reason}") from None


async def _target_tables(conn: Connection) -> list[str]:
    cursor = await conn.execute(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() ORDER BY table_name"
    )
    return [str(row[0]) for row in await cursor.fetchall()]


async def _refuse_non_empty(url: str) -> None:
    conn = await _connect(url)
    try:
        tables = await _target_tables(conn)
    finally:
        await conn.close()
    if tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(
            f"the database {redacted(url)} is not empty ({len(tables)} tables: {shown}); "
            "migrate-to copies into an empty database only, and wrote nothing"
        )


async def _pg_rows(conn: Connection, table: str, columns: list[str]) -> AsyncIterator[Any]:
    names = ", ".join(f'"{c}"' for c in columns)
    async with conn.cursor(name=f"digest_{table}") as cursor:
        await cursor.execute(f'SELECT {names} FROM "{table}"')
        while batch := await cursor.fetchmany(_BATCH):
            for row in batch:
                yield row


async def _pg_fold(conn: Connection, table: str, columns: list[str]) -> tuple[int, int]:
    count = total = 0
    async for row in _pg_rows(conn, table, columns):
        count += 1
        total = (total + row_digest(row)) % _DIGEST_MODULUS
    return count, total


def _sqlite_rows(raw: sqlite3.Connection, table: str, columns: list[str]) -> Iterator[Any]:
    names = ", ".join(f'"{c}"' for c in columns)
    return iter(raw.execute(f'SELECT {names} FROM "{table}"'))


async def _reset_identities(conn: Connection) -> None:
    cursor = await conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    identities = [(str(t), str(c)) for t, c in await cursor.fetchall()]
    for table, column in identities:
        await conn.execute(
            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'),"
            f' COALESCE((SELECT MAX("{column}") FROM "{table}"), 0) + 1, false)'
        )


async def migrate_to(source: Path, url: str) -> list[TableCopy]:
    """Copy the SQLite database at ``source`` into the empty PostgreSQL database at ``url``
    (see the module's docstring); return what was copied. Raises :class:`StoreError` with one
    line (no password) for anything that stops it."""
    check_url(url)
    raw = _open_source(Path(source))
    try:
        await _refuse_non_empty(url)
        from .store import Store

        await (await Store.open(url)).close()  # the schema, by the same migrations
        conn = await _connect(url)
        try:
            return await _copy(raw, conn, url)
        finally:
            await conn.close()
    finally:
        raw.close()


async def _copy(raw: sqlite3.Connection, conn: Connection, url: str) -> list[TableCopy]:
    raw.execute("BEGIN")  # one snapshot of the source for the copy and its digests
    tables = _source_tables(raw)
    target = set(await _target_tables(conn))
    missing = [name for name, _ in tables if name not in target]
    if missing:
        raise StoreError(f"tables of the SQLite file have no place in the target: {missing}")
    copied: list[TableCopy] = []
    await conn.execute("BEGIN")
    try:
        # The migrations recorded their own versions: the source's rows (with their dates)
        # take their place, so that these tables are copied like any other.
        for record in _RECORDS:
            await conn.execute(f"DELETE FROM {record}")
        for name, columns in tables:
            names = ", ".join(f'"{c}"' for c in columns)
            async with conn.cursor() as cursor:
                copy_sql = f'COPY "{name}" ({names}) FROM STDIN'
                async with cursor.copy(copy_sql) as copy:
                    for row in _sqlite_rows(raw, name, columns):
                        await copy.write_row(row)
        await _reset_identities(conn)
        for name, columns in tables:
            expected = _fold(_sqlite_rows(raw, name, columns))
            found = await _pg_fold(conn, name, columns)
            if found != expected:
                raise StoreError(
                    f"table {name}: {found[0]} rows copied of {expected[0]}, or their digests "
                    "differ; nothing was copied (the target has the empty schema)"
                )
            copied.append(TableCopy(name, expected[0], f"{expected[1]:064x}"))
        await conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            await conn.execute("ROLLBACK")
        raise
    finally:
        raw.execute("ROLLBACK")
    return copied


def main(argv: Sequence[str], default_source: Path) -> int:
    """``kachuful-bot migrate-to URL [--from FILE]``; the exit status."""
    import asyncio

    parser = argparse.ArgumentParser(
        prog="kachuful-bot migrate-to",
        description="Copy a stopped bot's SQLite database into an empty PostgreSQL database.",
    )
    parser.add_argument("url", help="postgresql://user:password@host/database (empty)")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=default_source,
        help=f"the SQLite file (default: KACHUFUL_DB_PATH, else {default_source})",
    )
    args = parser.parse_args(list(argv))
    try:
        copied = asyncio.run(migrate_to(args.source, args.url))
    except StoreError as error:
        print(f"kachuful-bot: {error}", file=sys.stderr)
        return 2
    for table in copied:
        print(f"{table.name}: {table.rows} rows, digest {table.digest[:16]} (same on both sides)")
    total = sum(table.rows for table in copied)
    print(
        f"copied {len(copied)} tables ({total} rows) from {args.source} to {redacted(args.url)};"
        " set KACHUFUL_DATABASE_URL to it and start the bot"
    )
    return 0
