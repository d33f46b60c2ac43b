"""Results worth coming back to, in the store: the finish transaction, the upgrade from
schema 1, ratings, indexed reads on the read-only connection."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import rating
from bot.model import HISTORY_POST_KEYS, Seat, Table, TableOptions
from bot.store import periods as store_periods
from bot.store import results as store_results
from bot.store.drivers import DATABASE_ERRORS
from bot.store.migrate import newest
from bot.store.reads import SORTS
from bot.store.store import Store
from bot.store.values import DealLine, ResultRow
from kachuful_core import Game, Rules, record_json
from kachuful_core.players import HeuristicPlayer, act
from tests.pg import execute_raw, migrate_raw

GUILD, CHANNEL, OTHER = 10, 20, 21


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
async def store(database: str | Path) -> AsyncIterator[Store]:
    """A new store, once on each backend."""
    opened = await Store.open(database, clock=Clock())
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Store]:
    """A store on SQLite, for what only SQLite has (its query planner's EXPLAIN)."""
    opened = await Store.open(tmp_path / "k.sqlite3", clock=Clock())
    try:
        yield opened
    finally:
        await opened.close()


def played_game(players: int = 3, seed: str = "s") -> Game:
    game = Game.new(
        Rules(players=players, max_hand=3, schedule="down"), seed, players=["A", "B", "C"]
    )
    bots = [HeuristicPlayer(seed=i) for i in range(players)]
    while game.turn is not None:
        act(game, game.turn, bots[game.turn])
    return game


async def finish(
    store: Store,
    results: list[ResultRow],
    *,
    channel: int = CHANNEL,
    names: tuple[str, ...] = ("Asha", "Bilal", "Chen", "Dev"),
    record: str | None = None,
) -> Table:
    seats = [Seat(user_id=r.user_id, name=names[r.seat]) for r in results]
    game = await store.create_game(
        guild_id=GUILD,
        channel_id=channel,
        host_id=1,
        options=TableOptions(),
        max_seats=4,
        seats=seats,
    )
    game.status = "finished"
    game.version = 1
    await store.save_game(game, record=record, results=results)
    return game


def result(seat: int, user: int | None, score: int, won: bool, exact: int = 1) -> ResultRow:
    return ResultRow(seat=seat, user_id=user, score=score, won=won, bids_exact=exact, bids=4)


async def test_finish_updates_aggregates_and_ratings_once(store: Store) -> None:
    await finish(
        store, [result(0, 1, 40, True, 3), result(1, 2, 12, False), result(2, None, 30, False)]
    )
    await finish(store, [result(0, 1, 20, True), result(1, 2, 20, True), result(2, None, 5, False)])
    page = await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, sort="wins")
    assert [(r.user_id, r.name, r.games, r.wins) for r in page.rows] == [
        (1, "Asha", 2, 2),
        (2, "Bilal", 2, 1),
    ]  # the computer is never ranked
    assert page.rows[0].average_score == 30.0 and page.rows[0].best_score == 40
    assert page.rows[0].exact_bid_rate == pytest.approx(4 / 8)
    asha = await store.reads.player_stats(guild_id=GUILD, user_id=1)
    bilal = await store.reads.player_stats(guild_id=GUILD, user_id=2)
    assert asha is not None and bilal is not None
    assert len(asha.trend) == 2 and asha.rating is not None and bilal.rating is not None
    assert asha.rating > bilal.rating  # first, then a shared first: ahead of second, then tie
    assert asha.rating_rank == 1 and bilal.rating_rank == 2
    # The computer's rating is a constant: nothing is stored for it.
    assert await store.reads._all("SELECT user_id FROM ratings ORDER BY user_id") == [(1,), (2,)]
    places = await store.reads._all("SELECT place FROM results ORDER BY game_id, seat")
    assert [row[0] for row in places] == [1, 3, 2, 1, 1, 3]  # the computer's 30 beat 12


