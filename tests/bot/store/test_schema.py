"""The tables the queries are written against (bot/store/schema.py) are the tables the
revisions make, on both engines; and the SQL of the store is never rewritten by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bot.store import drivers, sqlite_file  # noqa: F401 (sqlite_file: loaded)
from bot.store.drivers import driver_for
from bot.store.schema import metadata
from bot.store.store import Store

REPO = Path(__file__).resolve().parents[3]
ALEMBIC_OWN = {"alembic_version"}


def shape(target: str | Path) -> dict[str, Any]:
    engine = sa.create_engine(driver_for(target).sync_url(target), poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            return {
                table: (
                    [(c["name"], c["nullable"]) for c in inspector.get_columns(table)],
                    sorted(inspector.get_pk_constraint(table)["constrained_columns"]),
                )
                for table in inspector.get_table_names()
                if table not in ALEMBIC_OWN
            }
    finally:
        engine.dispose()


async def test_the_migrated_schema_is_the_one_the_queries_use(database: str | Path) -> None:
    await (await Store.open(database)).close()
    declared = {
        table.name: (
            [(c.name, c.nullable) for c in table.columns],
            sorted(c.name for c in table.primary_key.columns),
        )
        for table in metadata.sorted_tables
    }
    assert shape(database) == declared


@pytest.mark.parametrize("folder", ["bot", "cogs"])
def test_no_sql_text_is_rewritten_for_an_engine(folder: str) -> None:
    """The SQL-rewriting layer is gone for good: no module translates SQLite's words into
    PostgreSQL's (``re.sub`` over SQL, a ``to_postgres``), and only the engines' driver
    modules (the registry's, bot/store/drivers.py) name an engine's statement of its own."""
    engines = {sys.modules[type(driver).__module__].__file__ for driver in drivers.ENGINES} | {
        sys.modules["bot.store.sqlite_file"].__file__
    }
    own = {Path(str(name)).resolve().relative_to(REPO).as_posix() for name in engines}
    assert len(own) > len(drivers.ENGINES) and all(name.startswith("bot/store/") for name in own)
    offenders = []
    for path in (REPO / folder).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        relative = path.relative_to(REPO).as_posix()
        if "to_postgres" in text or "INSERT OR IGNORE" in text or "INDEXED BY" in text:
            offenders.append(relative)
        if relative not in own and (
            "BEGIN IMMEDIATE" in text or "pg_advisory" in text or "wal_checkpoint" in text
        ):
            offenders.append(relative)
    assert offenders == []
