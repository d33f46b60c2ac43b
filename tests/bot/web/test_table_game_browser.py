"""The web table in real browsers against the real bot (bot/web/live.py): two players tap
their bids and cards in Chromium, a third clicks in Discord, beside a computer player; a
whole short game to its final standings, the pages in step with the record. Then a restart
of the bot mid-game, the pages reconnecting by themselves."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import simcord
from aiohttp import web

from kachuful_core import load_game, score_summary

from ..helpers import Table, start_game, world
from .conftest import base_of
from .test_activity import instances  # noqa: F401 (a fixture)
from .test_table_browser import ARGS, CHROMIUM, PHONE

pytestmark = pytest.mark.xdist_group("browser")


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def open_page(browser: Any, base: str, table_id: int, member: Any) -> Any:
    """A phone's browser: the Discord login (the stand-in's page, approved as ``member``),
    then back on the table."""
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(f"{base}/login?next=/table/{table_id}")
    await page.click(f"#as-{member.id}")
    await page.wait_for_selector(".seat")
    return page


async def shown_version(page: Any) -> int:
    return int(await page.evaluate("window.kachuful.table.view.version"))


async def tap_turn(page: Any, version: int) -> None:
    """The page, once it shows ``version``, taps its first bid or its first playable card."""
    await page.wait_for_function("(v) => window.kachuful.table.view.version === v", arg=version)
    target = page.locator(".bids button:enabled, .hand button.legal:enabled").first
    await target.click()
    await page.wait_for_function("(v) => window.kachuful.table.view.version > v", arg=version)


async def play_out(
    env: simcord.Env, table: Table, pages: dict[int, Any], discord: Any, turns: int = 200
) -> int:
    """Each seat to act plays (a browser by a tap, Discord by a click; the computer by
    itself) until the game ends, or for ``turns`` turns; the browsers' taps."""
    taps = 0
    for _ in range(turns):
        await env.settle()
        session = table.session
        if session is None or session.row.status != "running":
            return taps
        user = session.row.seats[session.game.turn].user_id
        if user in pages:
            await tap_turn(pages[user], session.row.version)
            taps += 1
        else:
            member = next(m for m in discord if m.id == user)
            assert (await table.act(member)).acknowledged
    if turns == 200:
        raise AssertionError("the game did not end")
    return taps