async def test_stopped_game_changes_no_board_and_no_rating(store: Store) -> None:
    game = await store.create_game(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=1,
        options=TableOptions(),
        max_seats=4,
        seats=[Seat(user_id=1, name="Asha")],
    )
    game.status = "stopped"
    game.version = 1
    await store.save_game(game)
    page = await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL)
    assert page.rows == [] and page.players == 0
    for period in ("7d", "30d"):
        page = await store.reads.leaderboard(
            guild_id=GUILD, channel_id=CHANNEL, scope="server", period=period
        )
        assert page.rows == [] and page.players == 0
    assert await store.reads._all("SELECT COUNT(*) FROM period_totals") == [(0,)]
    assert await store.reads.player_stats(guild_id=GUILD, user_id=1) is None
    history = await store.reads.history(channel_id=CHANNEL)
    assert [(e.game_id, e.status) for e in history.entries] == [(game.id, "stopped")]
    assert history.entries[0].seats[0].name == "Asha" and history.entries[0].seats[0].score is None


async def test_a_failure_inside_the_finish_counts_the_game_not_at_all(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(store_results, "_rate", broken)
    with pytest.raises(RuntimeError):
        await finish(store, [result(0, 1, 40, True), result(1, 2, 10, False)])
    tables = ("results", "player_totals", "player_days", "ratings", "deal_totals")
    for table in (*tables, "period_totals", "period_windows"):
        assert await store.reads._all(f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    [(status,)] = await store.reads._all("SELECT status FROM games")
    assert status == "lobby"
    monkeypatch.undo()
    await finish(store, [result(0, 1, 40, True), result(1, 2, 10, False)], channel=OTHER)
    page = await store.reads.leaderboard(guild_id=GUILD, channel_id=OTHER)
    assert [r.games for r in page.rows] == [1, 1]


async def test_deal_figures_are_replayed_from_the_record_when_not_given(store: Store) -> None:
    game = played_game()
    assert game.winners is not None
    results = [
        ResultRow(
            seat=s,
            user_id=100 + s,
            score=game.totals[s],
            won=s in game.winners,
            bids_exact=0,
            bids=len(game.deals),
        )
        for s in range(3)
    ]
    await finish(store, results, record=record_json(game))
    stats = await store.reads.player_stats(guild_id=GUILD, user_id=100)
    assert stats is not None
    assert sum(split.deals for split in stats.by_hand_size) == len(game.deals) == 3
    assert {split.key for split in stats.by_hand_size} == {"1", "2", "3"}
    assert sum(split.points for split in stats.by_trump) == game.totals[0]
    zero_deals = sum(1 for d in game.deals if d.bids[0] == 0)
    assert stats.zero_bids == zero_deals


def test_game_results_match_the_table_code_and_carry_the_deals() -> None:
    from bot.results import chart_data, game_results
    from kachuful_core import score_summary

    game = played_game()
    row = Table(
        id=1,
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=1,
        status="finished",
        options=TableOptions(),
        max_seats=3,
        seats=[Seat(1, "Asha"), Seat(2, "Bilal"), Seat(None, "Robo 🤖")],
        created_at=datetime.now(UTC),
        updated_at=datetime.now(UTC),
    )
    full = game_results(row, game)
    summary = score_summary(game)
    scored = [d for d in summary["deals"] if d["scores"] is not None]
    assert [(r.seat, r.user_id, r.score, r.won, r.bids_exact, r.bids) for r in full] == [
        (
            seat,
            row.seats[seat].user_id,
            summary["totals"][seat],
            seat in summary["winners"],
            sum(d["bids"][seat] == d["tricks_won"][seat] for d in scored),
            len(scored),
        )
        for seat in range(3)
    ]
    assert [r.name for r in full] == ["Asha", "Bilal", "Robo 🤖"]
    assert [r.level for r in full] == [None, None, "heuristic"]
    assert all(len(r.deals) == 3 for r in full)
    assert sum(d.points for d in full[0].deals) == game.totals[0]
    names, cumulative = chart_data(row, game)
    assert names[0] == "Asha" and [line[-1] for line in cumulative] == list(game.totals)


async def test_given_deal_lines_are_stored_as_given(store: Store) -> None:
    lines = (
        DealLine(hand_size=3, suit="S", bid=0, tricks=0, points=10),
        DealLine(hand_size=3, suit="S", bid=1, tricks=2, points=0),
        DealLine(hand_size=1, suit=None, bid=0, tricks=1, points=0),
    )
    await finish(
        store,
        [
            ResultRow(seat=0, user_id=1, score=10, won=True, bids_exact=1, bids=3, deals=lines),
            ResultRow(seat=1, user_id=None, score=5, won=False, bids_exact=0, bids=3),
        ],
    )
    stats = await store.reads.player_stats(guild_id=GUILD, user_id=1)
    assert stats is not None
    assert [(s.key, s.deals, s.exact) for s in stats.by_hand_size] == [("1", 1, 0), ("3", 2, 1)]
    assert [(s.key, s.deals, s.points) for s in stats.by_trump] == [("N", 1, 0), ("S", 2, 10)]
    assert (stats.zero_bids, stats.zero_exact) == (2, 1)


async def test_computer_level_sets_the_fixed_opponent(store: Store) -> None:
    weak = rating.rate_game(
        [rating.RatedSeat(10, rating.NEW_PLAYER), rating.RatedSeat(20, None, "random")]
    )
    strong = rating.rate_game(
        [rating.RatedSeat(10, rating.NEW_PLAYER), rating.RatedSeat(20, None, "search")]
    )
    assert weak[1] is None and strong[1] is None
    assert weak[0] is not None and strong[0] is not None
    assert strong[0].mu > weak[0].mu  # losing to a strong computer costs less
    unknown = rating.rate_game(
        [rating.RatedSeat(10, rating.NEW_PLAYER), rating.RatedSeat(20, None, "made-up")]
    )
    default = rating.rate_game(
        [rating.RatedSeat(10, rating.NEW_PLAYER), rating.RatedSeat(20, None, None)]
    )
    assert unknown == default
    assert rating.shown(rating.NEW_PLAYER.ordinal) == 1000


# ---- the upgrade from the previous release ----------------------------------------------------


SCHEMA_ONE_GAMES = (
    "id, guild_id, channel_id, host_id, status, rules, max_seats, seed, record, seats,"
    " message_id, version, created_at, updated_at"
)


def schema_one_database(path: str | Path, finished_record: str) -> None:
    """A database as the previous release left it: only migration 0001, with a running game,
    a stopped one and two finished ones (results written as that release wrote them)."""
    migrate_raw(path, to=1)
    statements: list[tuple[str, dict[str, object]]] = []

    class Raw:
        def execute(self, sql: str, params: dict[str, object]) -> None:
            statements.append((sql, params))

    raw = Raw()
    seats = json.dumps(
        [
            {"user_id": 1, "name": "Asha"},
            {"user_id": 2, "name": "Bilal"},
            {"user_id": None, "name": "Computer"},
        ]
    )
    for game_id, status, record in (
        (1, "finished", finished_record),
        (2, "finished", None),
        (3, "stopped", None),
        (4, "running", '{"format": "kachuful-record/1"}'),
    ):
        raw.execute(
            "INSERT INTO games (id, guild_id, channel_id, host_id, status, rules, max_seats,"
            " seed, record, seats, message_id, version, created_at, updated_at)"
            " VALUES (:id, :guild, :channel, 1, :status, '{}', 3, 'secret', :record, :seats,"
            " :message, 5, :created, :updated)",
            {
                "id": game_id,
                "guild": GUILD,
                "channel": CHANNEL,
                "status": status,
                "record": record,
                "seats": seats,
                "message": 900 + game_id,
                "created": f"2024-01-0{game_id}T10:00:00+00:00",
                "updated": f"2024-01-0{game_id}T11:00:00+00:00",
            },
        )
    for game_id, scores in ((1, (30, 20, 10)), (2, (15, 25, 25))):
        for seat, score in enumerate(scores):
            user = (1, 2, None)[seat]
            raw.execute(
                "INSERT INTO results VALUES (:game, :seat, :guild, :channel, :user, :score,"
                " :won, 1, 5, :finished)",
                {
                    "game": game_id,
                    "seat": seat,
                    "guild": GUILD,
                    "channel": CHANNEL,
                    "user": user,
                    "score": score,
                    "won": int(score == max(scores)),
                    "finished": f"2024-01-0{game_id}T11:00:00+00:00",
                },
            )
    for sql, params in statements:
        execute_raw(path, sql, params)


async def test_a_schema_one_database_upgrades_and_keeps_every_row(database: str | Path) -> None:
    """On either backend: the same migrations upgrade a database of the first release."""
    path = database
    schema_one_database(path, record_json(played_game()))
    before_games = execute_raw(path, f"SELECT {SCHEMA_ONE_GAMES} FROM games ORDER BY id")
    before_results = execute_raw(path, "SELECT * FROM results ORDER BY game_id, seat")
    store = await Store.open(path, clock=Clock())
    try:
        assert await store.schema_version() == newest()
        games = execute_raw(path, f"SELECT {SCHEMA_ONE_GAMES} FROM games ORDER BY id")
        assert games == before_games  # later migrations add columns, change no value
        after = execute_raw(
            path,
            "SELECT game_id, seat, guild_id, channel_id, user_id, score, won, bids_exact,"
            " bids, finished_at FROM results ORDER BY game_id, seat",
        )
        assert after == before_results
        named = execute_raw(path, "SELECT name, place FROM results ORDER BY game_id, seat")
        assert named == [
            ("Asha", 1),
            ("Bilal", 2),
            ("Computer", 3),
            ("Asha", 3),
            ("Bilal", 1),
            ("Computer", 1),
        ]
        running = await store.open_games()
        assert [g.id for g in running[0]] + [r.id for r in running[1]] == [4]
        page = await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, sort="wins")
        assert [(r.name, r.games, r.wins) for r in page.rows] == [("Asha", 2, 1), ("Bilal", 2, 1)]
        asha = await store.reads.player_stats(guild_id=GUILD, user_id=1)
        assert asha is not None and len(asha.trend) == 2 and asha.best_score == 30
        assert sum(s.deals for s in asha.by_hand_size) == 3  # game 1's record was replayed
        # Migration 0005 summed the period totals from the day rows (the clock's day is
        # 2024-01-01; the games finished on 1 and 2 January).
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh and len(kept) == 8  # 2 players x server and channel x 7 and 30 days
        week = await store.reads.leaderboard(
            guild_id=GUILD,
            channel_id=CHANNEL,
            period="7d",
            sort="wins",
            now=datetime(2024, 1, 2, tzinfo=UTC),
        )
        assert [(r.name, r.games, r.wins) for r in week.rows] == [("Asha", 2, 1), ("Bilal", 2, 1)]
        history = await store.reads.history(channel_id=CHANNEL)
        assert [(e.game_id, e.status) for e in history.entries] == [
            (3, "stopped"),
            (2, "finished"),
            (1, "finished"),
        ]
    finally:
        await store.close()
    # Opening again applies nothing and counts nothing twice.
    again = await Store.open(path, clock=Clock())
    try:
        assert await again.migrate() == []
        page = await again.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, scope="server")
        assert [r.games for r in page.rows] == [2, 2]
    finally:
        await again.close()


