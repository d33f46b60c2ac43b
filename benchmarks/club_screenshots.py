"""Screenshots of the club pages (docs/web.md#club-pages), as a player reads them on a phone
(390 px wide) and on a desktop (1280 px).

Seven members play a three-round duplicate event at tables of three through the real bot in
SimCord, with the bot's web server on loopback; the server's pages are made public
(``/kachuful-club pages:public``) so that a browser needs no login, one game's review is
computed, and Debian's Chromium (headless) captures each page. Emoji need a font that
has them (Debian: fonts-noto-color-emoji), as a player's phone or computer has.

    .venv/bin/python benchmarks/club_screenshots.py [--out docs/images] [--browser PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from channel_screenshots import BROWSER_ARGS, DEFAULT_BROWSER, font_environment  # noqa: E402
from event_screenshot import ACTIONS  # noqa: E402

TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
PHONE = (390, 844)
DESKTOP = (1280, 900)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_bot(db: Path, port: int) -> Any:
    from pydantic import SecretStr

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
        review_games=False,
        web_port=port,
        web_host="127.0.0.1",
        web_base_url=f"http://127.0.0.1:{port}",
        discord_client_id=1234567890123456789,
        discord_client_secret=SecretStr("screenshots"),
        discord_url="http://127.0.0.1:9",  # no login is made: the pages are public
    )
    seeds = iter(range(10**6))

    def new_seed() -> str:
        return hashlib.sha256(f"club-screenshots/{next(seeds)}".encode()).hexdigest()

    return KachufulBot(settings, new_seed=new_seed, post_limit=10_000, hand_delay=0.0)


async def play(env: Any, thread: Any, members: dict[int, Any], pick: int) -> None:
    """The humans of a table click their ``pick``-th legal bid or card (counted from the
    end when negative) until the game ends: the tables of a round play the same cards
    differently, so their travellers differ."""
    hands: dict[int, int] = {}
    while True:
        session = env.bot.tables.open.session_in(thread.id)
        if session is None or session.game is None or session.game.turn is None:
            return
        member = members[session.row.seats[session.game.turn].user_id]
        if member.id not in hands:
            carrier, hand_id = next(
                (m, c.custom_id)
                for m in reversed(thread.history())
                for r in m.components
                for c in r.children
                if (getattr(c, "custom_id", None) or "").startswith("kf:h:")
            )
            hands[member.id] = (await member.click(carrier, custom_id=hand_id)).response.id
        message = next(m for m in thread.history(viewer=member) if m.id == hands[member.id])
        choices = [
            c
            for r in message.components
            for c in r.children
            if not c.disabled and (c.custom_id or "").startswith(ACTIONS)
        ]
        choice = choices[pick if pick < len(choices) else -1] if pick >= 0 else choices[pick]
        await member.click(message, custom_id=choice.custom_id)


async def capture(browser: str, url: str, out: Path, size: tuple[int, int]) -> None:
    with tempfile.TemporaryDirectory() as profile:
        process = await asyncio.create_subprocess_exec(
            browser,
            *BROWSER_ARGS,
            f"--user-data-dir={profile}",
            "--hide-scrollbars",
            f"--window-size={size[0]},{size[1]}",
            f"--screenshot={out}",
            url,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=font_environment(),
        )
        await asyncio.wait_for(process.wait(), 60)
    print(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)


async def run(out: Path, browser: str) -> None:
    import discord
    import simcord

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = simcord.Env(make_bot(Path(tmp) / "k.sqlite3", port), settle_timeout=120)
        await env.start()
        try:
            guild = env.create_guild("Kachuful Club")
            channel = guild.create_text_channel("events")
            mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
            organiser = guild.add_member(env.create_user("Meera"), roles=[mods])
            names = ("Asha", "Bilal", "Chen", "Dara", "Elif", "Farid")
            members = [guild.add_member(env.create_user(name)) for name in names]
            by_id = {m.id: m for m in members}
            await organiser.slash(
                channel,
                "kachuful-event open",
                name="Friday cup",
                format="duplicate",
                rounds=3,
                players=3,
                max_hand=3,
                level="heuristic",
            )
            message = next(m for m in channel.history() if m.components)
            for member in members:
                await member.click(message, label="Register")
            await organiser.slash(channel, "kachuful-event start")
            for number in range(1, 4):
                await env.bot.club.settled_all()
                threads = [t for t in channel.threads if f"round {number} " in (t.name or "")]
                for index, thread in enumerate(sorted(threads, key=lambda t: t.name)):
                    await play(env, thread, by_id, (0, -1, 1)[(index + number) % 3])
            await env.bot.club.settled_all()
            await organiser.slash(channel, "kachuful-club", pages="public")
            row = await env.bot.store.reads.game(1)
            assert row is not None and row.record is not None
            await env.bot.reviewer.review(1, row.record)
            base = f"http://127.0.0.1:{port}/club/{guild.id}"
            pages = {
                "board": base,
                "player": f"{base}/player/{members[0].id}",
                "game": f"{base}/game/1",
                "replay": f"{base}/game/1/replay?step=21",
                "event": f"{base}/event/1",
                "travellers": f"{base}/event/1/round/1",
            }
            out.mkdir(parents=True, exist_ok=True)
            for name, url in pages.items():
                for kind, size in (("phone", PHONE), ("desktop", DESKTOP)):
                    await capture(browser, url, out / f"club-{name}-{kind}.png", size)
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--browser", default=DEFAULT_BROWSER)
    args = parser.parse_args()
    asyncio.run(run(args.out.resolve(), args.browser))


if __name__ == "__main__":
    main()
