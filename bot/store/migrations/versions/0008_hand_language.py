"""The language of a player's last interaction with their hand message (``bot/i18n.py``):
after a restart the hand publisher redraws the message in it (NULL: English)."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import record_version, text

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None
version, name = 8, "0008_hand_language.sql"


def upgrade() -> None:
    op.add_column("hand_messages", text("language", nullable=True))
    record_version(version, name)
