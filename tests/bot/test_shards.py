"""Gateway shards in one process: with KACHUFUL_SHARD_COUNT the bot runs discord.py's
AutoShardedBot and serves its shards' servers; after a restart it brings back only its own
shards' tables (another process, on the same database, serves the others)."""

from __future__ import annotations

import hashlib
import itertools
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
import sqlalchemy as sa

from bot import health
from bot.client import KachufulBot, ShardedKachufulBot, create_bot
from bot.config import Settings
from bot.shards import Shards, shard_of
from bot.store.store import Store
from tests.pg import execute_raw

from .helpers import REPO, Table, lobby_message, start_game

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends

Bots = Callable[..., KachufulBot]


@pytest.fixture
async def bots(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[Bots]:
    """Bots on the test's database, with shard settings of their own; their stores are closed
    at the end (SimCord does not close the bot)."""
    made: list[KachufulBot] = []
    count = itertools.count()

    def new_seed() -> str:
        return hashlib.sha256(f"{request.node.nodeid}/{next(count)}".encode()).hexdigest()

    def factory(**shard_settings: Any) -> KachufulBot:
        bot = create_bot(
            settings.model_copy(update=shard_settings),
            new_seed=new_seed,
            post_limit=10_000,
            hand_delay=0.0,
        )
        made.append(bot)
        return bot

    yield factory
    for bot in made:
        store = getattr(bot, "store", None)
        if store is not None:
            await store.close()


def server(env: simcord.Env, shard: int, name: str) -> tuple[Any, list[simcord.MemberActor]]:
    """A server on ``shard`` with a channel and two members."""
    guild = env.create_guild(name, shard_id=shard)
    channel = guild.create_text_channel("cards")
    members = [guild.add_member(env.create_user(f"{name}-{i}")) for i in range(2)]
    return channel, members


def held_by(shards: Shards, guilds: list[int]) -> list[int]:
    """The guilds whose rows ``shards``' process reads (its SQL filter, run in SQLite)."""
    engine = sa.create_engine("sqlite://")
    games = sa.Table("games", sa.MetaData(), sa.Column("guild_id", sa.BigInteger))
    with engine.begin() as db:
        games.create(db)
        db.execute(games.insert(), [{"guild_id": g} for g in guilds])
        rows = db.execute(sa.select(games.c.guild_id).where(shards.condition(games.c.guild_id)))
        return sorted(int(row[0]) for row in rows)


def test_a_process_reads_the_servers_of_its_shards_by_discords_formula() -> None:
    # (guild_id >> 22) % count: the shard Discord delivers the server's events on.
    guild = (123 << 22) | 0x3FFFFF  # the low 22 bits (worker, process, counter) do not count
    assert shard_of(guild, 4) == 123 % 4 == 3
    assert held_by(Shards(4, frozenset({2, 3})), [guild]) == [guild]
    assert held_by(Shards(4, frozenset({0, 1})), [guild]) == []
    assert held_by(Shards(4, None), [guild]) == [guild]  # every shard
    assert held_by(Shards(), [guild]) == [guild]  # unsharded
    guilds = [*range(0, 64 << 22, 1 << 22), (1 << 62) | (5 << 22) | 77]
    held = held_by(Shards(4, frozenset({1})), guilds)
    assert held == [g for g in guilds if shard_of(g, 4) == 1]
    assert [g >> 22 for g in held[:16]] == list(range(1, 64, 4))


def test_without_shard_settings_the_bot_is_not_sharded(bots: Bots) -> None:
    bot = bots()
    assert not isinstance(bot, discord.AutoShardedClient)
    sharded = bots(shard_count=4, shard_ids=(2, 3))
    assert isinstance(sharded, ShardedKachufulBot)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [2, 3])


async def test_a_sharded_bot_serves_a_game_on_each_of_its_shards(bots: Bots) -> None:
    bot = bots(shard_count=2)
    assert isinstance(bot, ShardedKachufulBot)
    async with simcord.run(bot) as env:
        assert sorted(bot.shards) == [0, 1]
        assert bot.is_connected()
        for shard in (0, 1):
            channel, members = server(env, shard, f"club{shard}")
            table = await start_game(env, channel, members, computers=1, max_hand=2)
            assert shard_of(channel.guild.id, 2) == shard
            await table.play_to_end()
            stored = await bot.store.latest_game_in_channel(channel.id)
            assert stored is not None and stored.status == "finished"


