"""Channel screenshots: the real bot in SimCord, one whole game per presentation mode, as PNGs.

A by-hand script for looking at what a table looks like in Discord (not a test, not run in
CI). For each ``mode`` of ``/kachuful start`` ("trick", "compact", "thread") it opens a table
in its own channel of one simulated guild (``--players`` members from asha, bilal, chen, dev,
...; ``--max-hand`` cards at most, 3 by default, ``--length quick`` for the quick game),
plays the whole game through SimCord's clicks, and saves SimCord preview captures (channel
layout, dark theme: SimCord's only theme, a tall 1000x2400 viewport by default):

* ``<mode>-0-lobby.png``: the lobby, everyone seated, before Start;
* ``<mode>-1-start.png``: the channel just after the host started the game;
* ``<mode>-2-mid-deal.png``: during the first trick of deal 2 (after its first card);
* ``<mode>-3-hand-<name>.png``: the private hand message of the player to act then, as that
  player sees it (message layout: the hand message alone);
* ``<mode>-4-end.png``: after the game (final standings).

Channel captures are as asha (the host) sees the channel: her own ephemeral replies show.
In thread mode the game plays in a thread: each moment is captured twice, ``thread-*-channel``
(the parent channel: the lobby, which names the winner at the end) and ``thread-*-thread``
(the thread, which ends with the final standings).
After the games, the host's answers to ``/kachuful stats``, ``leaderboard``, ``history`` and
``help`` are captured as ``answer-stats.png``, ``answer-leaderboard.png``,
``answer-history.png``, ``answer-help.png``.

Setup (not in pyproject: Playwright is only needed here)::

    .venv/bin/pip install 'simcord[screenshot]'     # Playwright for Python, SimCord's preview
    apt-get install -y chromium                      # or: .venv/bin/playwright install chromium

SimCord launches Playwright's own Chromium. Where that cannot be downloaded, ``--browser``
(default: /usr/bin/chromium when it exists) names a system Chromium to launch instead.

Run::

    .venv/bin/python benchmarks/channel_screenshots.py [--out DIR] [--width W] [--height H]

It prints the path of every PNG written (default folder /tmp/kachuful-shots).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import functools
import hashlib
import itertools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
MODES = ("trick", "compact", "thread")
NAMES = ("asha", "bilal", "chen", "dev", "esha", "farid", "gita")
ACTION_PREFIXES = ("kf:b:", "kf:p:", "kf:u:")
DEFAULT_BROWSER = "/usr/bin/chromium"
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# ---- the browser -----------------------------------------------------------------------------


@functools.cache
def font_environment() -> dict[str, str]:
    """The browser's environment, with the bot's bundled Devanagari font added to fontconfig.
    A player's phone or computer has a Devanagari font; this machine may have none, and the
    captures would then show boxes where a code block (the score table) writes Hindi. One
    configuration for every browser the script launches, removed when it ends."""
    fonts = Path(__file__).resolve().parents[1] / "bot" / "render" / "fonts"
    folder = tempfile.mkdtemp(prefix="kachuful-fonts-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    config = Path(folder) / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<dir>{fonts}</dir></fontconfig>",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(config)}


def use_browser(executable: str | None) -> None:
    """Make SimCord's managed capture launch ``executable`` (a system Chromium) instead of
    Playwright's downloaded one. SimCord has no option for this: its private
    ``ManagedCapture._ensure_browser`` is replaced (SimCord 3.2)."""
    if executable is None:
        return
    from simcord.preview._capture import ManagedCapture

    async def _ensure_browser(self: Any) -> Any:
        if self._browser is not None:
            return self._browser
        from playwright.async_api import async_playwright

        try:
            self._playwright = await async_playwright().start()
            self._browser = await self._playwright.chromium.launch(
                executable_path=executable, args=BROWSER_ARGS, env=font_environment()
            )
        except BaseException:
            await self.close()
            raise
        return self._browser

    ManagedCapture._ensure_browser = _ensure_browser  # type: ignore[method-assign]


# ---- a table, driven like players do (as tests/bot/helpers.py) ---------------------------------


def buttons(message: Any) -> list[Any]:
    return [child for row in message.components for child in getattr(row, "children", [])]


class Table:
    def __init__(self, env: Any, channel: Any, members: list[Any]) -> None:
        self.env = env
        self.channel = channel  # where the game posts: the thread in thread mode
        self.members = {m.id: m for m in members}
        self.hand_ids: dict[int, int] = {}

    @property
    def session(self) -> Any:
        return self.env.bot.tables.open.session_in(self.channel.id)

    @property
    def game(self) -> Any:
        return self.session.game

    @property
    def running(self) -> bool:
        return self.session is not None and self.session.row.status == "running"

    def member_to_act(self) -> Any:
        seat = self.game.turn
        assert seat is not None, "no one to act in a running game"
        user_id = self.session.row.seats[seat].user_id
        return self.members[user_id]

    def message(self, message_id: int, viewer: Any) -> Any:
        for message in self.channel.history(viewer=viewer):
            if message.id == message_id:
                return message
        raise AssertionError(f"message {message_id} not visible to {viewer.name}")

    async def open_hand(self, member: Any) -> Any:
        public = [m for m in self.channel.history() if not m.flags.ephemeral]
        # By the button's id: its label is in the table's language.
        latest = next(m for m in reversed(public) if any(is_hand_button(b) for b in buttons(m)))
        hand = next(b for b in buttons(latest) if is_hand_button(b))
        result = await member.click(latest, custom_id=hand.custom_id)
        assert result.ephemeral and result.response is not None
        self.hand_ids[member.id] = result.response.id
        return self.message(result.response.id, member)

    def hand(self, member: Any) -> Any:
        return self.message(self.hand_ids[member.id], member)

    async def act(self, member: Any) -> None:
        """Click the first enabled bid or card on the member's hand message."""
        if member.id not in self.hand_ids:
            await self.open_hand(member)
        message = self.hand(member)
        choices = [
            b
            for b in buttons(message)
            if not b.disabled and (b.custom_id or "").startswith(ACTION_PREFIXES)
        ]
        assert choices, f"{member.name}'s hand message has no enabled bid or card"
        result = await member.click(message, custom_id=choices[0].custom_id)
        assert result.acknowledged

    async def play_until(self, stop: Callable[[Table], bool], max_actions: int = 2000) -> None:
        for _ in range(max_actions):
            if not self.running or stop(self):
                return
            await self.act(self.member_to_act())
        raise AssertionError("the game did not end")


