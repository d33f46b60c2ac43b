"""Running totals of the 7- and 30-day boards: a period board is read from an index like the
all-time board instead of summing the period's day rows at every read.

``period_totals`` holds, per server (channel_id 0) or channel and per player, the sum of the
``player_days`` rows from ``period_windows.first_day`` on (``bot.store.periods``). The rows of
an existing database are summed by ``periods.rebuild_all_periods`` in this revision's
transaction."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store import periods
from bot.store.ddl import descending, index, integer, now, real, record_version, text

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None
version, name = 5, "0005_period_totals.sql"


def upgrade() -> None:
    op.create_table(
        "period_windows",
        integer("guild_id"),
        integer("days"),  # 7 or 30
        text("first_day"),  # YYYY-MM-DD (UTC): the oldest day counted
        sa.PrimaryKeyConstraint("guild_id", "days"),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "period_totals",
        integer("guild_id"),
        integer("days"),
        integer("channel_id"),  # 0: the server
        integer("user_id"),
        integer("games"),
        integer("wins"),
        integer("score_sum"),
        integer("bids_exact"),
        integer("bids"),
        real("avg_score"),
        real("exact_rate", nullable=True),  # NULL when the player never bid
        real("ordinal", nullable=True),  # the player's server rating (ratings.ordinal)
        sa.PrimaryKeyConstraint("guild_id", "days", "channel_id", "user_id"),
        sqlite_with_rowid=False,
    )
    # One index per sort, in the board's order (key, then more games, then lower user id).
    for sort, column in (
        ("rating", "ordinal"),
        ("wins", "wins"),
        ("average", "avg_score"),
        ("exact", "exact_rate"),
    ):
        index(
            f"period_totals_{sort}",
            "period_totals",
            "guild_id",
            "days",
            "channel_id",
            descending(column),
            descending("games"),
            "user_id",
        )
    # A player's rows in every channel and period: their rating is copied to each.
    index("period_totals_user", "period_totals", "guild_id", "user_id")
    # The day rows of a server by day, across channels: what leaves a window, read as one
    # range of this covering index.
    index(
        "player_days_day",
        "player_days",
        "guild_id",
        "day",
        "channel_id",
        "user_id",
        "games",
        "wins",
        "score_sum",
        "bids_exact",
        "bids",
    )
    periods.rebuild_all_periods(op.get_bind(), now().date().isoformat())
    record_version(version, name)
