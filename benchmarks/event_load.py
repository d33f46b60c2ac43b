"""What an event costs: the conductor's work per table, and the clicks while many tables of
one event play at once.

An event of ``--tables`` tables of four (``--tables`` × 4 registered members, humans simulated
in SimCord) is opened, started and played through ``--rounds`` rounds by the real bot. The
members of every table click in turn, one click per table round-robin, so all the tables
play at once. The script reports:

- ``seat_round_ms_per_table``: from the organiser's start (or a round's last table ending) to
  every table of the next round running, divided by the tables (thread, game, start);
- ``conductor_ms_per_table``: the conductor's own time (its passes: seating, standings, the
  event's message) over the event, per table played;
- ``click_p50_ms`` / ``click_p99_ms``: the time of a player's click, from the interaction to
  its answer and everything it set off settling, over every click of the event;
- and the same clicks of one casual table played alone, for comparison (``--compare``
  is not needed: both run here, side by side).

    .venv/bin/python benchmarks/event_load.py                 # 20 tables, 2 rounds
    .venv/bin/python benchmarks/event_load.py --quick         # CI smoke run (2 tables)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
ACTIONS = ("kf:b:", "kf:p:", "kf:u:")


def make_bot(db: Path) -> Any:
    from bot.client import KachufulBot
    from bot.config import Settings

    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=TOKEN,
        db_path=db,
        sync_global=True,
        bot_delay_seconds=0,
        turn_seconds=3600,
        computer_workers=0,
    )
    seeds = iter(range(10**6))

    def new_seed() -> str:
        return hashlib.sha256(f"event-load/{next(seeds)}".encode()).hexdigest()

    return KachufulBot(settings, new_seed=new_seed, post_limit=10_000, hand_delay=0.0)


def enabled(message: Any) -> list[Any]:
    return [
        c
        for row in message.components
        for c in row.children
        if not c.disabled and (c.custom_id or "").startswith(ACTIONS)
    ]


class Seat:
    """A member's private hand message at one table."""

    def __init__(self) -> None:
        self.hands: dict[tuple[int, int], int] = {}


async def click_turn(
    env: Any, thread: Any, members: dict[int, Any], hands: dict[Any, int]
) -> float | None:
    """The member to act at this table clicks their first legal bid or card: its time in
    seconds, or None when the table is over."""
    session = env.bot.tables.open.session_in(thread.id)
    if session is None or session.game is None or session.game.turn is None:
        return None
    user_id = session.row.seats[session.game.turn].user_id
    member = members[user_id]
    key = (thread.id, user_id)
    started = time.perf_counter()
    if key not in hands:
        carrier = next(
            m
            for m in reversed(thread.history())
            if any(getattr(c, "label", "") == "Your hand" for r in m.components for c in r.children)
        )
        opened = await member.click(carrier, label="Your hand")
        hands[key] = opened.response.id
        started = time.perf_counter()
    message = next(m for m in thread.history(viewer=member) if m.id == hands[key])
    choice = enabled(message)[0]
    await member.click(message, custom_id=choice.custom_id)
    return time.perf_counter() - started


async def run(tables: int, rounds: int, max_hand: int) -> dict[str, Any]:
    import discord
    import simcord

    with tempfile.TemporaryDirectory() as tmp:
        env = simcord.Env(make_bot(Path(tmp) / "k.sqlite3"), settle_timeout=120)
        await env.start()
        try:
            guild = env.create_guild("Club")
            channel = guild.create_text_channel("events")
            mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
            organiser = guild.add_member(env.create_user("Org"), roles=[mods])
            members = [guild.add_member(env.create_user(f"P{i}")) for i in range(tables * 4)]
            by_id = {m.id: m for m in members}
            await organiser.slash(
                channel,
                "kachuful-event open",
                name="Load",
                rounds=rounds,
                players=4,
                max_hand=max_hand,
                level="heuristic",
            )
            message = next(m for m in channel.history() if m.components)
            for member in members:
                await member.click(message, label="Register")
            clicks: list[float] = []
            seat_times: list[float] = []
            conductor = env.bot.club
            started = time.perf_counter()
            await organiser.slash(channel, "kachuful-event start")
            await conductor.settled_all()
            for number in range(1, rounds + 1):
                seat_times.append(time.perf_counter() - started)
                threads = [t for t in channel.threads if f"round {number} " in (t.name or "")]
                assert len(threads) == tables, len(threads)
                hands: dict[Any, int] = {}
                live = list(threads)
                while live:
                    for thread in list(live):
                        took = await click_turn(env, thread, by_id, hands)
                        if took is None:
                            live.remove(thread)
                        else:
                            clicks.append(took)
                started = time.perf_counter()
                await conductor.settled_all()
            played = tables * rounds
            clicks.sort()
            return {
                "tables": tables,
                "rounds": rounds,
                "clicks": len(clicks),
                "seat_round_ms_per_table": round(1000 * statistics.mean(seat_times) / tables, 1),
                "conductor_ms_per_table": round(1000 * conductor.pass_seconds / played, 1),
                "conductor_passes": conductor.passes,
                "click_p50_ms": round(1000 * clicks[len(clicks) // 2], 1),
                "click_p99_ms": round(
                    1000 * clicks[min(len(clicks) - 1, int(len(clicks) * 0.99))], 1
                ),
            }
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


async def casual(max_hand: int) -> dict[str, Any]:
    """One casual table of four, the same game length, played alone: its clicks."""
    import simcord

    with tempfile.TemporaryDirectory() as tmp:
        env = simcord.Env(make_bot(Path(tmp) / "k.sqlite3"), settle_timeout=120)
        await env.start()
        try:
            guild = env.create_guild("Club")
            channel = guild.create_text_channel("cards")
            members = [guild.add_member(env.create_user(f"P{i}")) for i in range(4)]
            await members[0].slash(channel, "kachuful start", players=4, max_hand=max_hand)
            lobby = next(m for m in channel.history() if m.components)
            for member in members[1:]:
                await member.click(lobby, label="Join")
            await members[0].click(lobby, label="Start (host)")
            clicks: list[float] = []
            hands: dict[Any, int] = {}
            by_id = {m.id: m for m in members}
            while (took := await click_turn(env, channel, by_id, hands)) is not None:
                clicks.append(took)
            clicks.sort()
            return {
                "casual_click_p50_ms": round(1000 * clicks[len(clicks) // 2], 1),
                "casual_click_p99_ms": round(
                    1000 * clicks[min(len(clicks) - 1, int(len(clicks) * 0.99))], 1
                ),
            }
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-hand", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a CI smoke run: 2 tables")
    args = parser.parse_args()
    if args.quick:
        args.tables, args.rounds, args.max_hand = 2, 1, 1
    result = asyncio.run(run(args.tables, args.rounds, args.max_hand))
    result.update(asyncio.run(casual(args.max_hand)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
