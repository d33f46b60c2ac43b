"""A screenshot of an event's standings, as its channel shows them (docs/events.md).

Six members play a two-round rotation event at tables of three through the real bot in
SimCord; the events channel is then captured by SimCord's preview, as a player reading it
would see it. Needs ``simcord[screenshot]`` and a Chromium (see channel_screenshots.py).

    .venv/bin/python benchmarks/event_screenshot.py [--out docs/images] [--width 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from channel_screenshots import DEFAULT_BROWSER, use_browser  # noqa: E402
from event_load import make_bot  # noqa: E402

ACTIONS = ("kf:b:", "kf:p:", "kf:u:")


async def play(env: Any, thread: Any, members: dict[int, Any]) -> None:
    """The humans of a table click their first legal bid or card until the game ends."""
    hands: dict[int, int] = {}
    while True:
        session = env.bot.tables.open.session_in(thread.id)
        if session is None or session.game is None or session.game.turn is None:
            return
        member = members[session.row.seats[session.game.turn].user_id]
        if member.id not in hands:
            # The hand button by its id: its label is in the table's language.
            carrier, hand_id = next(
                (m, c.custom_id)
                for m in reversed(thread.history())
                for r in m.components
                for c in r.children
                if (getattr(c, "custom_id", None) or "").startswith("kf:h:")
            )
            hands[member.id] = (await member.click(carrier, custom_id=hand_id)).response.id
        message = next(m for m in thread.history(viewer=member) if m.id == hands[member.id])
        choice = next(
            c
            for r in message.components
            for c in r.children
            if not c.disabled and (c.custom_id or "").startswith(ACTIONS)
        )
        await member.click(message, custom_id=choice.custom_id)


async def run(out: Path, width: int, height: int) -> Path:
    import discord
    import simcord

    with tempfile.TemporaryDirectory() as tmp:
        env = simcord.Env(make_bot(Path(tmp) / "k.sqlite3"), settle_timeout=120)
        await env.start()
        try:
            guild = env.create_guild("Kachuful Club")
            channel = guild.create_text_channel("events")
            mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
            organiser = guild.add_member(env.create_user("Meera"), roles=[mods])
            names = ("Asha", "Bilal", "Chen", "Dara", "Elif", "Farid")
            members = [guild.add_member(env.create_user(name)) for name in names]
            await organiser.slash(
                channel,
                "kachuful-event open",
                name="Friday cup",
                rounds=2,
                players=3,
                max_hand=3,
                level="heuristic",
            )
            message = next(m for m in channel.history() if m.components)
            for member in members:
                await member.click(message, label="Register")
            await organiser.slash(channel, "kachuful-event start")
            by_id = {m.id: m for m in members}
            for number in (1, 2):
                await env.bot.club.settled_all()
                for thread in [t for t in channel.threads if f"round {number} " in (t.name or "")]:
                    await play(env, thread, by_id)
            await env.bot.club.settled_all()
            out.mkdir(parents=True, exist_ok=True)
            path = out / "event-standings.png"
            preview = env.preview(
                channel,
                viewers=members,
                layout="channel",
                display="fixed",
                width=width,
                height=height,
            )
            async with preview:
                await preview.screenshot(
                    path,
                    layout="channel",
                    viewport=(width, height),
                    mode="viewport",
                    allow_incomplete=True,
                )
            return path
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument(
        "--browser", default=DEFAULT_BROWSER if Path(DEFAULT_BROWSER).exists() else None
    )
    args = parser.parse_args()
    use_browser(args.browser)
    print(asyncio.run(run(args.out, args.width, args.height)))


if __name__ == "__main__":
    main()
