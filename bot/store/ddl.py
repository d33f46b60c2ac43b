"""What the migrations (``migrations/versions``) share: the portable column types, a
descending index column, and the row each revision adds to ``schema_version``.

The one difference of engines in the schema is here: PostgreSQL sorts NULL first in a
descending order, SQLite last, so PostgreSQL's descending index columns say ``NULLS LAST``
(the board queries ask for that order, and SQLite, whose indexes take no NULLS clause, already
has it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import context, op

from .schema import Id, Real

__all__ = [
    "Id",
    "Real",
    "descending",
    "index",
    "integer",
    "now",
    "real",
    "record_version",
    "text",
]


def now() -> datetime:
    """The store's clock, as the migration runner was given it (bot.store.migrate)."""
    moment = context.config.attributes.get("now") if context.config is not None else None
    return moment if isinstance(moment, datetime) else datetime.now(UTC)


def integer(name: str, *args: Any, nullable: bool = False, **kwargs: Any) -> sa.Column[Any]:
    return sa.Column(name, Id, *args, nullable=nullable, **kwargs)


def text(name: str, *, nullable: bool = False, **kwargs: Any) -> sa.Column[Any]:
    return sa.Column(name, sa.Text, nullable=nullable, **kwargs)


def real(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, Real, nullable=nullable)


def descending(column: str) -> sa.TextClause:
    nulls = " NULLS LAST" if op.get_bind().dialect.name == "postgresql" else ""
    return sa.text(f"{column} DESC{nulls}")


def index(
    name: str,
    table: str,
    *columns: str | sa.TextClause,
    where: str | None = None,
    unique: bool = False,
) -> None:
    """``CREATE INDEX``; ``where`` makes it partial (both engines have partial indexes)."""
    condition: dict[str, Any] = (
        {}
        if where is None
        else {"sqlite_where": sa.text(where), "postgresql_where": sa.text(where)}
    )
    op.create_index(name, table, list(columns), unique=unique, **condition)


def record_version(version: int, name: str) -> None:
    """The revision's row in ``schema_version``: the table bots before Alembic read (an older
    bot refuses a database newer than itself by it, and ``inspect_database`` recognises this
    bot's file by it)."""
    table = sa.table(
        "schema_version", sa.column("version"), sa.column("name"), sa.column("applied_at")
    )
    op.execute(table.insert().values(version=version, name=name, applied_at=now().isoformat()))
