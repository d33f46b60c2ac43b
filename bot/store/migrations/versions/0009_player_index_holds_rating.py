"""A player's period rows are found with their rating in one index: copying a new rating to
them (``bot.store.periods._COPY_ORDINAL``, at every finished game) reads that index alone.
Before, the rows were found through ``period_totals_user`` (guild, user), which lacks the
rating, and SQLite preferred to walk the server's whole board in the covering rating index
unless told otherwise with a hint (which SQLAlchemy does not render for an UPDATE)."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import index, record_version

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None
version, name = 9, "0009_player_index_holds_rating"


def upgrade() -> None:
    op.drop_index("period_totals_user", table_name="period_totals")
    index("period_totals_user", "period_totals", "guild_id", "user_id", "ordinal")
    record_version(version, name)
