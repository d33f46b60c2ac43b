"""A stop signal runs the bot's own shutdown on its running loop, with a deadline."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
import simcord

from bot.__main__ import install_stop_handlers, remove_stop_handlers, run_until_stopped

from .helpers import start_game, world


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
    env = simcord.Env(bot)
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