# ---- reads: indexes, pages, the read-only connection ------------------------------------------


async def test_leaderboard_queries_use_indexes(sqlite_store: Store) -> None:
    store = sqlite_store
    await finish(store, [result(0, 1, 40, True), result(1, 2, 12, False)])
    reads = store.reads
    for scope in ("channel", "server"):
        for sort in SORTS:
            plan = " | ".join(
                await reads.explain(reads.board_sql(scope, sort), (GUILD, CHANNEL, 10, 0))
            )
            steps = plan.split(" | ")
            assert "results" not in plan, plan
            # Nothing is scanned but the page's ten ids (the materialised subquery p).
            assert all(not step.startswith("SCAN") or step == "SCAN p" for step in steps), plan
            if not (scope == "channel" and sort == "rating"):
                # The page is picked in order from a covering index (OFFSET skips entries
                # only); only the ten rows found are sorted again.
                assert any("COVERING INDEX" in step for step in steps), plan
    plan = " | ".join(await reads.explain(reads.HISTORY_SQL, (*HISTORY_POST_KEYS, CHANNEL, 10, 0)))
    assert "games_channel_closed" in plan and "TEMP B-TREE" not in plan, plan
    # In a thread (bot/places.py): its own games and the one whose lobby opened it, found
    # through the channels' index (the thread's and its channel's entries), never a scan of
    # every game; the few found are sorted.
    thread = (*HISTORY_POST_KEYS, CHANNEL + 1, 10, 0, CHANNEL)
    plan = " | ".join(await reads.explain(reads.HISTORY_IN_THREAD_SQL, thread))
    assert "USING INDEX games_channel_closed (channel_id=?)" in plan, plan
    assert "SCAN g" not in plan, plan