def first_trick_of_deal_2(table: Table) -> bool:
    """Deal 2, its first trick: a card on the table when the deal has three cards or more;
    with fewer, the moment its leader is to play (after the lead the other cards may all be
    forced and play themselves, so no later moment of the trick is sure to be seen)."""
    from kachuful_core import Phase

    game = table.game
    return (
        game.deal_number == 2
        and game.phase is Phase.PLAYING
        and sum(game.tricks_won) == 0
        and game.turn is not None
        and len(game.current_trick) >= (1 if game.hand_size >= 3 else 0)
    )


# ---- captures --------------------------------------------------------------------------------


class Shooter:
    def __init__(self, env: Any, members: list[Any], out: Path, size: tuple[int, int]) -> None:
        self.env = env
        self.members = members
        self.out = out
        self.size = size
        self.paths: list[Path] = []

    async def shoot(
        self,
        channel: Any,
        name: str,
        *,
        viewer: Any = None,
        target: Any = None,
        layout: str = "channel",
    ) -> Path:
        path = self.out / f"{name}.png"
        width, height = self.size
        preview = self.env.preview(
            channel,
            viewers=self.members,
            layout=layout,
            display="fixed",
            width=width,
            height=height,
        )
        async with preview:
            capture = await preview.screenshot(
                path,
                viewer=viewer,
                target=target,
                layout=layout,
                viewport=self.size,
                mode="viewport" if layout == "channel" else "surface",
                allow_incomplete=True,
            )
        notes = sorted({str(d.get("code")) for d in capture.diagnostics})
        extra = f"  (incomplete: {', '.join(notes)})" if not capture.complete else ""
        print(f"{path}  {capture.output_width}x{capture.output_height}{extra}", flush=True)
        self.paths.append(path)
        return path


async def shoot_moment(shooter: Shooter, places: dict[str, Any], stem: str) -> None:
    for suffix, channel in places.items():
        await shooter.shoot(channel, stem + suffix)


def is_hand_button(button: Any) -> bool:
    return (button.custom_id or "").startswith("kf:h:")


