"""Small facts the bot keeps about itself between starts, one text value per key (the first:
the digest of the slash commands last synced to Discord, see ``bot.command_sync``)."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import record_version, text

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None
version, name = 7, "0007_bot_state.sql"


def upgrade() -> None:
    op.create_table("bot_state", text("key", primary_key=True), text("value"), text("updated_at"))
    record_version(version, name)
