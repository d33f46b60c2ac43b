"""The tables of the bot's database as they are after the newest migration: one definition,
in SQLAlchemy Core, that the store's queries are written against on both engines.

The schema itself is made and changed by the Alembic revisions in ``migrations/versions``
(``bot.store.migrate``); a test checks that a migrated database has exactly these tables and
columns. Types are the portable ones: a Discord id needs 64 bits (``BigInteger``: BIGINT on
PostgreSQL, INTEGER on SQLite, where every integer is 64 bits), a ratio ``Double``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

metadata = sa.MetaData()

# INTEGER on SQLite (what its rowid alias and AUTOINCREMENT require), BIGINT elsewhere.
Id: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Real: sa.types.TypeEngine[float] = sa.Double[float]().with_variant(sa.REAL(), "sqlite")


def _int(name: str, *args: object, nullable: bool = False, **kwargs: object) -> sa.Column[int]:
    return sa.Column(name, Id, *args, nullable=nullable, **kwargs)  # type: ignore[arg-type]


def _text(name: str, *, nullable: bool = False, **kwargs: object) -> sa.Column[str]:
    return sa.Column(name, sa.Text, nullable=nullable, **kwargs)  # type: ignore[arg-type]


def _real(name: str, *, nullable: bool = False) -> sa.Column[float]:
    return sa.Column(name, Real, nullable=nullable)


schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    _text("name"),
    _text("applied_at"),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", Id, sa.Identity(), primary_key=True),
    _int("guild_id"),
    _int("channel_id"),
    _int("host_id"),
    _text("status"),
    _text("rules"),
    _int("max_seats"),
    _text("seed", nullable=True),
    _text("record", nullable=True),
    _text("seats"),
    _int("message_id", nullable=True),
    _int("version", server_default=sa.text("0")),
    _text("created_at"),
    _text("updated_at"),
    _text("ended", nullable=True),
    _int("settled", server_default=sa.text("1")),
    _text("lobby_token", nullable=True),
)

results = sa.Table(
    "results",
    metadata,
    _int("game_id", sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    _int("seat", primary_key=True, autoincrement=False),
    _int("guild_id"),
    _int("channel_id"),
    _int("user_id", nullable=True),
    _int("score"),
    _int("won"),
    _int("bids_exact"),
    _int("bids"),
    _text("finished_at"),
    _text("name", nullable=True),
    _text("level", nullable=True),
    _int("place", nullable=True),
)

posts = sa.Table(
    "posts",
    metadata,
    _int("game_id", sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    _text("key", primary_key=True),
    _int("channel_id"),
    _int("message_id"),
    _text("digest"),
)

hand_messages = sa.Table(
    "hand_messages",
    metadata,
    _int("game_id", sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    _int("user_id", primary_key=True),
    _text("token"),
    _text("opened_at"),
    _int("message_id", nullable=True),
    _text("language", nullable=True),
)

player_totals = sa.Table(
    "player_totals",
    metadata,
    _int("guild_id", primary_key=True),
    _int("channel_id", primary_key=True),
    _int("user_id", primary_key=True),
    _text("name"),
    _int("games"),
    _int("wins"),
    _int("score_sum"),
    _int("best_score"),
    _int("best_game_id"),
    _int("bids_exact"),
    _int("bids"),
    _real("avg_score"),
    _real("exact_rate", nullable=True),
    _int("last_game_id"),
)

guild_totals = sa.Table(
    "guild_totals",
    metadata,
    _int("guild_id", primary_key=True, autoincrement=False),
    _int("games"),
)

player_days = sa.Table(
    "player_days",
    metadata,
    _int("guild_id", primary_key=True),
    _int("channel_id", primary_key=True),
    _text("day", primary_key=True),
    _int("user_id", primary_key=True),
    _int("games"),
    _int("wins"),
    _int("score_sum"),
    _int("bids_exact"),
    _int("bids"),
)

ratings = sa.Table(
    "ratings",
    metadata,
    _int("guild_id", primary_key=True),
    _int("user_id", primary_key=True),
    _real("mu"),
    _real("sigma"),
    _real("ordinal"),
    _int("games"),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    _int("guild_id", primary_key=True),
    _int("user_id", primary_key=True),
    _int("game_id", primary_key=True),
    _real("mu"),
    _real("sigma"),
    _real("ordinal"),
)

deal_totals = sa.Table(
    "deal_totals",
    metadata,
    _int("guild_id", primary_key=True),
    _int("user_id", primary_key=True),
    _int("hand_size", primary_key=True),
    _text("trump", primary_key=True),
    _int("deals"),
    _int("exact"),
    _int("zero_bids"),
    _int("zero_exact"),
    _int("points"),
)

channel_settings = sa.Table(
    "channel_settings",
    metadata,
    _int("channel_id", primary_key=True, autoincrement=False),
    _int("guild_id"),
    _text("settings"),
    _int("updated_by"),
    _text("updated_at"),
)

period_windows = sa.Table(
    "period_windows",
    metadata,
    _int("guild_id", primary_key=True),
    _int("days", primary_key=True),
    _text("first_day"),
)

period_totals = sa.Table(
    "period_totals",
    metadata,
    _int("guild_id", primary_key=True),
    _int("days", primary_key=True),
    _int("channel_id", primary_key=True),
    _int("user_id", primary_key=True),
    _int("games"),
    _int("wins"),
    _int("score_sum"),
    _int("bids_exact"),
    _int("bids"),
    _real("avg_score"),
    _real("exact_rate", nullable=True),
    _real("ordinal", nullable=True),
)

bot_state = sa.Table(
    "bot_state",
    metadata,
    _text("key", primary_key=True),
    _text("value"),
    _text("updated_at"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("id", Id, sa.Identity(), primary_key=True),
    _int("guild_id"),
    _int("channel_id"),
    _int("organiser_id"),
    _text("name"),
    _text("format"),
    _int("table_size"),
    _int("rounds"),
    _text("level"),
    _text("options"),
    _text("status"),
    _int("round"),
    _text("starts_at", nullable=True),
    _int("scheduled_event_id", nullable=True),
    _int("message_id", nullable=True),
    _int("reminded"),
    _int("settled"),
    _int("version"),
    _text("created_at"),
    _text("updated_at"),
)

event_players = sa.Table(
    "event_players",
    metadata,
    _int("event_id", primary_key=True),
    _int("user_id", primary_key=True),
    _text("name"),
    _text("status"),
    _int("remind_by_dm"),
    _text("joined_at"),
)

event_tables = sa.Table(
    "event_tables",
    metadata,
    _int("event_id", primary_key=True),
    _int("round", primary_key=True, autoincrement=False),
    _int("table_no", primary_key=True, autoincrement=False),
    _text("seats"),
    _text("seed"),
    _int("thread_id", nullable=True),
    _int("game_id", nullable=True),
)

season_settings = sa.Table(
    "season_settings",
    metadata,
    _int("guild_id", primary_key=True, autoincrement=False),
    _text("kind"),
    _text("first_day", nullable=True),
    _text("last_day", nullable=True),
    _int("channel_id"),
    _int("role_id", nullable=True),
    _text("since"),
    _int("updated_by"),
    _text("updated_at"),
)

season_crowns = sa.Table(
    "season_crowns",
    metadata,
    _int("guild_id", primary_key=True),
    _text("season", primary_key=True),
    _text("first_day"),
    _text("end_day"),
    _text("standings"),
    _int("channel_id"),
    _int("role_id", nullable=True),
    _int("message_id", nullable=True),
    _int("roles_done"),
    _text("crowned_at"),
)

game_reviews = sa.Table(
    "game_reviews",
    metadata,
    _int("game_id", primary_key=True, autoincrement=False),
    _text("document"),
    _text("computed_at"),
)

practice_deals = sa.Table(
    "practice_deals",
    metadata,
    _int("id", primary_key=True),
    _int("user_id"),
    _int("seat"),
    _text("level"),
    _int("source_game", nullable=True),
    _text("record"),
    _int("hints"),
    _int("version"),
    _text("created_at"),
    _text("updated_at"),
)

scorepads = sa.Table(
    "scorepads",
    metadata,
    _int("id", primary_key=True),
    _int("guild_id"),
    _int("channel_id"),
    _int("host_id"),
    _text("status"),
    _text("seats"),
    _text("rules"),
    _text("record", nullable=True),
    _int("message_id", nullable=True),
    _int("version"),
    _int("shown"),
    _text("board", nullable=True),
    _text("created_at"),
    _text("updated_at"),
)


# ---- indexes, as the revisions make them (a test compares them with a migrated database)


def _desc(column: sa.Column[Any]) -> sa.UnaryExpression[Any]:
    """A descending index column: NULL last on both engines (SQLite sorts it so by itself;
    the revisions write PostgreSQL's ``NULLS LAST``, ``bot.store.ddl.descending``)."""
    return column.desc().nulls_last()


_OPEN = "status IN ('lobby', 'running')"
_CLOSED = "status IN ('finished', 'stopped')"


def _where(condition: str) -> dict[str, Any]:
    return {"sqlite_where": sa.text(condition), "postgresql_where": sa.text(condition)}


sa.Index("games_one_open_per_channel", games.c.channel_id, unique=True, **_where(_OPEN))
sa.Index("games_status", games.c.status)
sa.Index("games_unsettled", games.c.settled, **_where("settled = 0"))
sa.Index("games_channel_closed", games.c.channel_id, games.c.id, **_where(_CLOSED))
sa.Index("results_channel_user", results.c.channel_id, results.c.user_id)
sa.Index("results_guild_user", results.c.guild_id, results.c.user_id)
sa.Index("results_guild_user_game", results.c.guild_id, results.c.user_id, results.c.game_id)
for _sort, _column in (("wins", "wins"), ("average", "avg_score"), ("exact", "exact_rate")):
    sa.Index(
        f"player_totals_{_sort}",
        player_totals.c.guild_id,
        player_totals.c.channel_id,
        _desc(player_totals.c[_column]),
        _desc(player_totals.c.games),
        player_totals.c.user_id,
    )
sa.Index("ratings_board", ratings.c.guild_id, _desc(ratings.c.ordinal), ratings.c.user_id)
for _sort, _column in (
    ("rating", "ordinal"),
    ("wins", "wins"),
    ("average", "avg_score"),
    ("exact", "exact_rate"),
):
    sa.Index(
        f"period_totals_{_sort}",
        period_totals.c.guild_id,
        period_totals.c.days,
        period_totals.c.channel_id,
        _desc(period_totals.c[_column]),
        _desc(period_totals.c.games),
        period_totals.c.user_id,
    )
sa.Index(
    "period_totals_user",
    period_totals.c.guild_id,
    period_totals.c.user_id,
    period_totals.c.ordinal,
)
sa.Index(
    "player_days_day",
    *(
        player_days.c[name]
        for name in (
            "guild_id",
            "day",
            "channel_id",
            "user_id",
            "games",
            "wins",
            "score_sum",
            "bids_exact",
            "bids",
        )
    ),
)
sa.Index("events_by_guild", events.c.guild_id, events.c.status)
sa.Index(
    "event_tables_by_game",
    event_tables.c.game_id,
    unique=True,
    **_where("game_id IS NOT NULL"),
)
sa.Index("practice_deals_user", practice_deals.c.user_id)
sa.Index("scorepads_channel", scorepads.c.channel_id, scorepads.c.status)
