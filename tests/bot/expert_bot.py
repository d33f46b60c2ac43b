"""A real bot process with an Expert seat thinking in its worker pool
(tests/bot/table/test_workers.py).

Run as ``python -m tests.bot.expert_bot``, with the bot's settings in the environment
(``KACHUFUL_DB_PATH``, ``KACHUFUL_COMPUTER_WORKERS``...): the bot runs against SimCord (a
simulated Discord, in this process), a member opens a table with two Expert ("search")
computer seats and starts the game, and plays their own turns. SIGTERM stops the bot cleanly
(its own close(), as ``python -m bot`` does), exit status 0.

The Expert seats decide through :func:`deliberate`, in the pool's worker: it says in which
process it thinks (one line on standard error, ``expert thinking in process PID``), then runs
the real search decision over and over for a while, so that a signal the test sends on reading
that line finds the worker in the middle of the search.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

from kachuful_core import SeatView
from kachuful_core.players import Decision, decide

THINKING_LINE = "expert thinking in process"
THINK_SECONDS = 2.0  # under the bot's 5 s decision limit: the decision still counts


def deliberate(level: str, seed: int, view: SeatView) -> Decision:
    if level != "search":
        return decide(level, seed, view)
    os.write(2, f"{THINKING_LINE} {os.getpid()}\n".encode())
    until = time.monotonic() + THINK_SECONDS
    decision = decide(level, seed, view)
    while time.monotonic() < until:
        decision = decide(level, seed, view)
    return decision


async def main() -> None:
    import simcord

    from bot.client import KachufulBot
    from bot.config import Settings
    from bot.table import thinking

    from .helpers import start_game, world

    thinking.decide = deliberate  # type: ignore[attr-defined]
    settings = Settings(
        _env_file=None,
        sync_global=True,
        bot_delay_seconds=0,
        turn_seconds=3600,  # the member always plays their own turn
        lobby_timeout_seconds=3600,
    )
    bot = KachufulBot(settings, post_limit=10_000)
    env = simcord.Env(bot, settle_timeout=30.0)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await env.start()
    channel, (member,) = world(env, "asha")
    table = await start_game(env, channel, [member], computers=2, level="search", max_hand=4)
    while not stop.is_set():
        session = table.session
        if session is None or session.row.status != "running":
            break
        turn = table.game.turn
        if turn is not None and table.member_at(turn) is member:
            await table.act(member)
        else:
            await asyncio.sleep(0.05)
    await stop.wait()
    await bot.close()
    await env.shutdown()
    print("stopped cleanly", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
