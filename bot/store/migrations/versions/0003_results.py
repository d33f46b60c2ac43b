"""Results worth coming back to: names and places with the results, ratings, and aggregates
kept up to date in the transaction that finishes a game, so that no read has to go through
every result. Rows of earlier games are filled in by ``bot.store.results.backfill`` in this
revision's transaction (ratings need openskill, deal figures the engine)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store import results
from bot.store.ddl import descending, index, integer, real, record_version, text

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None
version, name = 3, "0003_results.sql"


def _table(table: str, *columns: sa.Column[object] | sa.Constraint) -> None:
    op.create_table(table, *columns, sqlite_with_rowid=False)


def upgrade() -> None:
    op.add_column("results", text("name", nullable=True))  # display name at the time
    op.add_column("results", text("level", nullable=True))  # a computer seat's level
    op.add_column("results", integer("place", nullable=True))  # 1 = best; ties share
    # Per player: channel_id 0 holds the whole server, any other the channel. avg_score and
    # exact_rate are kept beside their sums so that each sort of the board has an index.
    _table(
        "player_totals",
        integer("guild_id"),
        integer("channel_id"),
        integer("user_id"),
        text("name"),
        integer("games"),
        integer("wins"),
        integer("score_sum"),
        integer("best_score"),
        integer("best_game_id"),
        integer("bids_exact"),
        integer("bids"),
        real("avg_score"),
        real("exact_rate", nullable=True),  # NULL: never bid
        integer("last_game_id"),
        sa.PrimaryKeyConstraint("guild_id", "channel_id", "user_id"),
    )
    for sort, column in (("wins", "wins"), ("average", "avg_score"), ("exact", "exact_rate")):
        index(
            f"player_totals_{sort}",
            "player_totals",
            "guild_id",
            "channel_id",
            descending(column),
            descending("games"),
            "user_id",
        )
    # Finished games per server: shown with the boards, and a cheap sign that a board changed.
    op.create_table(
        "guild_totals",
        integer("guild_id", primary_key=True, autoincrement=False),
        integer("games"),
    )
    # The same per UTC day, for the 7- and 30-day boards.
    _table(
        "player_days",
        integer("guild_id"),
        integer("channel_id"),
        text("day"),
        integer("user_id"),
        integer("games"),
        integer("wins"),
        integer("score_sum"),
        integer("bids_exact"),
        integer("bids"),
        sa.PrimaryKeyConstraint("guild_id", "channel_id", "day", "user_id"),
    )
    # One rating per player per server (openskill Plackett-Luce; ordinal = mu - 3 sigma).
    _table(
        "ratings",
        integer("guild_id"),
        integer("user_id"),
        real("mu"),
        real("sigma"),
        real("ordinal"),
        integer("games"),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
    )
    index("ratings_board", "ratings", "guild_id", descending("ordinal"), "user_id")
    # Each player's rating after each finished game: the trend on /kachuful stats.
    _table(
        "rating_history",
        integer("guild_id"),
        integer("user_id"),
        integer("game_id"),
        real("mu"),
        real("sigma"),
        real("ordinal"),
        sa.PrimaryKeyConstraint("guild_id", "user_id", "game_id"),
    )
    # Per player, hand size and trump suit ('N': no trump): deals, exact bids, zero bids.
    _table(
        "deal_totals",
        integer("guild_id"),
        integer("user_id"),
        integer("hand_size"),
        text("trump"),
        integer("deals"),
        integer("exact"),
        integer("zero_bids"),
        integer("zero_exact"),
        integer("points"),
        sa.PrimaryKeyConstraint("guild_id", "user_id", "hand_size", "trump"),
        sa.CheckConstraint("trump IN ('S', 'H', 'D', 'C', 'N')"),
    )
    # A channel's finished and stopped games, newest first (/kachuful history). Queries name
    # the statuses as literals so that SQLite can use this partial index.
    index(
        "games_channel_closed",
        "games",
        "channel_id",
        "id",
        where="status IN ('finished', 'stopped')",
    )
    # One user's results in a server, newest first (/kachuful stats: recent games).
    index("results_guild_user_game", "results", "guild_id", "user_id", "game_id")
    results.backfill(op.get_bind())
    record_version(version, name)
