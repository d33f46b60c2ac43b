"""The real client (bot/web/static) against the real socket (bot/web/live.py) in Debian's
chromium: three players tap their bids and cards against a computer player to the end of a
short game. The client's own browser tests use canned views (test_table_browser.py); this one
checks the contract between the two sides. (No Discord click here: SimCord waits before each
click for every task of the bot, and Chromium keeps idle connections open to the web server.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import simcord

from bot.web.server import SESSION_COOKIE
from bot.web.sessions import Identity

from .conftest import base_of
from .test_live_table import check_privacy, seat_web_players
from .test_table_browser import ARGS, CHROMIUM

pytestmark = pytest.mark.xdist_group("browser")


def newer(version: int) -> Callable[[dict[str, Any]], bool]:
    """A view of the table after the move counter ``version``."""
    return lambda frame: frame["t"] == "view" and frame["version"] > version


async def test_three_browsers_play_a_game_on_the_real_socket(
    live_env: simcord.Env, oauth: Any
) -> None:
    from playwright.async_api import async_playwright

    assert os.path.exists(CHROMIUM), "install Debian's chromium: apt-get install -y chromium"
    env = live_env
    table, _, sockets = await seat_web_players(env, oauth, "asha", "bilal", "chen", web=3)
    await env.settle()
    web = env.bot.web
    assert web is not None
    base, table_id = base_of(env.bot.settings), table.session.row.id
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pages: dict[int, Any] = {}
            for user_id, player in sockets.items():
                context = await browser.new_context(viewport={"width": 390, "height": 844})
                token = web.sessions.issue(Identity(user_id, player.name))
                await context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": base}])
                page = await context.new_page()
                page.on("pageerror", lambda error: errors.append(str(error)))
                await page.goto(f"{base}/table/{table_id}")
                await page.wait_for_selector(".seat")
                pages[user_id] = page
            taps = 0
            while (session := table.session) is not None and session.row.status == "running":
                user = session.row.seats[session.game.turn].user_id
                version = session.row.version
                watcher = sockets[user] if user in pages else next(iter(sockets.values()))
                if user not in pages:  # the computer plays by itself
                    await watcher.wait(newer(version))
                    continue
                for attempt in range(3):
                    # A tap on a page a moment behind the table is refused (nothing changes):
                    # the player taps again on the page as it is now.
                    tap = pages[user].locator(".bids button, .hand button:not([disabled])")
                    await tap.first.click()
                    taps += 1
                    try:
                        await watcher.wait(newer(version), timeout=5)
                        break
                    except TimeoutError:
                        assert attempt < 2, "the page's taps change nothing"
                assert taps < 100
            for page in pages.values():
                assert await page.locator(".seat").count() == 4
        finally:
            await browser.close()
    stored = await env.bot.store.latest_game_in_channel(table.channel.id)
    assert stored is not None and stored.status == "finished" and taps > 10
    assert errors == []
    for player in sockets.values():
        assert player.view["phase"] == "finished"
        check_privacy(player, stored.record)
        await player.close()
