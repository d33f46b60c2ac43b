"""How far the public table falls behind a fast game, seen from the simulated Discord.

Four members play a whole game through the real bot in SimCord, at Discord's pacing of new
messages (5 per 5 s per channel, the bot's default), each clicking their private hand message
``--gap`` seconds (simulated time) after the previous move. The table is in a channel (modes
``trick`` and ``compact``), in a thread opened from its lobby (``thread``), or an event's table
in its thread (``event``: a one-round event of one table, opened and started by an organiser);
``--mode all`` plays one game in each. Every ``--step`` seconds the channel and its threads
are looked at as a reader sees them, and the script reports:

- ``longest_without_hand_s``: the longest stretch, between the host's Start and the last card,
  in which the newest public message (a turn ping, a one-line text right under the table, is
  not counted) offers no "Your hand" button;
- ``final_lag_s``: how long after the last card the final standings appeared;
- ``caught_up_s``: how long after the last card the last public message was posted;
- the public messages left in the channel, and the messages created.

    .venv/bin/python benchmarks/catch_up.py                        # this checkout
    .venv/bin/python benchmarks/catch_up.py --compare ../other     # and another, side by side
    .venv/bin/python benchmarks/catch_up.py --quick                # CI smoke run
    .venv/bin/python benchmarks/catch_up.py --players 3 --computers 2   # two computer seats
    .venv/bin/python benchmarks/catch_up.py --players 3 --max-hand 3 --gap 0 --mode all \
        --compare /tmp/old      # every mode, this checkout and another, as a Markdown table

It uses only the bot's public entry points (``KachufulBot``, ``Settings``) and SimCord, so it
runs against an earlier checkout of the bot too (``--compare`` runs it there, in a process of
its own).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
ACTIONS = ("kf:b:", "kf:p:", "kf:u:")
HAND = "Your hand"
FINAL_TITLE = "final standings"
MODES = ("trick", "compact", "thread", "event")


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
        return hashlib.sha256(f"catch-up/{next(seeds)}".encode()).hexdigest()

    # The default pacing of new messages (5 in 5 s); watchers' hands redrawn at once.
    return KachufulBot(settings, new_seed=new_seed, hand_delay=0.0)


def labels(message: Any) -> list[str]:
    return [getattr(c, "label", "") for row in message.components for c in row.children]


def enabled(message: Any) -> list[Any]:
    return [
        c
        for row in message.components
        for c in row.children
        if not c.disabled and (c.custom_id or "").startswith(ACTIONS)
    ]


def is_ping(message: Any) -> bool:
    """A turn ping: a line of text mentioning the player to act, with no embed or button."""
    return bool(message.mentions) and not message.embeds and not message.components


class Watcher:
    """Looks at the channel (and its threads) as a reader does, at every step."""

    def __init__(self, env: Any, channel: Any) -> None:
        self.env, self.channel = env, channel
        self.samples: list[tuple[float, bool]] = []  # (time, newest message offers the hand)
        self.final_at: float | None = None
        self.last_post_at = 0.0
        self.seen: set[int] = set()

    def now(self) -> float:
        return float(self.env.now().timestamp())

    def public(self) -> list[Any]:
        places = [self.channel, *self.channel.threads]
        found = [m for p in places for m in p.history() if not m.flags.ephemeral]
        return sorted(found, key=lambda m: m.id)

    def look(self) -> None:
        now = self.now()
        messages = self.public()
        for message in messages:
            if message.id not in self.seen:
                self.seen.add(message.id)
                self.last_post_at = now
        newest = next((m for m in reversed(messages) if not is_ping(m)), None)
        self.samples.append((now, newest is not None and HAND in labels(newest)))
        if self.final_at is None and any(
            FINAL_TITLE in (e.title or "") for m in messages for e in m.embeds
        ):
            self.final_at = now

    def carrier(self) -> Any | None:
        return next((m for m in reversed(self.public()) if HAND in labels(m)), None)

    def longest_without(self, start: float, end: float) -> float:
        longest, since = 0.0, None
        for at, offered in self.samples:
            if at < start or at > end:
                continue
            if not offered and since is None:
                since = at
            elif offered and since is not None:
                longest, since = max(longest, at - since), None
        if since is not None:
            longest = max(longest, end - since)
        return longest


async def wait(env: Any, watcher: Watcher, seconds: float, step: float) -> None:
    left = seconds
    while left > 1e-9:
        await env.advance_time(min(step, left))
        left -= step
        watcher.look()


async def play_game(
    env: Any,
    players: int,
    max_hand: int | None,
    mode: str,
    gap: float,
    step: float,
    computers: int = 0,
) -> dict[str, Any]:
    guild = env.create_guild(f"Club {players} {mode} {max_hand}")
    channel = guild.create_text_channel("cards")
    members = [guild.add_member(env.create_user(f"p{i}")) for i in range(players - computers)]
    by_id = {m.id: m for m in members}
    watcher = Watcher(env, channel)
    if mode == "event":
        started = watcher.now()
        place = await start_event(env, guild, channel, members, players, max_hand)
    else:
        started = await start_table(env, channel, members, players, max_hand, mode, computers)
        place = channel
    watcher.look()
    session = env.bot.tables.open.session_in(place.id)
    hands: dict[int, int] = {}
    moves = 0
    waited_for_hand = 0.0
    while session.row.status == "running":
        user_id = session.row.seats[session.game.turn].user_id
        if user_id is None:  # a computer seat is to act: it does so at once
            await wait(env, watcher, step, step)
            continue
        member = by_id[user_id]
        hand = None
        if member.id in hands:
            hand = next(m for m in channel_messages(watcher, member) if m.id == hands[member.id])
        while hand is None or not enabled(hand):
            carrier = watcher.carrier()
            if carrier is None:  # no public message offers the hand yet: the player waits
                await wait(env, watcher, step, step)
                waited_for_hand += step
                continue
            result = await member.click(carrier, label=HAND)
            hands[member.id] = result.response.id
            hand = next(m for m in channel_messages(watcher, member) if m.id == hands[member.id])
        await member.click(hand, custom_id=enabled(hand)[0].custom_id)
        moves += 1
        watcher.look()
        if session.row.status == "running":
            await wait(env, watcher, gap, step)
    last_card = watcher.now()
    while watcher.final_at is None or watcher.now() - watcher.last_post_at < 30:
        await wait(env, watcher, step, step)
        if watcher.now() - last_card > 900:
            break
    created = [r for r in env.http_requests if r.method == "POST" and r.path.endswith("/messages")]
    return {
        "players": players,
        "computers": computers,
        "max_hand": max_hand,
        "mode": mode,
        "gap_s": gap,
        "moves": moves,
        "game_s": round(last_card - started, 2),
        "longest_without_hand_s": round(watcher.longest_without(started, last_card), 2),
        "final_lag_s": None if watcher.final_at is None else round(watcher.final_at - last_card, 2),
        "caught_up_s": round(watcher.last_post_at - last_card, 2),
        "waited_for_a_hand_button_s": round(waited_for_hand, 2),
        "public_messages_left": len(watcher.public()),
        "messages_created": len(created),
    }


async def start_table(
    env: Any,
    channel: Any,
    members: list[Any],
    players: int,
    max_hand: int | None,
    mode: str,
    computers: int,
) -> float:
    """A casual table: the lobby, its seats taken, then Start; returns when Start was clicked."""
    options: dict[str, Any] = {"players": players}
    if max_hand is not None:
        options["max_hand"] = max_hand
    if mode != "trick":
        options["mode"] = mode
    await members[0].slash(channel, "kachuful start", **options)
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    for _ in range(computers):  # the plain level, acting at once (bot_delay 0)
        from bot.i18n import EN
        from bot.render.words import level_name

        lobby = next(m for m in channel.history() if m.embeds)
        chooser = await members[0].click(lobby, label="Add computer player")
        await members[0].click(chooser.response, label=level_name("heuristic", EN))
    await env.advance_time(6)  # the lobby's posts are not what is measured
    lobby = next(m for m in channel.history() if m.embeds)
    started = float(env.now().timestamp())
    await members[0].click(lobby, label="Start (host)")
    return started


async def start_event(
    env: Any, guild: Any, channel: Any, members: list[Any], players: int, max_hand: int | None
) -> Any:
    """An event of one round and one table, its members registered, started by an organiser
    (Manage Server): the table plays in its thread. Returns the thread."""
    import discord

    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    organiser = guild.add_member(env.create_user("organiser"), roles=[mods])
    options: dict[str, Any] = {"name": "Bench", "rounds": 1, "players": players}
    if max_hand is not None:
        options["max_hand"] = max_hand
    await organiser.slash(channel, "kachuful-event open", level="heuristic", **options)
    message = next(m for m in channel.history() if m.embeds)
    for member in members:
        await member.click(message, label="Register")
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    [thread] = channel.threads
    return thread


def channel_messages(watcher: Watcher, member: Any) -> list[Any]:
    places = [watcher.channel, *watcher.channel.threads]
    return [m for place in places for m in place.history(viewer=member)]


def virtual_pacing(env: Any) -> None:
    """The bot's pause for a free slot (5 new messages in 5 s) runs on the simulated clock
    only, like the players' clicks: SimCord would otherwise let a pause shorter than its
    settling time pass in real time, during a click."""
    from bot.table.publisher import RateLimits

    original = getattr(RateLimits, "_unpaced_wait", RateLimits.wait)

    async def wait(self: Any, channel_id: int, *more: Any) -> None:  # fewer arguments before
        paced = original(self, channel_id, *more)
        await env.external_wait(paced, reason="pacing of new messages")

    RateLimits._unpaced_wait = original  # type: ignore[attr-defined]
    RateLimits.wait = wait  # type: ignore[method-assign]


async def run(
    games: list[tuple[int, int | None, str]], gap: float, step: float, computers: int
) -> list[Any]:
    import simcord

    results = []
    for players, max_hand, mode in games:
        with tempfile.TemporaryDirectory() as folder:
            bot = make_bot(Path(folder) / "kachuful.sqlite3")
            # The score chart is drawn while a step settles: more than SimCord's default 5 s
            # of real time on a busy machine (the figures are in simulated time).
            env = simcord.Env(bot, settle_timeout=60.0)
            virtual_pacing(env)
            await env.start()
            try:
                game = await play_game(env, players, max_hand, mode, gap, step, computers)
                results.append(game)
            finally:
                await env.shutdown()
                await bot.store.close()
    return results


def side_by_side(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The two runs' games as a Markdown table, other → this."""

    def pair(key: str, one: dict[str, Any], two: dict[str, Any]) -> str:
        unit = " s" if key.endswith("_s") else ""
        return f"{one[key]}{unit} → {two[key]}{unit}"

    lines = [
        "| mode | game | final standings after the last card | last post after the last card"
        ' | longest without "Your hand" | messages left |',
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for one, two in zip(before, after, strict=True):
        game = f"{one['players']} seats ({one['computers']} computers), largest hand"
        game += f" {one['max_hand'] or 'default'}, {one['moves']} moves in {one['game_s']} s"
        lines.append(
            f"| {one['mode']} | {game} | {pair('final_lag_s', one, two)}"
            f" | {pair('caught_up_s', one, two)} | {pair('longest_without_hand_s', one, two)}"
            f" | {pair('public_messages_left', one, two)} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--max-hand", type=int, action="append")
    parser.add_argument(
        "--mode",
        action="append",
        choices=(*MODES, "all"),
        help="where the table plays (repeatable; default trick; all: every mode)",
    )
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between moves")
    parser.add_argument("--step", type=float, default=0.05, help="seconds between looks")
    parser.add_argument("--computers", type=int, default=0, help="seats for the computer")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--bot", type=Path, help="run the bot of this checkout")
    parser.add_argument("--compare", type=Path, help="also run the bot of this checkout")
    args = parser.parse_args()
    if args.compare is not None:
        rest = [a for a in sys.argv[1:] if a not in ("--compare", str(args.compare))]
        runs: dict[str, list[dict[str, Any]]] = {}
        for label, checkout in (("other", args.compare), ("this", ROOT)):
            command = [sys.executable, __file__, "--bot", str(checkout.resolve()), *rest]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            runs[label] = [json.loads(line) for line in output.splitlines()]
            for result in runs[label]:
                print(json.dumps({"bot": f"{label} ({checkout})", **result}))
        print(side_by_side(runs["other"], runs["this"]))
        return 0
    sys.path.insert(0, str((args.bot or ROOT).resolve()))
    sizes = args.max_hand or [3, None]
    modes = MODES if "all" in (args.mode or ()) else tuple(args.mode or ("trick",))
    games = [(args.players, size, mode) for mode in modes for size in sizes]
    if args.quick:
        games = [(4, 2, "trick")]
    for result in asyncio.run(run(games, args.gap, args.step, args.computers)):
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
