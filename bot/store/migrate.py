"""Schema changes: the Alembic revisions of ``migrations/versions``, applied at start.

Each revision is applied in a transaction of its own that also records it (Alembic's
``alembic_version``, and a row of ``schema_version``, the table the bot kept before Alembic: an
older bot refuses a database newer than itself by it). A database made before the revisions
were Alembic's (its ``schema_version`` rows, no ``alembic_version``) is adopted: stamped at the
revision of its newest row, in place, and upgraded from there; nothing of it is rewritten.

Functions here are synchronous, on a SQLAlchemy ``Connection``: the store runs them through
``AsyncConnection.run_sync``, and a revision's data steps call the same code the store runs
(``bot.store.results``, ``bot.store.periods``). Alembic is imported only when there is
something to apply: a bot starting on a database that is up to date (every start but the
first after an upgrade) reads two tables and goes on, a quarter of a second sooner.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import sqlalchemy as sa

from .failures import StoreError
from .schema import schema_version

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

log = logging.getLogger("bot.store")


def _folder() -> Path:
    return Path(str(resources.files(__package__).joinpath("migrations")))


@functools.cache
def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(_folder()))


@functools.cache
def _files() -> tuple[tuple[int, str], ...]:
    """(version, file stem) of every revision file, read from the folder (no import): a
    revision's file is named after its id, ``0001_initial.py``."""
    folder = _folder() / "versions"
    stems = sorted(p.stem for p in folder.glob("*.py") if p.stem[:4].isdigit())
    return tuple((int(stem[:4]), stem) for stem in stems)


@functools.cache
def revisions() -> tuple[tuple[int, str, str], ...]:
    """Every revision, oldest first: (schema version, its name in ``schema_version``, Alembic
    revision id)."""
    found = [
        (int(script.module.version), str(script.module.name), script.revision)
        for script in _scripts().walk_revisions()
    ]
    found.reverse()
    if [version for version, _, _ in found] != list(range(1, len(found) + 1)):
        raise StoreError(f"revisions must be versions 1, 2, ... in order: {found}")
    return tuple(found)


# The first eight revisions were numbered SQL files before Alembic: databases made then hold
# the files' names in schema_version, and each revision records the same (0001_initial.sql).
_LEGACY = 8


def newest() -> int:
    return _files()[-1][0]


def head() -> str:
    """The newest revision's Alembic id (its version, four digits)."""
    return f"{newest():04d}"


def names() -> dict[int, str]:
    """Each version's name in ``schema_version`` (checked against the revisions by a test)."""
    return {version: f"{stem}.sql" if version <= _LEGACY else stem for version, stem in _files()}


def _alembic_revision(conn: sa.Connection) -> str | None:
    if not sa.inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def _config(now: datetime | None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_folder()))
    # The store's clock: what a revision records, and the day its data steps count to.
    config.attributes["now"] = now or datetime.now(UTC)
    return config


def _run(conn: sa.Connection, config: Config, revision: str, *, stamp: bool = False) -> None:
    """Upgrade to (or, ``stamp``, only record) ``revision`` on ``conn``, as Alembic's
    ``command.upgrade``/``stamp`` do, with the revisions loaded once per process (the commands
    load the script directory and every revision file anew each time)."""
    from alembic.runtime.environment import EnvironmentContext

    scripts = _scripts()

    def steps(current: Any, context: MigrationContext) -> Any:
        if stamp:
            return scripts._stamp_revs(revision, current)
        return scripts._upgrade_revs(revision, current)

    with EnvironmentContext(config, scripts, fn=steps, destination_rev=revision) as environment:
        environment.configure(connection=conn, transaction_per_migration=False)
        environment.run_migrations()


def recorded(conn: sa.Connection) -> set[int]:
    """The versions ``schema_version`` holds (none: no such table)."""
    if not sa.inspect(conn).has_table("schema_version"):
        return set()
    return {int(row[0]) for row in conn.execute(sa.select(schema_version.c.version))}


class Transactions(Protocol):
    """What the runner needs of the engine's driver (``bot.store.drivers.Driver``)."""

    @property
    def begin_write(self) -> str: ...

    def in_transaction(self, conn: sa.Connection) -> bool: ...


def upgrade(
    conn: sa.Connection,
    driver: Transactions,
    to: int | None = None,
    now: datetime | None = None,
) -> list[int]:
    """Apply every revision newer than the database (up to version ``to``, default the
    newest; ``now``: the store's clock); return the versions applied. ``driver``: how the
    engine begins a write and tells an open transaction."""
    schema_version.create(conn, checkfirst=True)
    done = recorded(conn)
    if done and max(done) > newest():
        raise StoreError(
            f"the database is at schema version {max(done)}, newer than this bot "
            f"({newest()}); upgrade the bot"
        )
    current = _alembic_revision(conn)
    if current == head() and (to is None or to >= newest()):
        return []  # up to date: Alembic is not even imported
    config = _config(now)
    by_version = {version: revision for version, _, revision in revisions()}
    if current is None and done:
        _in_transaction(
            conn, driver, functools.partial(_run, conn, config, by_version[max(done)], stamp=True)
        )
        current = by_version[max(done)]
        log.info("database adopted by the migrations at version %d", max(done))
    pending = [
        (version, name, revision)
        for version, name, revision in revisions()
        if version > (0 if current is None else int(current)) and (to is None or version <= to)
    ]
    if current is None and pending:
        # A new database: made whole in one transaction, or not at all.
        _in_transaction(conn, driver, functools.partial(_run, conn, config, pending[-1][2]))
        log.info("database created at schema version %d", pending[-1][0])
        return [version for version, _, _ in pending]
    for _, name, revision in pending:
        # One transaction a revision: an upgrade interrupted keeps the revisions done.
        _in_transaction(conn, driver, functools.partial(_run, conn, config, revision))
        log.info("applied database migration %s", name)
    return [version for version, _, _ in pending]


def _in_transaction(conn: sa.Connection, driver: Transactions, work: Callable[[], None]) -> None:
    conn.exec_driver_sql(driver.begin_write)
    try:
        work()
    except BaseException:
        if conn.invalidated:
            conn.rollback()
        elif driver.in_transaction(conn):
            conn.exec_driver_sql("ROLLBACK")
        raise
    conn.exec_driver_sql("COMMIT")
