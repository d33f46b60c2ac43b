"""Screenshots of what one player sees privately after a game (docs/review.md): the review's
totals and a deal's page, a replay step, and a practice deal with a hint; and the channel of a
score pad after a whole game and in the middle of one (docs/scorepad.md). Needs
``simcord[screenshot]`` and a Chromium (see channel_screenshots.py).

    .venv/bin/python benchmarks/review_screenshot.py [--out docs/images] [--width 1000]
        [--language hi]
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

from channel_screenshots import DEFAULT_BROWSER, speak, use_browser  # noqa: E402
from event_load import make_bot  # noqa: E402
from event_screenshot import play  # noqa: E402


async def shoot(env: Any, channel: Any, viewer: Any, path: Path, width: int, height: int) -> None:
    preview = env.preview(
        channel, viewers=[viewer], layout="channel", display="fixed", width=width, height=height
    )
    async with preview:
        await preview.screenshot(
            path, layout="channel", viewport=(width, height), mode="viewport", allow_incomplete=True
        )


async def run(out: Path, width: int, height: int, language: str) -> list[Path]:
    from bot.i18n import language_of, translation

    # Buttons are found by their labels, in the players' language.
    _ = translation(language_of(language)).gettext
    with tempfile.TemporaryDirectory() as tmp:
        env = simcord_env(Path(tmp))
        await env.start()
        try:
            guild = env.create_guild("Kachuful Club")
            played = guild.create_text_channel("cards")
            names = ("Asha", "Bilal", "Chen")
            members = [guild.add_member(env.create_user(name)) for name in names]
            asha = members[0]
            await asha.slash(played, "kachuful start", players=3, max_hand=3, schedule="down")
            for member in members[1:]:
                await member.slash(played, "kachuful join")
            lobby = next(m for m in played.history() if m.components)
            await asha.click(lobby, label=_("Start (host)"))
            await play(env, played, {m.id: m for m in members})
            game_id = env.bot.store and (await env.bot.store.reads.latest_closed_game(played.id)).id
            out.mkdir(parents=True, exist_ok=True)
            paths = []
            # Each private view in a channel of its own, so that each picture shows one.
            for name, steps in (
                ("review-totals", ("review",)),
                ("review-deal", ("review", "Next")),
                ("replay-trick", ("review", "Replay", "Next")),
                ("practice-hint", ("practice", "Hint")),
            ):
                channel = guild.create_text_channel(name)
                if steps[0] == "review":
                    result = await asha.slash(channel, "kachuful review", game=game_id)
                else:
                    result = await asha.slash(channel, "kachuful practice", game=game_id, deal=1)
                message = result.response
                for label in steps[1:]:
                    message = (await asha.click(message, label=_(label))).response
                path = out / f"{name}.png"
                await shoot(env, channel, asha, path, width, height)
                paths.append(path)
            pad = guild.create_text_channel("scorepad")
            await keep_score(pad, members)
            path = out / "scorepad-final.png"
            await shoot(env, pad, asha, path, width, height)
            paths.append(path)
            return paths
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


async def keep_score(channel: Any, members: list[Any]) -> None:
    """A score pad of two deals (2 cards, then 1), every bid and count clicked by its player."""
    asha, bilal, chen = members
    await asha.slash(channel, "kachuful-scorepad", max_hand=2, schedule="down")

    async def click(member: Any, prefix: str, value: int | None = None) -> None:
        message = next(m for m in reversed(channel.history()) if m.embeds)
        for row in message.components:
            for b in row.children:
                cid = b.custom_id or ""
                if cid.startswith(prefix) and (value is None or cid.endswith(f":{value}")):
                    await member.click(message, custom_id=cid)
                    return
        raise AssertionError(prefix)

    await click(bilal, "kf:sj:")
    await click(chen, "kf:sj:")
    await click(asha, "kf:ss:")
    for member, act, value in (
        (bilal, "kf:sb:", 1),
        (chen, "kf:sb:", 0),
        (asha, "kf:sb:", 0),
        (bilal, "kf:st:", 1),
        (chen, "kf:st:", 1),
        (asha, "kf:st:", 0),
        (chen, "kf:sb:", 0),
        (asha, "kf:sb:", 1),
        (bilal, "kf:sb:", 1),
        (asha, "kf:st:", 1),
        (bilal, "kf:st:", 0),
        (chen, "kf:st:", 0),
    ):
        await click(member, act, value)


def simcord_env(folder: Path) -> Any:
    import simcord

    return simcord.Env(make_bot(folder / "k.sqlite3"), settle_timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument(
        "--browser", default=DEFAULT_BROWSER if Path(DEFAULT_BROWSER).exists() else None
    )
    parser.add_argument(
        "--language", default="en-US", help="the server's and every player's Discord locale"
    )
    args = parser.parse_args()
    use_browser(args.browser)
    if args.language != "en-US":
        speak(args.language)
    for path in asyncio.run(run(args.out, args.width, args.height, args.language)):
        print(path)


if __name__ == "__main__":
    main()
