"""The token of the interaction that answers with a new lobby, stored with the new game before
the answer is sent: after a crash between the answer and storing the lobby's message id, the
restart finds that message through the token instead of posting a second lobby."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import integer, record_version, text

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None
version, name = 6, "0006_lobby_token.sql"


def upgrade() -> None:
    op.add_column("games", text("lobby_token", nullable=True))
    # A hand message sent as a follow-up (its click had to be deferred) is edited by its id.
    op.add_column("hand_messages", integer("message_id", nullable=True))
    record_version(version, name)
