"""Club play (docs/events.md): events, their registered players, and the tables of each
round. A round is seated in one transaction (its ``event_tables`` rows and the event's round
counter), so a round is never seated twice; each table's thread and game are then found or
made one at a time, and their ids written as soon as they exist."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.ddl import index, integer, record_version, text

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None
version, name = 10, "0010_events"


def upgrade() -> None:
    op.create_table(
        "events",
        integer("id", sa.Identity(), primary_key=True),
        integer("guild_id"),
        integer("channel_id"),
        integer("organiser_id"),
        text("name"),
        text("format"),  # rotation | duplicate
        integer("table_size"),
        integer("rounds"),
        text("level"),  # the computer players' level
        text("options"),  # JSON: the tables' options, as a games row states them
        text("status"),  # registering | running | paused | finished | closed
        integer("round"),  # rounds seated so far
        text("starts_at", nullable=True),
        integer("scheduled_event_id", nullable=True),
        integer("message_id", nullable=True),
        integer("reminded"),
        integer("settled"),  # 1 once its message shows its end (finished or closed)
        integer("version"),
        text("created_at"),
        text("updated_at"),
        sa.CheckConstraint("table_size BETWEEN 3 AND 7"),
        sqlite_autoincrement=True,
    )
    index("events_by_guild", "events", "guild_id", "status")
    op.create_table(
        "event_players",
        integer("event_id", primary_key=True),
        integer("user_id", primary_key=True),
        text("name"),
        text("status"),  # registered | withdrawn | dropped
        integer("remind_by_dm"),
        text("joined_at"),
    )
    op.create_table(
        "event_tables",
        integer("event_id", primary_key=True),
        integer("round", primary_key=True),
        integer("table_no", primary_key=True),
        text("seats"),  # JSON: [{"user_id": id or null, "name": name}, ...] in seat order
        text("seed"),  # the secret seed its game deals from (the same at every duplicate table)
        integer("thread_id", nullable=True),
        integer("game_id", nullable=True),
    )
    index(
        "event_tables_by_game", "event_tables", "game_id", unique=True, where="game_id IS NOT NULL"
    )
    record_version(version, name)
