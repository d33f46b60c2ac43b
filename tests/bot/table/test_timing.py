"""Computer players pause before they act, so that people can follow."""

from __future__ import annotations

from pathlib import Path

import simcord

from bot.client import KachufulBot
from bot.config import Settings

from ..helpers import start_game, world


async def test_computer_player_waits_the_configured_pause(
    settings: Settings, tmp_path: Path
) -> None:
    slow = settings.model_copy(update={"bot_delay_seconds": 10.0, "db_path": tmp_path / "p.db"})
    bot = KachufulBot(slow, hand_delay=0.0)  # a watcher's pause would move the clock
    try:
        async with simcord.run(bot) as env:
            channel, members = world(env, "asha", "bilal")
            table = await start_game(env, channel, members, computers=1, max_hand=3)
            computer = next(i for i, s in enumerate(table.session.row.seats) if s.user_id is None)
            while table.game.turn != computer:
                await table.act(table.member_at(table.game.turn))
            moves = table.game.move_count
            await env.advance_time(9.5)
            assert table.game.move_count == moves  # still thinking
            await env.advance_time(0.5)
            assert table.game.move_count == moves + 1
            assert table.game.turn != computer
    finally:
        await bot.store.close()
