"""Schema once (issue 44): Alembic compares ``bot/store/schema.py``'s metadata with a database
migrated to head, on both engines: tables, columns, types, nullability, server defaults,
primary and foreign keys, indexes and unique indexes. A difference fails with Alembic's own
list of the operations that would make the database match the metadata, one a line.

And the comparison is not blind: a metadata with an index dropped, an index made unique, a
column's type changed or a descending index column made ascending is reported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from bot.store.drivers import driver_for
from bot.store.schema import metadata
from bot.store.store import Store

ALEMBIC_OWN = {"alembic_version"}


def engine_for(target: str | Path) -> sa.Engine:
    return sa.create_engine(driver_for(target).sync_url(target), poolclass=sa.NullPool)


def _include_name(name: str | None, kind: str, parent: Any) -> bool:
    return not (kind == "table" and name in ALEMBIC_OWN)


def _engine_has_it(dialect: str, difference: Any) -> bool:
    """False for the one difference an engine cannot show: SQLite has no identity columns
    (its INTEGER PRIMARY KEY with AUTOINCREMENT is what ``sa.Identity()`` becomes there), so
    a migrated SQLite file never reflects one."""
    if dialect != "sqlite" or not isinstance(difference, list):
        return True
    return not all(
        op[0] == "modify_default" and isinstance(op[-1], sa.Identity) for op in difference
    )


def differences(target: str | Path, declared: sa.MetaData = metadata) -> list[Any]:
    engine = engine_for(target)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn,
                opts={
                    "compare_type": True,
                    "compare_server_default": True,
                    "include_name": _include_name,
                },
            )
            found = compare_metadata(context, declared)
            return [d for d in found if _engine_has_it(conn.dialect.name, d)]
    finally:
        engine.dispose()


def readable(found: list[Any]) -> str:
    lines = []
    for difference in found:
        for op in difference if isinstance(difference, list) else [difference]:
            lines.append(" ".join(str(part) for part in op if part not in (None, {})))
    return "\n".join(lines)


async def migrated(database: str | Path) -> str | Path:
    await (await Store.open(database)).close()
    return database


def _copy() -> sa.MetaData:
    copy = sa.MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(copy)
    return copy


def _drop_index(copy: sa.MetaData) -> None:
    table = copy.tables["games"]
    table.indexes.discard(next(i for i in table.indexes if i.name == "games_status"))


def _make_unique(copy: sa.MetaData) -> None:
    next(i for i in copy.tables["results"].indexes if i.name == "results_guild_user").unique = True


def _change_type(copy: sa.MetaData) -> None:
    copy.tables["games"].c.status.type = sa.Integer()


def _ascending(copy: sa.MetaData) -> None:
    table = copy.tables["ratings"]
    table.indexes.discard(next(i for i in table.indexes if i.name == "ratings_board"))
    sa.Index("ratings_board", table.c.guild_id, table.c.ordinal, table.c.user_id)


CHANGES: dict[str, Callable[[sa.MetaData], None]] = {
    "an index dropped": _drop_index,
    "an index made unique": _make_unique,
    "a column's type": _change_type,
    "a descending column made ascending": _ascending,
}


async def test_the_metadata_is_the_migrated_schema(database: str | Path) -> None:
    """One migration a engine: the comparison, then each deliberate change of a copy of the
    metadata, which it must report (SQLite does not tell SQLAlchemy an index column's order,
    so that one change is PostgreSQL's only)."""
    target = await migrated(database)
    found = differences(target)
    assert not found, "schema.py and the database migrated to head differ:\n" + readable(found)
    postgres = engine_for(target).dialect.name == "postgresql"
    for change, make in CHANGES.items():
        if change == "a descending column made ascending" and not postgres:
            continue
        copy = _copy()
        make(copy)
        assert differences(target, copy) != [], f"{change}: not reported"


def test_revisions_go_forward_only() -> None:
    """No revision has a downgrade (docs/scaling.md#upgrades-and-rollbacks: a rollback is a
    restored backup); a newcomer who writes one is sent to that page."""
    folder = Path(__file__).resolve().parents[3] / "bot" / "store" / "migrations" / "versions"
    revisions = sorted(folder.glob("[0-9][0-9][0-9][0-9]_*.py"))
    assert len(revisions) >= 13
    with_downgrade = [p.name for p in revisions if "def downgrade" in p.read_text("utf-8")]
    assert with_downgrade == [], "revisions go forward only: see docs/scaling.md"
