"""Gateway shards in one process: with KACHUFUL_SHARD_COUNT the bot runs discord.py's
AutoShardedBot and serves its shards' servers; after a restart it brings back only its own
shards' tables (another process, on the same database, serves the others)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
import pytest
import simcord

from bot.client import KachufulBot, ShardedKachufulBot, create_bot
from bot.settings import Settings
from bot.shards import Shards, shard_of

from .helpers import start_game

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


def test_owns_follows_discords_formula() -> None:
    # (guild_id >> 22) % count: the shard Discord delivers the server's events on.
    guild = (123 << 22) | 0x3FFFFF  # the low 22 bits (worker, process, counter) do not count
    assert shard_of(guild, 4) == 123 % 4 == 3
    assert Shards(4, frozenset({2, 3})).owns(guild)
    assert not Shards(4, frozenset({0, 1})).owns(guild)
    assert Shards(4, None).owns(guild)  # every shard
    assert Shards().owns(guild)  # unsharded
    held = [g for g in range(0, 64 << 22, 1 << 22) if Shards(4, frozenset({1})).owns(g)]
    assert [g >> 22 for g in held] == list(range(1, 64, 4))


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
