"""Screenshots of what one player sees privately after a game (docs/review.md): the review's
totals and a deal's page, a replay step, and a practice deal with a hint. Needs
``simcord[screenshot]`` and a Chromium (see channel_screenshots.py).

    .venv/bin/python benchmarks/review_screenshot.py [--out docs/images] [--width 1000]
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
from event_screenshot import play  # noqa: E402


async def shoot(env: Any, channel: Any, viewer: Any, path: Path, width: int, height: int) -> None:
    preview = env.preview(
        channel, viewers=[viewer], layout="channel", display="fixed", width=width, height=height
    )
    async with preview:
        await preview.screenshot(
            path, layout="channel", viewport=(width, height), mode="viewport", allow_incomplete=True
        )


async def run(out: Path, width: int, height: int) -> list[Path]:
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
            await asha.click(lobby, label="Start (host)")
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
                    message = (await asha.click(message, label=label)).response
                path = out / f"{name}.png"
                await shoot(env, channel, asha, path, width, height)
                paths.append(path)
            return paths
        finally:
            await env.shutdown()
            store = getattr(env.bot, "store", None)
            if store is not None:
                await store.close()


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
    args = parser.parse_args()
    use_browser(args.browser)
    for path in asyncio.run(run(args.out, args.width, args.height)):
        print(path)


if __name__ == "__main__":
    main()
