"""Games and their results.

A game row holds everything needed to rebuild a table after a restart: the rules, the seats,
the secret seed that deals later deals, and the kachuful-record/1 document of every action.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.ddl import index, integer, record_version, text

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None
version, name = 1, "0001_initial.sql"


def upgrade() -> None:
    op.create_table(
        "games",
        integer("id", sa.Identity(), primary_key=True),
        integer("guild_id"),
        integer("channel_id"),
        integer("host_id"),
        text("status"),
        text("rules"),  # JSON: the table options chosen at /kachuful start
        integer("max_seats"),
        text("seed", nullable=True),  # secret; set when the game starts
        text("record", nullable=True),  # JSON kachuful-record/1, set when the game starts
        text("seats"),  # JSON list of seats
        integer("message_id", nullable=True),  # the current public table (or lobby) message
        integer("version", server_default=sa.text("0")),  # move counter carried by buttons
        text("created_at"),
        text("updated_at"),
        sa.CheckConstraint("status IN ('lobby', 'running', 'finished', 'stopped')"),
        sa.CheckConstraint("max_seats BETWEEN 3 AND 7"),
        sqlite_autoincrement=True,
    )
    # One open game (lobby or running) per channel.
    index(
        "games_one_open_per_channel",
        "games",
        "channel_id",
        unique=True,
        where="status IN ('lobby', 'running')",
    )
    index("games_status", "games", "status")
    # One row per seat of every finished game; computer seats have user_id NULL.
    op.create_table(
        "results",
        integer("game_id", sa.ForeignKey("games.id", ondelete="CASCADE")),
        integer("seat"),
        integer("guild_id"),
        integer("channel_id"),
        integer("user_id", nullable=True),
        integer("score"),
        integer("won"),  # shared wins count as wins
        integer("bids_exact"),
        integer("bids"),
        text("finished_at"),
        sa.PrimaryKeyConstraint("game_id", "seat"),
        sa.CheckConstraint("won IN (0, 1)"),
        sa.CheckConstraint("bids_exact >= 0"),
        sa.CheckConstraint("bids >= bids_exact"),
    )
    index("results_channel_user", "results", "channel_id", "user_id")
    index("results_guild_user", "results", "guild_id", "user_id")
    record_version(version, name)