@pytest.fixture
def browser_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> simcord.Env:
    """The bot with its web table (live_env), whose answers to a browser's requests close
    their connection: a browser keeps an idle connection open for its next request, which
    SimCord would wait for before settling. The sockets are declared by live_env."""
    from bot.web.server import WebServer

    headers = WebServer._headers

    @web.middleware
    async def closing(self: WebServer, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response = await headers(self, request, handler)
        except web.HTTPException as error:  # a redirect, a missing favicon
            error.force_close()
            raise
        if not isinstance(response, web.WebSocketResponse):
            response.force_close()
        return response

    monkeypatch.setattr(WebServer, "_headers", closing)
    env: simcord.Env = request.getfixturevalue("live_env")
    return env


async def test_a_whole_game_tapped_in_two_browsers(browser_env: simcord.Env, oauth: Any) -> None:
    env = browser_env
    channel, members = world(env, "asha", "bilal", "chen")
    for member in members:
        oauth.add_user(member.id, member.name)
    table = await start_game(env, channel, members, computers=1, players=4, max_hand=2)
    table_id = table.session.row.id
    base = base_of(env.bot.settings)
    async with chromium() as browser:
        pages = {m.id: await open_page(browser, base, table_id, m) for m in members[:2]}
        taps = await play_out(env, table, pages, members[2:])
        await env.settle()
        stored = await env.bot.store.latest_game_in_channel(channel.id)
        assert stored is not None and stored.status == "finished"
        summary = score_summary(load_game(stored.record))
        order = sorted(range(4), key=lambda s: -summary["totals"][s])
        for page in pages.values():
            await page.wait_for_selector(".standings")
            names = await page.locator(".standings .name").all_inner_texts()
            totals = await page.locator(".standings .total").all_inner_texts()
            assert sorted(zip(names, map(int, totals), strict=True)) == sorted(
                (stored.seats[s].name, summary["totals"][s]) for s in order
            )
            rows = await page.locator("table.scores tbody tr").count()
            assert rows == len(summary["deals"]) == 3
            assert page.errors == []
        assert taps >= 8  # each browser bid and played in every deal


async def test_a_restart_mid_game_and_the_pages_reconnect(
    browser_env: simcord.Env, oauth: Any, make_bot: Any
) -> None:
    env = browser_env
    channel, members = world(env, "asha", "bilal", "chen")
    for member in members:
        oauth.add_user(member.id, member.name)
    table = await start_game(env, channel, members, computers=1, players=4, max_hand=2)
    table_id = table.session.row.id
    base = base_of(env.bot.settings)
    async with chromium() as browser:
        pages = {m.id: await open_page(browser, base, table_id, m) for m in members[:2]}
        await play_out(env, table, pages, members[2:], turns=5)
        await env.settle()
        assert table.session.row.version > 0 and table.session.row.status == "running"
        old = env.bot
        assert old.web is not None
        await old.web.stop()
        # Each page says the line is lost...
        for page in pages.values():
            await page.locator(".banner.on").wait_for()
            assert await page.locator(".banner").inner_text() == "Connection lost: reconnecting…"
        await env.restart_bot(make_bot())
        await env.settle()
        # ...then comes back by itself, on the table as it is now, and plays on to the end.
        version = table.session.row.version
        for page in pages.values():
            await page.wait_for_function(
                "(v) => window.kachuful.table.view.version === v", arg=version, timeout=20000
            )
            await page.locator(".banner.on").wait_for(state="detached")
        await play_out(env, table, pages, members[2:])
        await env.settle()
        stored = await env.bot.store.latest_game_in_channel(channel.id)
        assert stored is not None and stored.status == "finished"
        load_game(stored.record)
        for page in pages.values():
            await page.wait_for_selector(".standings")
            assert page.errors == []


async def test_an_activity_plays_at_the_real_table(
    browser_env: simcord.Env,
    oauth: Any,
    instances: dict[str, dict[str, Any]],  # noqa: F811 (the fixture imported above)
) -> None:
    """Inside Discord: the real activity.js and SDK in a frame whose parent stands in for
    Discord's client (activity_parent.js, served on the bot's origin as Discord's proxy
    would), the bot asked which table the instance shows, and the Activity's player tapping
    through a whole game beside two Discord players."""
    env = browser_env
    channel, members = world(env, "asha", "bilal", "chen")
    asha = members[0]
    for member in members:
        oauth.add_user(member.id, member.name)
    table = await start_game(env, channel, members, computers=1, players=4, max_hand=2)
    app = str(env.bot.application_id)
    instances["i-1-gc-cards"] = {
        "application_id": app,
        "instance_id": "i-1-gc-cards",
        "launch_id": "1",
        "location": {"id": "gc-1", "kind": "gc", "channel_id": str(channel.id)},
        "users": [str(asha.id)],
    }
    base = base_of(env.bot.settings)
    launch = "frame_id=f-1&instance_id=i-1-gc-cards&platform=mobile"
    parent = (
        f'<!doctype html><html><body data-code="{oauth.code_for(asha.id)}" data-user="asha"'
        f' data-user-id="{asha.id}" data-client-id="{app}" data-locale="fr">'
        f'<iframe id="activity" src="/?{launch}" width="390" height="844"></iframe>'
        '<script type="module" src="/standin/parent.js"></script></body></html>'
    )
    script = (Path(__file__).parent / "activity_parent.js").read_text(encoding="utf-8")
    async with chromium() as browser:
        context = await browser.new_context(viewport={"width": 420, "height": 900})
        await context.route(
            f"{base}/standin/parent",
            lambda route: route.fulfill(body=parent, content_type="text/html"),
        )
        await context.route(
            f"{base}/standin/parent.js",
            lambda route: route.fulfill(body=script, content_type="text/javascript"),
        )
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(f"{base}/standin/parent")
        handle = await page.wait_for_selector("#activity")
        frame = await handle.content_frame()
        await frame.wait_for_selector(".seat")
        assert await frame.locator(".seat.you .name").inner_text() == "asha"
        # The words in the language Discord's client shows (the SDK's locale, French here),
        # not the login's (English).
        assert await frame.locator(".seat.you .figure.tricks dt").inner_text() == "Plis"
        taps = await play_out(env, table, {asha.id: frame}, members[1:])
        await env.settle()
        stored = await env.bot.store.latest_game_in_channel(channel.id)
        assert stored is not None and stored.status == "finished"
        load_game(stored.record)
        await frame.wait_for_selector(".standings")
        assert taps >= 4 and errors == []
