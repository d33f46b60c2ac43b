"""Reviews and practice (docs/review.md): one stored review per finished game, written once
(keyed by the game, so never twice), and the practice deals players play alone against the
computer, each kept as the record of its one deal so far, version-checked like a table."""

from __future__ import annotations

from alembic import op

from bot.store.ddl import index, integer, record_version, text

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None
version, name = 12, "0012_reviews_practice"


def upgrade() -> None:
    op.create_table(
        "game_reviews",
        integer("game_id", primary_key=True, autoincrement=False),
        text("document"),  # JSON: kachuful_core.review.GameReview
        text("computed_at"),
    )
    op.create_table(
        "practice_deals",
        integer("id", primary_key=True),
        integer("user_id"),
        integer("seat"),  # the player's seat; the others are computer players
        text("level"),
        integer("source_game", nullable=True),  # the game the deal is taken from, if any
        text("record"),  # JSON: the one deal so far, kachuful-record/1
        integer("hints"),  # hints asked for
        integer("version"),
        text("created_at"),
        text("updated_at"),
    )
    index("practice_deals_user", "practice_deals", "user_id")
    record_version(version, name)