async def test_a_restart_on_shard_0_restores_only_shard_0s_tables(bots: Bots) -> None:
    async with simcord.run(bots(shard_count=2)) as env:
        tables: dict[int, Table] = {}
        lobbies: dict[int, Any] = {}
        for shard in (0, 1):
            channel, members = server(env, shard, f"play{shard}")
            tables[shard] = await start_game(env, channel, members, computers=1, max_hand=3)
            first = tables[shard].member_at(tables[shard].game.turn)
            assert first is not None
            await tables[shard].act(first)
            lobby_channel, lobby_members = server(env, shard, f"wait{shard}")
            opened = await lobby_members[0].slash(lobby_channel, "kachuful start")
            assert not opened.ephemeral
            lobbies[shard] = lobby_channel

        shard0 = bots(shard_count=2, shard_ids=(0,))
        assert isinstance(shard0, ShardedKachufulBot)
        await env.restart_bot(shard0)
        assert env.bot is shard0 and sorted(shard0.shards) == [0]
        held = {s.row.channel_id for s in shard0.tables.open.by_id.values()}
        assert held == {tables[0].channel.id, lobbies[0].id}
        # Shard 0's game carries on in the restored process, to the end.
        await tables[0].play_to_end()
        assert tables[0].session is None
        # Shard 1's tables stay as they were in the database: neither restored nor touched.
        other = await shard0.store.open_game_in_channel(tables[1].channel.id)
        assert other is not None and other.status == "running"
        version = other.version
        # Past shard 1's turn clock (90 s): only the process holding a table runs its clock,
        # so the game waits as it was.
        await env.advance_time(300)
        after = await shard0.store.open_game_in_channel(tables[1].channel.id)
        assert after is not None and after.version == version
        waiting = await shard0.store.open_game_in_channel(lobbies[1].id)
        assert waiting is not None and waiting.status == "lobby"

        # The process of every shard brings shard 1's tables back, as they were.
        both = bots(shard_count=2)
        await env.restart_bot(both)
        again = both.tables.open.session_in(tables[1].channel.id)
        assert again is not None and again.row.version == version
        assert both.tables.open.session_in(lobbies[1].id) is not None
        assert lobby_message(lobbies[1]).embeds
        await tables[1].play_to_end()
        # ...and runs their clocks: the lobby left waiting is swept after its timeout (900 s).
        await env.advance_time(1000)
        assert await both.store.open_game_in_channel(lobbies[1].id) is None


async def test_a_damaged_table_is_reported_by_its_own_shards_process_only(
    bots: Bots, settings: Settings
) -> None:
    async with simcord.run(bots(shard_count=2)) as env:
        ids = {}
        for shard in (0, 1):
            channel, members = server(env, shard, f"broken{shard}")
            table = await start_game(env, channel, members, computers=1, max_hand=2)
            ids[shard] = table.session.row.id
        execute_raw(
            settings.database,
            "UPDATE games SET record = '{not json' WHERE id IN (:a, :b)",
            {"a": ids[0], "b": ids[1]},
        )
        shard1 = bots(shard_count=2, shard_ids=(1,))
        await env.restart_bot(shard1)
        assert set(shard1.tables.open.damaged) == {ids[1]}
        assert shard1.tables.open.by_id == {}


def test_each_process_of_some_shards_has_a_heartbeat_of_its_own(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"

    def healthy(**env: str) -> bool:
        done = subprocess.run(
            [sys.executable, "-m", "bot.health"],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "KACHUFUL_DB_PATH": str(db)}
            | env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return done.returncode == 0

    health.heartbeat_path(db, [1, 0]).touch()  # the process of shards 0 and 1 beats
    assert healthy(KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="0,1")
    # ...which says nothing of the process of shards 2 and 3, nor of an unsharded one.
    assert not healthy(KACHUFUL_SHARD_COUNT="4", KACHUFUL_SHARD_IDS="2,3")
    assert not healthy()


async def test_a_finished_game_still_owing_posts_is_published_by_its_own_shard_only(
    bots: Bots, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with simcord.run(bots(shard_count=2)) as env:
        channel, members = server(env, 0, "owing")
        table = await start_game(env, channel, members, computers=1, max_hand=2)
        game_id = table.session.row.id

        async def crashed_before_settling(self: Store, game_id: int) -> None:
            return None

        monkeypatch.setattr(Store, "settle", crashed_before_settling)
        await table.play_to_end()
        monkeypatch.undo()
        posted = len(table.public())
        # As after a crash between the last commit and the final standings' post.
        database = settings.database
        execute_raw(
            database, "DELETE FROM posts WHERE game_id = :id AND key = 'final'", {"id": game_id}
        )

        def settled() -> int:
            rows = execute_raw(
                database, "SELECT settled FROM games WHERE id = :id", {"id": game_id}
            )
            return int(rows[0][0])

        await env.restart_bot(bots(shard_count=2, shard_ids=(1,)))
        await env.settle()
        assert len(table.public()) == posted and settled() == 0  # not shard 1's to publish

        await env.restart_bot(bots(shard_count=2, shard_ids=(0,)))
        await env.settle()
        assert len(table.public()) == posted + 1  # the final standings, owed
        assert settled() == 1
