"""Score pads for games played with a real deck (docs/scorepad.md): one row per pad, its record
(``kachuful-scorepad/1``) written over the version its last click read, the version its public
message shows, and where its results were counted (in the same transaction that finished it, so
never twice)."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import index, integer, record_version, text

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None
version, name = 13, "0013_scorepads"


def upgrade() -> None:
    op.create_table(
        "scorepads",
        integer("id", primary_key=True),
        integer("guild_id"),
        integer("channel_id"),
        integer("host_id"),
        text("status"),  # open | running | finished | stopped
        text("seats"),  # JSON: [{"user_id": ..., "name": ...}] in seating order
        text("rules"),  # JSON: the table options by name
        text("record", nullable=True),  # JSON: kachuful-scorepad/1, once started
        integer("message_id", nullable=True),  # the pad's one public message
        integer("version"),
        integer("shown"),  # the version that message shows (behind: drawn again at start)
        text("board", nullable=True),  # where its results were counted: together | apart
        text("created_at"),
        text("updated_at"),
    )
    index("scorepads_channel", "scorepads", "channel_id", "status")
    record_version(version, name)
