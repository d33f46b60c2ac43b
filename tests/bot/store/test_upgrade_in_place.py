"""A database made by the release before the store moved to SQLAlchemy and Alembic (commit
9de2b01, its own numbered SQL files and runner) upgrades in place on the new store, SQLite file
and PostgreSQL database alike, with every row as it was.

The two databases in ``data/`` were written by that release's store
(``data/make_databases.py``, run with its checkout; the PostgreSQL one as ``pg_dump --inserts``):
finished, stopped and running games, results, every aggregate, ratings and their history, deal
figures, period totals, delivered posts, hand messages, channel settings and the bot's state.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from bot.store.migrate import newest
from bot.store.store import Store
from tests.pg import execute_raw

DATA = Path(__file__).parent / "data"
TABLES = (
    "bot_state",
    "channel_settings",
    "deal_totals",
    "games",
    "guild_totals",
    "hand_messages",
    "period_totals",
    "period_windows",
    "player_days",
    "player_totals",
    "posts",
    "rating_history",
    "ratings",
    "results",
    "schema_version",
)
GUILD = 1_100_000_000_000_000_001


OLD_NEWEST = 8  # the schema version of that release


def rows(target: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the old schema, in a fixed order (of ``schema_version``,
    the rows of the old release's migrations; later revisions add theirs)."""
    return {
        table: sorted(
            execute_raw(
                target,
                f"SELECT * FROM {table}"
                + (f" WHERE version <= {OLD_NEWEST}" if table == "schema_version" else ""),
            ),
            key=lambda row: tuple((value is None, str(value)) for value in row),
        )
        for table in TABLES
    }


def old_database(kind: str, tmp_path: Path, pg_url: str | None) -> str | Path:
    if kind == "sqlite":
        path = tmp_path / "kachuful.sqlite3"
        shutil.copyfile(DATA / "main-9de2b01.sqlite3", path)
        return path
    assert pg_url is not None
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute((DATA / "main-9de2b01.postgres.sql").read_text(encoding="utf-8"))
    return pg_url


@pytest.fixture(params=["sqlite", "postgresql"])
def old(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    if request.param == "sqlite":
        return old_database("sqlite", tmp_path, None)
    return old_database("postgresql", tmp_path, request.getfixturevalue("pg_url"))


async def test_a_database_of_the_release_before_upgrades_with_every_row_kept(
    old: str | Path,
) -> None:
    before = rows(old)
    assert len(before["games"]) == 12 and len(before["results"]) == 30
    assert before["period_totals"] and before["posts"] and before["hand_messages"]
    store = await Store.open(old)
    try:
        assert await store.migrate() == []  # adopted, then upgraded at open: nothing left
        assert await store.schema_version() == newest()
        versions = execute_raw(old, "SELECT version FROM schema_version ORDER BY version")
        assert [v for (v,) in versions] == list(range(1, newest() + 1))
        # Read through the new store: the boards, the players, the games.
        board = await store.reads.leaderboard(
            guild_id=GUILD, channel_id=0, scope="server", sort="wins"
        )
        assert board.players == 3 and board.rows[0].games >= 3
        unsettled = await store.unsettled_games()
        assert {game.status for game in unsettled} <= {"finished", "stopped"}
        running = await store.games_with_status("running")
        assert len(running) == 1 and running[0].record is not None
    finally:
        await store.close()
    assert rows(old) == before
    assert execute_raw(old, "SELECT version_num FROM alembic_version") == [(f"{newest():04d}",)]
    # Opened again: the same, nothing applied twice.
    store = await Store.open(old)
    await store.close()
    assert rows(old) == before


async def test_the_upgraded_database_goes_on_like_a_new_one(old: str | Path) -> None:
    """A game finished after the upgrade counts on the boards exactly as on a new database."""
    from tests.bot.store.test_results_store import fresh_period_sums

    store = await Store.open(old)
    try:
        before = await store.reads.player_stats(guild_id=GUILD, user_id=1_300_000_000_000_000_001)
        assert before is not None
        [game] = await store.games_with_status("running")
        game.status, game.version = "finished", game.version + 1
        results = await _results_of(store, game.id, game)
        await store.save_game(game, results=results)
        after = await store.reads.player_stats(guild_id=GUILD, user_id=1_300_000_000_000_000_001)
        assert after is not None and after.games == before.games + 1
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh
    finally:
        await store.close()


async def _results_of(store: Store, game_id: int, game: Any) -> list[Any]:
    from bot.store.values import ResultRow

    return [
        ResultRow(
            seat=seat, user_id=entry.user_id, score=10 * seat, won=seat == 2, bids_exact=1, bids=3
        )
        for seat, entry in enumerate(game.seats)
    ]


def test_the_old_sqlite_file_is_the_old_schema() -> None:
    """The fixture is what that release made: its schema_version rows, no Alembic table."""
    engine = sa.create_engine(f"sqlite:///{DATA / 'main-9de2b01.sqlite3'}?mode=ro")
    try:
        with engine.connect() as conn:
            tables = set(sa.inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert "alembic_version" not in tables and set(TABLES) <= tables