async def test_pages_and_the_viewers_own_row(store: Store) -> None:
    for game in range(13):
        await finish(
            store,
            [result(0, 1000 + game, 100 - game, True), result(1, 1, 0, False)],
            names=("P" + str(game), "Asha", "", ""),
        )
    for period in ("all", "30d", "7d"):
        first = await store.reads.leaderboard(
            guild_id=GUILD,
            channel_id=CHANNEL,
            sort="average",
            period=period,
            viewer_id=1,
            now=datetime(2024, 1, 2, tzinfo=UTC),
        )
        assert (first.players, first.pages, len(first.rows)) == (14, 2, 10), period
        assert [r.rank for r in first.rows] == list(range(1, 11))
        assert first.viewer is not None and first.viewer.rank == 14 and first.viewer.name == "Asha"
        second = await store.reads.leaderboard(
            guild_id=GUILD,
            channel_id=CHANNEL,
            sort="average",
            period=period,
            page=1,
            viewer_id=1,
            now=datetime(2024, 1, 2, tzinfo=UTC),
        )
        assert [r.rank for r in second.rows] == [11, 12, 13, 14] and second.viewer is None
        beyond = await store.reads.leaderboard(
            guild_id=GUILD,
            channel_id=CHANNEL,
            sort="average",
            period=period,
            page=9,
            now=datetime(2024, 1, 2, tzinfo=UTC),
        )
        assert beyond.page == 1
    old = await store.reads.leaderboard(
        guild_id=GUILD, channel_id=CHANNEL, period="7d", now=datetime(2024, 3, 1, tzinfo=UTC)
    )
    assert old.rows == [] and old.players == 0


