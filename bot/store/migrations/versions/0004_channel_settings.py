"""Per-channel defaults for the next game (/kachuful-settings): one JSON object per channel,
checked before it is written; a running game never reads it again."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import integer, record_version, text

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None
version, name = 4, "0004_channel_settings.sql"


def upgrade() -> None:
    op.create_table(
        "channel_settings",
        integer("channel_id", primary_key=True, autoincrement=False),
        integer("guild_id"),
        text("settings"),  # JSON object
        integer("updated_by"),
        text("updated_at"),
    )
    record_version(version, name)
