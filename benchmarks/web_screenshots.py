"""Screenshots of the web table (docs/web.md#the-table), as a player sees it on a phone in
portrait (390 x 844) and on a desktop (1280 x 800), at four moments of a game: the reader's
bid, their turn in the middle of a trick, a deal just over, and the final standings.

The table is the real client served by the real web server (bot/web/server.py: its pages,
assets and content policy), its socket answered with canned views of a four-seat game
(tests/bot/web/fake_table.py), captured by Debian's Chromium (headless).

    .venv/bin/python benchmarks/web_screenshots.py [--out docs/images] [--browser PATH]
        [--moments bidding,trick,over,final]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from channel_screenshots import BROWSER_ARGS, DEFAULT_BROWSER, font_environment  # noqa: E402

from tests.bot.web import fake_table  # noqa: E402

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
MOMENTS = {
    "bidding": fake_table.bidding,
    "trick": fake_table.mid_trick,
    "over": fake_table.deal_over,
    "final": fake_table.finished,
}


async def capture(out: Path, browser_path: str, moments: list[str]) -> list[Path]:
    from playwright.async_api import async_playwright

    made: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=browser_path, args=BROWSER_ARGS, env=font_environment()
        )
        try:
            for moment in moments:
                made += await capture_moment(browser, out, moment)
        finally:
            await browser.close()
    return made


async def capture_moment(browser: Any, out: Path, moment: str) -> list[Path]:
    made = []
    with tempfile.TemporaryDirectory() as tmp:
        table = fake_table.FakeTable(MOMENTS[moment](), Path(tmp))
        await table.start()
        try:
            for size, (width, height) in SIZES.items():
                context = await browser.new_context(viewport={"width": width, "height": height})
                await context.add_cookies([table.cookie()])
                page = await context.new_page()
                await page.goto(table.url)
                await page.wait_for_selector(".seat")
                await page.wait_for_timeout(450)  # the trick's cards have slid in
                path = out / f"web-{moment}-{size}.png"
                await page.screenshot(path=str(path))
                made.append(path)
                await context.close()
        finally:
            await table.close()
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--browser", default=DEFAULT_BROWSER, help="Chromium to launch")
    parser.add_argument("--moments", default=",".join(MOMENTS), help="which moments, by name")
    args = parser.parse_args()
    moments = [name for name in args.moments.split(",") if name]
    unknown = [name for name in moments if name not in MOMENTS]
    if unknown:
        parser.error(f"unknown moments: {', '.join(unknown)} (known: {', '.join(MOMENTS)})")
    started = time.perf_counter()
    made = asyncio.run(capture(args.out, args.browser, moments))
    for path in made:
        print(path)
    print(f"{len(made)} screenshots in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
