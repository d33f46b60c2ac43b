"""What a whole game leaves in the channel, and what it costs in Discord requests.

Plays whole games through the real bot in SimCord (every seat a member clicking the first
enabled bid or card of their private hand message, as the bot tests do) and reports:

- public messages left in the channel (and in its thread) at the end, and how many of them
  mention someone;
- messages created, edited and deleted, and REST requests in all, per move;
- the most turn pings the channel ever held at once.

    .venv/bin/python benchmarks/channel_traffic.py          # 3 and 4 players, default hands
    .venv/bin/python benchmarks/channel_traffic.py --players 3 --max-hand 3 --mode compact
    .venv/bin/python benchmarks/channel_traffic.py --quick            # CI smoke run

It uses only the bot's public entry points (``KachufulBot``, ``Settings``) and SimCord, so the
same file can be run against an earlier commit of the bot to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import inspect
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import simcord  # noqa: E402

from bot.client import KachufulBot  # noqa: E402
from bot.config import Settings  # noqa: E402

TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
MENTION = re.compile(r"<@!?\d+>")
ACTIONS = ("kf:b:", "kf:p:", "kf:u:")


def make_bot(db: Path) -> KachufulBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=TOKEN,
        db_path=db,
        sync_global=True,
        bot_delay_seconds=0,
        turn_seconds=3600,
    )
    seeds = iter(range(10**6))

    def new_seed() -> str:
        return hashlib.sha256(f"traffic/{next(seeds)}".encode()).hexdigest()

    options: dict[str, Any] = {"new_seed": new_seed}
    if "post_limit" in inspect.signature(KachufulBot.__init__).parameters:
        options["post_limit"] = 10_000  # pacing is real time in SimCord; counts are the same
    return KachufulBot(settings, **options)


def enabled(message: Any) -> list[Any]:
    found = []
    for row in message.components:
        for child in getattr(row, "children", []):
            if not child.disabled and (child.custom_id or "").startswith(ACTIONS):
                found.append(child)
    return found


def public(channel: Any) -> list[Any]:
    return [m for m in channel.history() if not m.flags.ephemeral]


async def play_game(
    env: simcord.Env, players: int, max_hand: int | None, mode: str
) -> dict[str, Any]:
    guild = env.create_guild(f"Club {players} {mode} {max_hand}")
    channel = guild.create_text_channel("cards")
    members = [guild.add_member(env.create_user(f"p{i}")) for i in range(players)]
    options: dict[str, Any] = {"players": players}
    if max_hand is not None:
        options["max_hand"] = max_hand
    if mode != "trick":
        options["mode"] = mode
    first_request = len(env.http_requests)
    await members[0].slash(channel, "kachuful start", **options)
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    lobby = next(m for m in channel.history() if m.embeds)
    await members[0].click(lobby, label="Start (host)")
    tables = env.bot.tables
    session = tables.open.session_in(channel.id)
    by_id = {m.id: m for m in members}
    hands: dict[int, int] = {}
    moves = 0
    most_pings = 0
    places = [channel]
    while session.row.status == "running":
        places = [channel, *channel.threads]
        member = by_id[session.row.seats[session.game.turn].user_id]
        choices = []
        if member.id in hands:
            hand = next(m for m in channel_messages(places, member) if m.id == hands[member.id])
            choices = enabled(hand)
        if not choices:
            carrier = next(
                m
                for place in reversed(places)
                for m in reversed(public(place))
                if any(
                    getattr(c, "label", "") == "Your hand" for r in m.components for c in r.children
                )
            )
            result = await member.click(carrier, label="Your hand")
            hands[member.id] = result.response.id
            hand = next(m for m in channel_messages(places, member) if m.id == hands[member.id])
            choices = enabled(hand)
        await member.click(hand, custom_id=choices[0].custom_id)
        moves += 1
        pings = sum("🔔" in (m.content or "") for place in places for m in public(place))
        most_pings = max(most_pings, pings)
    await env.advance_time(120)
    requests = env.http_requests[first_request:]
    left = [m for place in places for m in public(place)]
    created = sum(1 for r in requests if r.method == "POST" and r.path.endswith("/messages"))
    return {
        "players": players,
        "max_hand": max_hand,
        "mode": mode,
        "moves": moves,
        "public_messages_left": len(left),
        "left_with_mentions": sum(1 for m in left if MENTION.search(m.content or "")),
        "messages_created": created,
        "messages_edited": sum(
            1 for r in requests if r.method == "PATCH" and "/channels/" in r.path
        ),
        "messages_deleted": sum(1 for r in requests if r.method == "DELETE"),
        "requests_per_move": round(len(requests) / moves, 2),
        "channel_requests_per_move": round(
            sum(1 for r in requests if r.path.startswith("/channels/")) / moves, 2
        ),
        "most_turn_pings_at_once": most_pings,
    }


def channel_messages(places: list[Any], member: Any) -> list[Any]:
    return [m for place in places for m in place.history(viewer=member)]


async def run(games: list[tuple[int, int | None, str]]) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory() as folder:
        bot = make_bot(Path(folder) / "kachuful.sqlite3")
        env = simcord.Env(bot)
        await env.start()
        try:
            for players, max_hand, mode in games:
                results.append(await play_game(env, players, max_hand, mode))
        finally:
            await env.shutdown()
            await bot.store.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--max-hand", type=int, default=None)
    parser.add_argument("--mode", default="trick", choices=("trick", "compact", "thread"))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        games = [(3, 2, "trick"), (3, 2, "compact")]
    else:
        games = [(p, args.max_hand, args.mode) for p in (args.players or [3, 4])]
    for result in asyncio.run(run(games)):
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
