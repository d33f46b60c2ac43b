"""The club pages (bot/web/club) through the real bot in SimCord, read over loopback as a
browser would: a member of the server after a Discord login (the stand-in's), a non-member
refused, a server's public pages read without a login, a game's replay step by step against
its exported record."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import aiohttp
import pytest
import simcord

from tests.bot.helpers import start_game, world

from .conftest import base_of, log_in
from .standin import OAuthStandIn

pytestmark = pytest.mark.both_backends


class Page(HTMLParser):
    """What a test reads of a page: its text, its links, and the data-* attributes of every
    element (the replay marks each card and seat with them)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.words: list[str] = []
        self.links: list[str] = []
        self.marked: list[tuple[str, dict[str, str]]] = []
        self.scripts = 0
        self.inline_styles = 0
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        if tag == "script":
            self.scripts += 1
        if "style" in values or tag == "style":
            self.inline_styles += 1
        data = {k[5:]: v for k, v in values.items() if k.startswith("data-")}
        if data:
            self.marked.append((tag, data))

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.words.append(data.strip())

    @property
    def text(self) -> str:
        return " ".join(self.words)


async def played(env: simcord.Env, oauth: OAuthStandIn, max_hand: int = 2) -> tuple[Any, Any]:
    channel, members = world(env, "asha", "bilal")
    for member in members:
        oauth.add_user(member.id, member.name)
    table = await start_game(env, channel, members, computers=1, max_hand=max_hand)
    await table.play_to_end()
    return channel, members


async def get(http: aiohttp.ClientSession, url: str, **headers: str) -> tuple[int, str]:
    async with http.get(url, headers=headers, allow_redirects=False) as answer:
        return answer.status, await answer.text()


async def test_a_member_reads_the_pages_and_a_non_member_is_refused(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    channel, (asha, _bilal) = await played(env, oauth)
    base = base_of(env.bot.settings)
    guild_id = channel.guild.id
    club = f"{base}/club/{guild_id}"
    # Members only by default: a reader who has not logged in is sent to the login first.
    async with browser.get(club, allow_redirects=False) as first:
        assert first.status == 302
        assert first.headers["Location"] == f"/login?next=/club/{guild_id}"
    page = await log_in(browser, base, asha.id, f"/club/{guild_id}")
    assert page.status == 200 and str(page.url) == club
    board = Page(await page.text())
    assert "asha" in board.text and "bilal" in board.text
    assert board.scripts == 0 and board.inline_styles == 0
    assert f"/club/{guild_id}/player/{asha.id}" in board.links
    status, text = await get(browser, f"{club}/player/{asha.id}")
    assert status == 200 and "<svg" in text
    player = Page(text)
    games = [link for link in player.links if re.fullmatch(rf"/club/{guild_id}/game/\d+", link)]
    assert games, player.links
    status, text = await get(browser, f"{base}{games[0]}")
    assert status == 200, text
    # A reader who is not a member of the server is refused, logged in or not.
    mallory = env.create_user("mallory")
    oauth.add_user(mallory.id, "mallory")
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as other:
        refused = await log_in(other, base, mallory.id, f"/club/{guild_id}")
        assert refused.status == 403
        status, _text = await get(other, f"{base}{games[0]}")
        assert status == 403
