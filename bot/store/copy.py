"""``kachuful-bot migrate-to TARGET [--from SOURCE]``: copy a stopped bot's database into an
empty database, from any engine of the registry to any other (:mod:`.drivers`): an SQLite
file into PostgreSQL (what it was written for), PostgreSQL back into a file, or a file into
another file.

The target is refused (one line, nothing written) unless it has no table at all. It is then
given the schema by the bot's own migrations (the same Alembic revisions on every engine),
and every table of the source is copied in one transaction of the target, each row written
the target engine's fastest way (``Driver.copy_rows``: PostgreSQL's COPY; inserts of a
thousand rows elsewhere). Before that transaction commits, each table's row count and digest
are computed on both sides and compared: a copy that differs is rolled back. What makes the
next generated id follow the copied ones is the target driver's (``Driver.after_copy``:
PostgreSQL's identity sequences), so the next game gets a fresh id.

The digest of a table is the sum (modulo 2**256) of the SHA-256 of each of its rows, each row
written the same way on both sides (integers as digits, floats in their shortest exact form,
NULL as a mark of its own): independent of row order and collation, and read as a stream.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from .driver import Driver, Target
from .drivers import DATABASE_ERRORS, driver_for
from .failures import StoreError

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


class _Fold:
    """A table's row count and digest, summed as its rows go by."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0

    def through(self, rows: Iterable[Sequence[Any]]) -> Iterator[Sequence[Any]]:
        for row in rows:
            self.count += 1
            self.total = (self.total + row_digest(row)) % _DIGEST_MODULUS
            yield row

    @property
    def figures(self) -> tuple[int, int]:
        return self.count, self.total


def _rows(conn: sa.Connection, table: str, columns: Sequence[str]) -> Iterator[Sequence[Any]]:
    """Every row of ``table``, streamed (a server-side cursor where the engine has one)."""
    quote = conn.dialect.identifier_preparer.quote_identifier  # each engine quotes its own way
    names = ", ".join(quote(column) for column in columns)
    options: dict[str, Any] = {}
    if conn.dialect.supports_server_side_cursors:
        options = {"stream_results": True, "max_row_buffer": _BATCH}
    result = conn.exec_driver_sql(f"SELECT {names} FROM {quote(table)}", execution_options=options)
    try:
        yield from result
    finally:
        result.close()


def target_fold(conn: sa.Connection, table: str, columns: Sequence[str]) -> tuple[int, int]:
    """The row count and digest of a table as the target holds it (inside the copy)."""
    fold = _Fold()
    for _ in fold.through(_rows(conn, table, columns)):
        pass
    return fold.figures


def _tables(conn: sa.Connection) -> list[tuple[str, list[str]]]:
    inspector = sa.inspect(conn)
    names = sorted(
        inspector.get_table_names(),
        key=lambda name: (name not in _FIRST, _FIRST.index(name) if name in _FIRST else 0, name),
    )
    return [(name, [str(c["name"]) for c in inspector.get_columns(name)]) for name in names]


def _engine(driver: Driver, target: Target, *, read_only: bool = False) -> sa.Engine:
    return sa.create_engine(
        driver.sync_url(target, read_only=read_only),
        isolation_level="AUTOCOMMIT",  # transactions are this module's BEGIN ... COMMIT
        poolclass=sa.NullPool,
    )


@contextlib.contextmanager
def _connected(
    driver: Driver, target: Target, *, read_only: bool = False
) -> Iterator[sa.Connection]:
    """A connection to ``target``; one line (no password) if it cannot be made."""
    engine = _engine(driver, target, read_only=read_only)
    try:
        try:
            conn = engine.connect()
        except DATABASE_ERRORS as error:
            reason = " ".join(str(getattr(error, "orig", None) or error).split())
            shown = driver.describe(target)
            raise StoreError(
                f"{driver.failed_to_open} {shown}: {reason or type(error).__name__}"
            ) from None
        with conn:
            yield conn
    finally:
        engine.dispose()


def _check_source_version(conn: sa.Connection, driver: Driver, source: Target) -> None:
    from .migrate import newest

    try:
        version = conn.exec_driver_sql(
            "SELECT COALESCE(MAX(version), 0) FROM schema_version"
        ).scalar()
    except DATABASE_ERRORS:
        raise StoreError(f"{driver.describe(source)} is not this bot's database") from None
    if version != newest():
        raise StoreError(
            f"the database {driver.describe(source)} is at schema version {version}, this "
            f"bot's is {newest()}: start this bot once on it (it upgrades it), stop it, then copy"
        )


