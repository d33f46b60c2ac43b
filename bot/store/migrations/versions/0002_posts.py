"""Public messages as a view of the committed game.

The publisher of a table brings the channel up to date with the stored game; what it has
delivered is written here as it is delivered, so that a restart posts what is missing exactly
once and never posts a delivered message again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.ddl import index, integer, record_version, text

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None
version, name = 2, "0002_posts.sql"


def upgrade() -> None:
    # Why a game ended without a result ("stop:<user id>", "idle", "all_left", ...).
    op.add_column("games", text("ended", nullable=True))
    # 0 while the publisher still owes the channel messages of a finished or stopped game;
    # games made before this column were published in full by the bot that ran them.
    op.add_column("games", integer("settled", server_default=sa.text("1")))
    index("games_unsettled", "games", "settled", where="settled = 0")
    # One row per public message delivered for a game: its key names what it shows, digest
    # the content last sent, so that only a changed message is edited.
    op.create_table(
        "posts",
        integer("game_id", sa.ForeignKey("games.id", ondelete="CASCADE")),
        text("key"),
        integer("channel_id"),
        integer("message_id"),
        text("digest"),
        sa.PrimaryKeyConstraint("game_id", "key"),
        sqlite_with_rowid=False,
    )
    # The open private hand message of each player: the token of the interaction it
    # answered, which lets the bot edit it for 15 minutes (after a restart too).
    op.create_table(
        "hand_messages",
        integer("game_id", sa.ForeignKey("games.id", ondelete="CASCADE")),
        integer("user_id"),
        text("token"),
        text("opened_at"),
        sa.PrimaryKeyConstraint("game_id", "user_id"),
        sqlite_with_rowid=False,
    )
    record_version(version, name)