async def test_reads_never_wait_for_the_writer(store: Store) -> None:
    await finish(store, [result(0, 1, 40, True), result(1, 2, 12, False)])
    # The writer is in the middle of a transaction and holds the store's lock.
    async with store._lock:
        await store._db.exec_driver_sql(store._driver.begin_write)
        await store._db.exec_driver_sql("UPDATE games SET version = version + 1")
        page = await asyncio.wait_for(
            store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL), timeout=2
        )
        assert len(page.rows) == 2
        await store._db.exec_driver_sql("ROLLBACK")
    with pytest.raises(DATABASE_ERRORS):
        await store.reads._all("DELETE FROM games")  # the reader cannot write


async def test_the_viewers_rank_is_their_place_in_the_board_order(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.store import reader

    monkeypatch.setattr(reader, "PAGE_SIZE", 3)  # most viewers are then off the first page
    # Ties everywhere: equal wins, equal averages, equal exact rates, equal ratings.
    for game in range(9):
        await finish(
            store,
            [
                result(0, 1 + game % 4, 30 + (game % 3) * 5, True, exact=game % 2),
                result(1, 10 + game % 5, 30, game % 3 == 0, exact=1),
                result(2, 20 + game % 2, 10, False, exact=2),
            ],
            channel=CHANNEL if game % 2 else OTHER,
        )
    for scope in ("channel", "server"):
        for period in ("all", "7d"):
            for sort in SORTS:
                order = []
                page = 0
                while True:
                    board = await store.reads.leaderboard(
                        guild_id=GUILD,
                        channel_id=CHANNEL,
                        scope=scope,
                        period=period,
                        sort=sort,
                        page=page,
                        now=datetime(2024, 1, 2, tzinfo=UTC),
                    )
                    order += [row.user_id for row in board.rows]
                    if page + 1 >= board.pages:
                        break
                    page += 1
                assert len(order) == len(set(order)) == board.players
                for rank, user in enumerate(order, start=1):
                    seen = await store.reads.leaderboard(
                        guild_id=GUILD,
                        channel_id=CHANNEL,
                        scope=scope,
                        period=period,
                        sort=sort,
                        viewer_id=user,
                        now=datetime(2024, 1, 2, tzinfo=UTC),
                    )
                    if rank <= 3:
                        assert seen.viewer is None and seen.rows[rank - 1].user_id == user
                    else:
                        assert seen.viewer is not None and seen.viewer.user_id == user
                        assert seen.viewer.rank == rank, (scope, period, sort, user)


async def test_a_kept_period_ranking_is_dropped_when_a_game_finishes(store: Store) -> None:
    day = datetime(2024, 1, 2, tzinfo=UTC)
    await finish(store, [result(0, 1, 40, True), result(1, 2, 10, False)])
    first = await store.reads.leaderboard(
        guild_id=GUILD, channel_id=CHANNEL, period="7d", sort="wins", now=day
    )
    again = await store.reads.leaderboard(
        guild_id=GUILD, channel_id=CHANNEL, period="7d", sort="wins", now=day
    )
    assert first == again and [r.user_id for r in first.rows] == [1, 2]
    await finish(store, [result(0, 2, 50, True), result(1, 3, 10, False)], channel=OTHER)
    await finish(store, [result(0, 2, 50, True), result(1, 1, 10, False)])
    after = await store.reads.leaderboard(
        guild_id=GUILD, channel_id=CHANNEL, period="7d", sort="wins", now=day
    )
    assert [(r.user_id, r.wins, r.games) for r in after.rows] == [(1, 1, 2), (2, 1, 2)]
    server = await store.reads.leaderboard(
        guild_id=GUILD, channel_id=CHANNEL, scope="server", period="7d", sort="wins", now=day
    )
    assert [(r.user_id, r.wins) for r in server.rows] == [(2, 2), (1, 1), (3, 0)]


async def test_a_computer_seats_level_is_kept_with_its_result(store: Store) -> None:
    seats = [Seat(user_id=1, name="Asha"), Seat(user_id=None, name="Robo 🤖", level="search")]
    game = await store.create_game(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=1,
        options=TableOptions(),
        max_seats=3,
        seats=seats,
    )
    game.status = "finished"
    game.version = 1
    await store.save_game(game, results=[result(0, 1, 10, False), result(1, None, 30, True)])
    rows = await store.reads._all("SELECT seat, level, name FROM results ORDER BY seat")
    assert rows == [(0, None, "Asha"), (1, "search", "Robo 🤖")]
    asha = await store.reads.player_stats(guild_id=GUILD, user_id=1)
    beaten_by_heuristic = rating.rate_game(
        [rating.RatedSeat(10, rating.NEW_PLAYER), rating.RatedSeat(30, None, "heuristic")]
    )[0]
    assert asha is not None and beaten_by_heuristic is not None
    # Losing to the search level costs less than losing to the heuristic one.
    assert asha.rating is not None and asha.rating > beaten_by_heuristic.ordinal


# ---- the period boards: running totals over a sliding window -----------------------------------


async def fresh_period_sums(
    store: Store,
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The kept period totals, and the same summed afresh from the day rows of each window."""
    kept = await store.reads._all(
        "SELECT guild_id, days, channel_id, user_id, games, wins, score_sum, bids_exact, bids,"
        " avg_score, exact_rate, ordinal FROM period_totals"
        " ORDER BY guild_id, days, channel_id, user_id"
    )
    fresh = await store.reads._all(
        "SELECT d.guild_id, w.days, d.channel_id, d.user_id, SUM(d.games), SUM(d.wins),"
        " SUM(d.score_sum), SUM(d.bids_exact), SUM(d.bids),"
        " CAST(SUM(d.score_sum) AS REAL) / SUM(d.games),"
        " CASE WHEN SUM(d.bids) > 0 THEN CAST(SUM(d.bids_exact) AS REAL) / SUM(d.bids) END,"
        " (SELECT ordinal FROM ratings AS r WHERE r.guild_id = d.guild_id"
        "  AND r.user_id = d.user_id)"
        " FROM player_days AS d JOIN period_windows AS w"
        " ON w.guild_id = d.guild_id AND d.day >= w.first_day"
        " GROUP BY d.guild_id, w.days, d.channel_id, d.user_id"
        " ORDER BY d.guild_id, w.days, d.channel_id, d.user_id"
    )
    return kept, fresh


class SettableClock:
    """The store's clock, set by the test (a second later at every call, as Clock)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


async def board_users(
    store: Store, period: str, now: datetime, scope: str = "server", channel: int = CHANNEL
) -> list[tuple[int, int]]:
    page = await store.reads.leaderboard(
        guild_id=GUILD,
        channel_id=channel,
        scope=scope,  # type: ignore[arg-type]
        period=period,  # type: ignore[arg-type]
        sort="wins",
        now=now,
    )
    assert page.players == len(page.rows)
    return sorted((row.user_id, row.games) for row in page.rows)


async def test_a_game_leaves_the_period_boards_when_it_ages_out(database: str | Path) -> None:
    start = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    clock = SettableClock(start)
    store = await Store.open(database, clock=clock)
    try:
        await finish(store, [result(0, 1, 40, True), result(1, 2, 10, False)])  # day 0
        clock.now = start + timedelta(days=5)
        await finish(store, [result(0, 2, 40, True), result(1, 3, 10, False)])  # day 5
        day = start.replace(hour=23)  # reads late on each day
        assert await board_users(store, "7d", day + timedelta(days=6)) == [(1, 1), (2, 2), (3, 1)]
        # Game 0 is 7 days old: gone from the 7-day board, still on the 30-day one.
        assert await board_users(store, "7d", day + timedelta(days=7)) == [(2, 1), (3, 1)]
        assert await board_users(store, "30d", day + timedelta(days=7)) == [
            (1, 1),
            (2, 2),
            (3, 1),
        ]
        # The read found the windows behind (no game finished that day) and had the writer
        # move them on: the board came from the kept totals, which equal a fresh sum.
        windows = await store.reads._all("SELECT days, first_day FROM period_windows ORDER BY days")
        assert windows == [(7, "2024-01-02"), (30, "2023-12-10")]
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh and kept
        clock.now = start + timedelta(days=20)
        await finish(store, [result(0, 3, 40, True), result(1, 4, 10, False)], channel=OTHER)
        # Day 21: game 5 is 16 days old, only game 20 is left in the week.
        assert await board_users(store, "7d", day + timedelta(days=21)) == [(3, 1), (4, 1)]
        assert await board_users(store, "7d", day + timedelta(days=21), "channel") == []
        assert await board_users(store, "7d", day + timedelta(days=21), "channel", OTHER) == [
            (3, 1),
            (4, 1),
        ]
        # 29 days after game 0 it is still in the last 30 days, 30 days after it is not.
        assert await board_users(store, "30d", day + timedelta(days=29)) == [
            (1, 1),
            (2, 2),
            (3, 2),
            (4, 1),
        ]
        assert await board_users(store, "30d", day + timedelta(days=30)) == [
            (2, 1),
            (3, 2),
            (4, 1),
        ]
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh
        # A game finished 31 days after game 0: the finish moves the windows on itself.
        clock.now = start + timedelta(days=31)
        await finish(store, [result(0, 5, 40, True), result(1, 1, 10, False)])
        windows = await store.reads._all("SELECT days, first_day FROM period_windows ORDER BY days")
        assert windows == [(7, "2024-01-26"), (30, "2024-01-03")]
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh
        now = start + timedelta(days=31, hours=1)
        assert await board_users(store, "30d", now) == [(1, 1), (2, 1), (3, 2), (4, 1), (5, 1)]
        assert await board_users(store, "7d", now) == [(1, 1), (5, 1)]
        # A board of a day before the window (a past ``now``) is summed afresh from the day
        # rows: the days from then on, here every game.
        assert await board_users(store, "7d", day + timedelta(days=6)) == [
            (1, 2),
            (2, 2),
            (3, 2),
            (4, 1),
            (5, 1),
        ]
        # Months later nothing is left, and a read on that day empties the kept totals.
        assert await board_users(store, "30d", day + timedelta(days=200)) == []
        assert await store.reads._all("SELECT COUNT(*) FROM period_totals") == [(0,)]
    finally:
        await store.close()


async def test_kept_period_totals_equal_a_fresh_sum(database: str | Path) -> None:
    """Many games over three months, in two channels and two servers, with reads on days
    without games: after each day the kept totals are the sum of their window's day rows, and
    every board (scope, period, sort) is the one summed afresh, viewer ranks included."""
    import random

    from bot.store import reads as stats

    rng = random.Random(9)
    start = datetime(2024, 1, 1, 0, 30, tzinfo=UTC)
    clock = SettableClock(start)
    store = await Store.open(database, clock=clock)
    try:
        for day in range(95):
            if rng.random() < 0.3:
                # A day without games; a read may move the windows on.
                if rng.random() < 0.5:
                    await store.reads.leaderboard(
                        guild_id=GUILD,
                        channel_id=CHANNEL,
                        period="7d",
                        now=start + timedelta(days=day, hours=12),
                    )
                continue
            for game in range(rng.randrange(1, 4)):
                clock.now = start + timedelta(days=day, hours=game * 7)
                users = rng.sample(range(1, 25), 3)
                scores = [rng.randrange(0, 60) for _ in users]
                best = max(scores)
                seats = [
                    result(seat, user, score, score == best, exact=rng.randrange(0, 5))
                    for seat, (user, score) in enumerate(zip(users, scores, strict=True))
                ]
                if rng.random() < 0.2:
                    seats[2] = result(2, None, scores[2], scores[2] == best)
                await finish(store, seats, channel=rng.choice((CHANNEL, OTHER)))
            kept, fresh = await fresh_period_sums(store)
            assert kept == fresh, day
        now = clock.now + timedelta(hours=1)
        viewers = [1, 5, 9, 13, 17, 21]
        for scope in ("channel", "server"):
            for period in ("30d", "7d"):
                days = stats.PERIODS[period]  # type: ignore[index]
                assert days is not None
                since = (now - timedelta(days=days - 1)).date()
                where = (GUILD, 0 if scope == "server" else CHANNEL)
                for sort in SORTS:
                    for viewer in viewers:
                        args = (where, scope, period, sort, 0, viewer)
                        kept_page = await store.reads.leaderboard(
                            guild_id=GUILD,
                            channel_id=CHANNEL,
                            scope=scope,  # type: ignore[arg-type]
                            period=period,  # type: ignore[arg-type]
                            sort=sort,
                            viewer_id=viewer,
                            now=now,
                        )
                        fresh_page = await store.reads._board_period(*args, since)  # type: ignore[arg-type]
                        assert kept_page == fresh_page, (scope, period, sort, viewer)
    finally:
        await store.close()


async def test_period_board_queries_use_indexes(sqlite_store: Store) -> None:
    store = sqlite_store
    await finish(store, [result(0, 1, 40, True), result(1, 2, 12, False)])
    reads = store.reads
    for sort in SORTS:
        plan = " | ".join(await reads.explain(reads.period_board_sql(sort), (GUILD, 0, 7, 10, 0)))
        steps = plan.split(" | ")
        assert "player_days" not in plan and "TEMP B-TREE" in plan, plan  # the page's 10 rows
        assert all(not step.startswith("SCAN") or step == "SCAN p" for step in steps), plan
        assert any(f"COVERING INDEX period_totals_{_INDEX[sort]}" in s for s in steps), plan
        # A NULL key: only the rating and exact-rate columns may hold one.
        for known in (True, False) if sort in ("rating", "exact") else (True,):
            params = (GUILD, 0, 7, 1.0, 3, 5) + (() if known else (9,))
            plan = " | ".join(await reads.explain(reads.period_rank_sql(sort, known), params))
            steps = plan.split(" | ")
            searches = [step for step in steps if step.startswith("SEARCH")]
            assert "TEMP" not in plan and len(searches) == 3, plan
            assert all(not step.startswith("SCAN") or "CONSTANT ROW" in step for step in steps)
            assert all(f"COVERING INDEX period_totals_{_INDEX[sort]}" in s for s in searches)


_INDEX = {"rating": "rating", "wins": "wins", "average": "average", "exact": "exact"}


async def test_moving_the_windows_on_is_not_part_of_the_finish(
    database: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The windows move on after the finish transaction: if that fails, the game is counted
    all the same, and the next period board read moves them on."""
    start = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    clock = SettableClock(start)
    store = await Store.open(database, clock=clock)
    try:
        await finish(store, [result(0, 1, 40, True), result(1, 2, 10, False)])
        clock.now = start + timedelta(days=10)

        def locked(*args: object, **kwargs: object) -> bool:
            raise sqlite3.OperationalError("database is locked")

        monkeypatch.setattr(store_periods, "expire_period", locked)
        await finish(store, [result(0, 3, 40, True), result(1, 2, 10, False)])
        windows = await store.reads._all("SELECT days, first_day FROM period_windows ORDER BY days")
        assert windows == [(7, "2023-12-26"), (30, "2023-12-03")]  # not moved on
        page = await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, sort="wins")
        assert [(r.user_id, r.games) for r in page.rows] == [(1, 1), (3, 1), (2, 2)]
        monkeypatch.undo()
        now = start + timedelta(days=10, hours=1)
        assert await board_users(store, "7d", now) == [(2, 1), (3, 1)]
        assert await board_users(store, "30d", now) == [(1, 1), (2, 2), (3, 1)]
        kept, fresh = await fresh_period_sums(store)
        assert kept == fresh
    finally:
        await store.close()