def _refuse_non_empty(conn: sa.Connection, driver: Driver, target: Target) -> None:
    tables = sorted(sa.inspect(conn).get_table_names())
    if tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(
            f"the database {driver.describe(target)} is not empty ({len(tables)} tables: "
            f"{shown}); migrate-to copies into an empty database only, and wrote nothing"
        )


async def migrate_to(source: Target, target: Target) -> list[TableCopy]:
    """Copy the database at ``source`` (a stopped bot's) into the empty database at
    ``target``, each of any engine (see the module's docstring); return what was copied.
    Raises :class:`StoreError` with one line (no password) for anything that stops it."""
    import asyncio

    from .store import Store

    to = driver_for(target)
    to.check(target)
    origin = driver_for(source)
    origin.check(source)
    await asyncio.to_thread(origin.check_copy_source, source)
    await to.prepare(target)  # read-only checks (a file of another application is refused)
    await asyncio.to_thread(_check_both, origin, source, to, target)
    await (await Store.open(target)).close()  # the schema, by the same migrations
    return await asyncio.to_thread(_copy, origin, source, to, target)


def _check_both(origin: Driver, source: Target, to: Driver, target: Target) -> None:
    with _connected(origin, source, read_only=True) as conn:
        _check_source_version(conn, origin, source)
    with _connected(to, target) as conn:
        _refuse_non_empty(conn, to, target)


def _copy(origin: Driver, source: Target, to: Driver, target: Target) -> list[TableCopy]:
    with (
        _connected(origin, source, read_only=True) as read,
        _connected(to, target) as write,
    ):
        # One snapshot of the source for the copy and its digests.
        read.exec_driver_sql(origin.begin_snapshot)
        try:
            return _copy_tables(read, write, to)
        finally:
            read.exec_driver_sql("ROLLBACK")


def _copy_tables(read: sa.Connection, write: sa.Connection, to: Driver) -> list[TableCopy]:
    tables = _tables(read)
    target = dict(_tables(write))
    missing = [name for name, _ in tables if name not in target]
    if missing:
        raise StoreError(f"tables of the source have no place in the target: {missing}")
    copied: list[TableCopy] = []
    write.exec_driver_sql(to.begin_write)
    try:
        # The migrations recorded their own versions: the source's rows (with their dates)
        # take their place, so that these tables are copied like any other.
        for record in _RECORDS:
            quoted = write.dialect.identifier_preparer.quote_identifier(record)
            write.exec_driver_sql(f"DELETE FROM {quoted}")
        expected: dict[str, tuple[int, int]] = {}
        for name, columns in tables:
            fold = _Fold()
            to.copy_rows(write, name, columns, fold.through(_rows(read, name, columns)))
            expected[name] = fold.figures
        to.after_copy(write)
        for name, columns in tables:
            found = target_fold(write, name, columns)
            if found != expected[name]:
                raise StoreError(
                    f"table {name}: {found[0]} rows copied of {expected[name][0]}, or their "
                    "digests differ; nothing was copied (the target has the empty schema)"
                )
            copied.append(TableCopy(name, expected[name][0], f"{expected[name][1]:064x}"))
        write.exec_driver_sql("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            write.exec_driver_sql("ROLLBACK")
        raise
    return copied


def main(argv: Sequence[str], default_source: Path) -> int:
    """``kachuful-bot migrate-to TARGET [--from SOURCE]``; the exit status."""
    import asyncio

    parser = argparse.ArgumentParser(
        prog="kachuful-bot migrate-to",
        description="Copy a stopped bot's database into an empty database (of any engine).",
    )
    parser.add_argument(
        "target", help="postgresql://user:password@host/database, or an SQLite file (empty)"
    )
    parser.add_argument(
        "--from",
        dest="source",
        default=str(default_source),
        help=f"the database to copy (default: KACHUFUL_DB_PATH, else {default_source})",
    )
    args = parser.parse_args(list(argv))
    try:
        copied = asyncio.run(migrate_to(args.source, args.target))
    except StoreError as error:
        print(f"kachuful-bot: {error}", file=sys.stderr)
        return 2
    origin, to = driver_for(args.source), driver_for(args.target)
    for table in copied:
        print(f"{table.name}: {table.rows} rows, digest {table.digest[:16]} (same on both sides)")
    total = sum(table.rows for table in copied)
    setting = (
        "set KACHUFUL_DB_PATH to it and unset KACHUFUL_DATABASE_URL"
        if to.url_of(args.target) is None
        else "set KACHUFUL_DATABASE_URL to it"
    )
    print(
        f"copied {len(copied)} tables ({total} rows) from {origin.describe(args.source)}"
        f" to {to.describe(args.target)};"
        f" {setting} and start the bot"
    )
    return 0