def speak(locale: str) -> None:
    """SimCord sends every interaction as "en-US"; here every player's client and the server
    speak ``locale``."""
    import simcord.interactions as sim_interactions

    original = sim_interactions.base_payload

    def base_payload(backend: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        record, payload = original(backend, **kwargs)
        payload["locale"] = locale
        payload["guild_locale"] = locale
        return record, payload

    sim_interactions.base_payload = base_payload


async def play_mode(
    env: Any, guild: Any, members: list[Any], mode: str, shooter: Shooter, options: dict[str, Any]
) -> Any:
    channel = guild.create_text_channel(f"cards-{mode}")
    host = members[0]
    started = await host.slash(
        channel, "kachuful start", players=len(members), mode=mode, **options
    )
    assert not started.ephemeral, started.response and started.response.content
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    await shooter.shoot(channel, f"{mode}-0-lobby")
    lobby = next(m for m in channel.history() if not m.flags.ephemeral and m.embeds)
    start = next(b for b in buttons(lobby) if (b.custom_id or "").startswith("kf:l:start:"))
    await host.click(lobby, custom_id=start.custom_id)

    places: dict[str, Any] = {"": channel}
    table_channel = channel
    if mode == "thread":
        [thread] = channel.threads
        places = {"-channel": channel, "-thread": thread}
        table_channel = thread
    table = Table(env, table_channel, members)
    assert table.running, f"{mode}: the game did not start"

    await shoot_moment(shooter, places, f"{mode}-1-start")
    await table.play_until(first_trick_of_deal_2)
    assert table.running and first_trick_of_deal_2(table), f"{mode}: deal 2 not reached"
    await shoot_moment(shooter, places, f"{mode}-2-mid-deal")
    player = table.member_to_act()
    if player.id not in table.hand_ids:
        await table.open_hand(player)
    await shooter.shoot(
        table_channel,
        f"{mode}-3-hand-{player.name}",
        viewer=player,
        target=table.hand_ids[player.id],
        layout="message",
    )
    await table.play_until(lambda _table: False)
    await env.advance_time(60)  # what the bot posts or tidies a while after the game
    await shoot_moment(shooter, places, f"{mode}-4-end")
    return channel


async def shoot_answers(channel: Any, host: Any, shooter: Shooter) -> None:
    """The host's answers to the results commands and help, each alone (stats and help are
    private, the leaderboard public)."""
    for command in ("stats", "leaderboard", "history", "help"):
        answer = await host.slash(channel, f"kachuful {command}")
        assert answer.response is not None, command
        await shooter.shoot(
            channel, f"answer-{command}", viewer=host, target=answer.response.id, layout="message"
        )


async def run(
    out: Path,
    size: tuple[int, int],
    modes: list[str],
    players: int,
    options: dict[str, Any],
    language: str = "en-US",
) -> list[Path]:
    import simcord

    from bot.client import KachufulBot
    from bot.config import Settings

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kachuful-shots-") as temporary:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            discord_token=FAKE_TOKEN,
            db_path=Path(temporary) / "data" / "kachuful.sqlite3",
            sync_global=True,
            bot_delay_seconds=0,
            turn_seconds=90,
            lobby_timeout_seconds=900,
            # No review at a game's end: it would run in a worker process, which SimCord's
            # virtual clock cannot wait on, and it is not what these captures show.
            review_games=False,
        )
        count = itertools.count()

        def new_seed() -> str:  # fixed seeds: the same deals every run
            return hashlib.sha256(f"channel_screenshots/{next(count)}".encode()).hexdigest()

        bot = KachufulBot(settings, new_seed=new_seed, post_limit=10_000)
        # A score chart is drawn in the clicks' settling: on a busy machine it takes more than
        # SimCord's default 5 s.
        env = simcord.Env(bot, settle_timeout=60.0)
        await env.start()
        try:
            guild = env.create_guild("Kachuful Club", preferred_locale=language)
            speak(language)
            members = [guild.add_member(env.create_user(name)) for name in NAMES[:players]]
            shooter = Shooter(env, members, out, size)
            channel = None
            for mode in modes:
                channel = await play_mode(env, guild, members, mode, shooter, options)
            if channel is not None:
                await shoot_answers(channel, members[0], shooter)
        finally:
            await env.shutdown()
            store = getattr(bot, "store", None)
            if store is not None:
                await store.close()
    return shooter.paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/kachuful-shots"))
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=2400)
    parser.add_argument("--mode", choices=MODES, action="append", help="default: all three")
    parser.add_argument("--players", type=int, default=3, choices=range(3, 8))
    parser.add_argument("--max-hand", type=int, default=None, help="default: 3 (no --length)")
    parser.add_argument("--length", choices=("quick", "classic", "full"), default=None)
    parser.add_argument(
        "--language", default="en-US", help="the server's and every player's Discord locale"
    )
    parser.add_argument(
        "--browser",
        default=DEFAULT_BROWSER if Path(DEFAULT_BROWSER).exists() else None,
        help="Chromium executable to launch (default: /usr/bin/chromium if present, "
        "else Playwright's own browser)",
    )
    args = parser.parse_args(argv)
    if args.browser is not None and not (Path(args.browser).exists() or shutil.which(args.browser)):
        parser.error(f"no browser at {args.browser}")
    use_browser(args.browser)
    options: dict[str, Any] = {}
    if args.length is not None:
        options["length"] = args.length
    if args.max_hand is not None or args.length is None:
        options["max_hand"] = args.max_hand or 3
    modes = args.mode or list(MODES)
    paths = asyncio.run(
        run(args.out, (args.width, args.height), modes, args.players, options, args.language)
    )
    print(f"{len(paths)} PNGs in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
