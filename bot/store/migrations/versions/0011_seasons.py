"""Seasons (docs/events.md#seasons): a server's season settings, and one row per crowned
season (its champions, its final standings, and what of its announcement is done). A season
is crowned in one insert keyed by the server and the season, so never twice."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import integer, record_version, text

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None
version, name = 11, "0011_seasons"


def upgrade() -> None:
    op.create_table(
        "season_settings",
        integer("guild_id", primary_key=True, autoincrement=False),
        text("kind"),  # monthly | quarterly | dates
        text("first_day", nullable=True),  # dates: the first and last day of the season
        text("last_day", nullable=True),
        integer("channel_id"),  # where its champions are announced
        integer("role_id", nullable=True),  # the champions' role, if the server names one
        text("since"),  # the day the settings were made: earlier seasons are not crowned
        integer("updated_by"),
        text("updated_at"),
    )
    op.create_table(
        "season_crowns",
        integer("guild_id", primary_key=True),
        text("season", primary_key=True),
        text("first_day"),
        text("end_day"),
        text("standings"),  # JSON: the season's final standings, best first
        integer("channel_id"),
        integer("role_id", nullable=True),
        integer("message_id", nullable=True),  # the announcement, once posted
        integer("roles_done"),
        text("crowned_at"),
    )
    record_version(version, name)
