"""A stop signal runs the bot's own shutdown on its running loop, with a deadline."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import simcord

from bot.__main__ import install_stop_handlers, remove_stop_handlers, run_until_stopped

from ..conftest import SETTLE_SECONDS
from ..helpers import Table, start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


@pytest.mark.one_store("a stop checkpoints the SQLite file's WAL")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_to_a_playing_bot_closes_it_and_checkpoints(
    env: simcord.Env, sig: signal.Signals
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    await table.act(table.member_at(table.game.turn))  # a move: the WAL has frames
    bot = env.bot
    wal = Path(f"{bot.settings.db_path}-wal")
    assert wal.stat().st_size > 0
    closed: list[str] = []
    original = bot.tables.shutdown

    async def shutdown() -> None:
        closed.append("tables")
        await original()

    bot.tables.shutdown = shutdown  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    handled = install_stop_handlers(loop, stop)
    assert set(handled) == {signal.SIGTERM, signal.SIGINT}
    running: asyncio.Future[None] = loop.create_future()  # stands for bot.start()
    try:
        waiting = asyncio.ensure_future(run_until_stopped(bot, running, stop, deadline=8))
        await asyncio.sleep(0)
        os.kill(os.getpid(), sig)
        await asyncio.wait_for(waiting, 10)
    finally:
        remove_stop_handlers(loop, handled)
    assert closed == ["tables"]  # the table manager's shutdown ran ...
    assert bot.is_closed()  # ... and discord.py's close
    assert running.cancelled()
    assert not wal.exists() or wal.stat().st_size == 0  # database closed and checkpointed


async def test_the_heartbeat_file_goes_with_the_bot(make_bot: object, tmp_path: Path) -> None:
    beat = tmp_path / "kachuful.heartbeat"
    beat.touch()  # left by a previous run
    bot = make_bot()  # type: ignore[operator]
    bot.heartbeat_file = beat
    env = simcord.Env(bot, settle_timeout=SETTLE_SECONDS)
    await env.start()
    try:
        assert not beat.exists()  # not healthy until this run has beaten
        assert await bot.beat(beat)
        await bot.close()
        assert not beat.exists()
    finally:
        await env.shutdown()


async def test_a_shutdown_that_hangs_is_given_up_after_the_deadline(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    bot = env.bot

    async def hangs() -> None:
        await asyncio.sleep(3600)

    bot.tables.shutdown = hangs  # type: ignore[method-assign]
    stop = asyncio.Event()
    stop.set()
    running: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()
    began = loop.time()
    await run_until_stopped(bot, running, stop, deadline=0.2)
    assert loop.time() - began < 2
    assert running.cancelled()
    assert "shutdown did not finish within" in caplog.text


@pytest.mark.paced
async def test_a_stop_delivers_what_a_game_that_just_ended_owes(
    env: simcord.Env, virtual_pacing: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A game ends, a new one opens in the same channel, and SIGTERM comes at once: the
    ended game's last posts (its final standings) are in the channel before the bot is closed,
    and the stop logs no error."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=1)
    await table.play_to_end()  # faster than 5 new messages in 5 s: the channel is behind
    assert not final_standings(table)  # still owed
    opened = await members[0].slash(channel, "kachuful start", players=3)
    assert not opened.ephemeral  # the channel is free for a new game
    caplog.clear()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    handled = install_stop_handlers(loop, stop)
    running: asyncio.Future[None] = loop.create_future()  # stands for bot.start()
    try:
        waiting = asyncio.ensure_future(run_until_stopped(env.bot, running, stop, deadline=8))
        await asyncio.sleep(0)
        os.kill(os.getpid(), signal.SIGTERM)
        await env.advance_time(10)  # the stop waits for free slots, as the bot paces its posts
        await asyncio.wait_for(waiting, 10)
    finally:
        remove_stop_handlers(loop, handled)
    assert env.bot.is_closed()
    assert len(final_standings(table)) == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def final_standings(table: Table) -> list[Any]:
    return [m for m in table.public() for e in m.embeds if "final standings" in (e.title or "")]
