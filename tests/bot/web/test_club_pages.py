"""The club pages (bot/web/club) through the real bot in SimCord, read over loopback as a
browser would: a member of the server after a Discord login (the stand-in's), a non-member
refused, a server's public pages read without a login, a game's replay step by step against
its exported record."""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from typing import Any

import aiohttp
import discord
import pytest
import simcord

from tests.bot.helpers import start_game, world

from .conftest import base_of, log_in
from .standin import OAuthStandIn

pytestmark = pytest.mark.both_backends


def new_browser() -> aiohttp.ClientSession:
    """A browser keeping cookies for 127.0.0.1 and closing each connection after its answer:
    an idle kept-alive connection is work of the bot's loop that SimCord waits out (15 s)
    before it answers the next slash command."""
    return aiohttp.ClientSession(
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        connector=aiohttp.TCPConnector(force_close=True),
    )


@pytest.fixture
async def browser() -> AsyncIterator[aiohttp.ClientSession]:
    async with new_browser() as session:
        yield session


class Page(HTMLParser):
    """What a test reads of a page: its text, its links, and the data-* attributes of every
    element (the replay and the travellers mark each card, seat and row with them), each with
    the data of the elements around it."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.words: list[str] = []
        self.links: list[str] = []
        self.marked: list[tuple[str, dict[str, str], list[dict[str, str]]]] = []
        self.scripts = 0
        self.inline_styles = 0
        self._open: list[tuple[str, dict[str, str]]] = []
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
        data["class"] = values.get("class", "")
        if len(data) > 1:
            self.marked.append((tag, data, [d for _t, d in self._open]))
        if tag not in VOID:
            self._open.append((tag, data))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.words.append(data.strip())

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def cards(self, cls: str, **inside: str) -> list[str]:
        """The cards shown inside the elements of class ``cls`` whose data include ``inside``."""
        return [
            data["card"]
            for _tag, data, around in self.marked
            if "card" in data
            and any(
                cls in d["class"].split() and all(d.get(k) == v for k, v in inside.items())
                for d in around
            )
        ]

    def first(self, cls: str) -> dict[str, str]:
        return next(data for _t, data, _a in self.marked if cls in data["class"].split())


VOID = {"meta", "link", "br", "img", "input", "hr"}


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
    channel, (asha, bilal) = await played(env, oauth)
    base = base_of(env.bot.settings)
    guild_id = channel.guild.id
    club = f"{base}/club/{guild_id}"
    # Members only by default: a reader who has not logged in is sent to the login first,
    # and back to the whole address afterwards.
    async with browser.get(club, allow_redirects=False) as first:
        assert first.status == 302
        assert first.headers["Location"] == f"/login?next=/club/{guild_id}"
    async with browser.get(f"{club}?period=7d&sort=wins", allow_redirects=False) as asked:
        target = urllib.parse.urlsplit(asked.headers["Location"])
        assert target.path == "/login"
        assert urllib.parse.parse_qs(target.query) == {
            "next": [f"/club/{guild_id}?period=7d&sort=wins"]
        }
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
    # A member who reads Discord in Hindi reads the pages in Hindi.
    oauth.add_user(bilal.id, "bilal", locale="hi")
    async with new_browser() as hers:
        hindi = await log_in(hers, base, bilal.id, f"/club/{guild_id}")
        text = await hindi.text()
        assert hindi.status == 200 and 'lang="hi"' in text and "लीडरबोर्ड" in text
    # No such server (or one this bot is not in), no such game: nothing to show.
    assert (await get(browser, f"{base}/club/42"))[0] == 404
    assert (await get(browser, f"{club}/game/999"))[0] == 404
    assert (await get(browser, f"{club}/player/42"))[0] == 404
    # A reader who is not a member of the server is refused, logged in or not.
    mallory = env.create_user("mallory")
    oauth.add_user(mallory.id, "mallory")
    async with new_browser() as other:
        refused = await log_in(other, base, mallory.id, f"/club/{guild_id}")
        assert refused.status == 403
        status, _text = await get(other, f"{base}{games[0]}")
        assert status == 403


async def test_a_games_replay_shows_its_record_step_by_step(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    channel, (asha, _bilal) = await played(env, oauth)
    base = base_of(env.bot.settings)
    export = await asha.slash(channel, "kachuful export", game=1)
    record = json.loads(await export.response.attachments[0].read())
    await log_in(browser, base, asha.id)
    replay = f"{base}/club/{channel.guild.id}/game/1/replay"
    players = len(record["players"])
    step = 1
    for number, deal in enumerate(record["deals"]):
        dealer = (record["first_dealer"] + number) % players
        order = [(dealer + 1 + i) % players for i in range(players)]
        held = [list(hand) for hand in deal["hands"]]
        # The deal as dealt: every seat's cards, as the record has them.
        page = await read(browser, f"{replay}?step={step}")
        assert page.first("action")["action"] == "dealt"
        for seat in range(players):
            assert sorted(page.cards("seat", seat=str(seat))) == sorted(held[seat]), (number, seat)
        assert page.cards("trick") == []
        step += 1
        for seat in order:  # every bid, in bidding order
            page = await read(browser, f"{replay}?step={step}")
            assert page.first("action") | {"class": ""} == {
                "action": "bid",
                "seat": str(seat),
                "class": "",
            }
            shown = next(
                d
                for _t, d, _a in page.marked
                if "seat" in d["class"].split() and d["seat"] == str(seat)
            )
            assert shown["bid"] == str(deal["bids"][seat])
            step += 1
        seat = order[0]
        for trick in deal["tricks"]:  # every card, in the order played
            for position, card in enumerate(trick):
                page = await read(browser, f"{replay}?step={step}")
                action = page.first("action")
                assert action["action"] == "card"
                held[int(action["seat"])].remove(card)
                # The trick so far in the middle, from its leader; each hand without it.
                played_now = page.cards("trick")
                assert [c for c in played_now] == trick[: position + 1]
                for other in range(players):
                    assert sorted(page.cards("seat", seat=str(other))) == sorted(held[other])
                step += 1
    # One step past the last is no page.
    async with browser.get(f"{replay}?step={step}") as past:
        assert past.status == 404


async def read(http: aiohttp.ClientSession, url: str) -> Page:
    status, text = await get(http, url)
    assert status == 200, (url, status, text[:500])
    return Page(text)


async def test_a_server_may_make_its_pages_public_and_discord_links_them(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    channel, (asha, _bilal) = await played(env, oauth)
    base = base_of(env.bot.settings)
    guild = channel.guild
    club = f"{base}/club/{guild.id}"
    # The final standings' title links the game's page; /kachuful history links it too.
    final = next(
        embed
        for message in channel.history()
        for embed in message.embeds
        if "final standings" in (embed.title or "")
    )
    assert final.url == f"{club}/game/1"
    history = await asha.slash(channel, "kachuful history")
    assert f"]({club}/game/1)" in history.response.embeds[0].description
    # A member without Manage Server cannot open the pages to everyone (the command is hidden
    # from her; a server may show it to her, and the bot's own check remains).
    assert "kachuful-club" not in asha.available_commands(channel)
    command = env.backend.find_command("kachuful-club", None)
    guild.set_command_permissions(int(command["id"]), {asha: True})
    refused = await asha.slash(channel, "kachuful-club", pages="public")
    assert refused.ephemeral and "Manage Server" in refused.response.content
    assert (await get(browser, club))[0] == 302
    manager = guild.add_member(
        env.create_user("mod"),
        roles=[guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))],
    )
    done = await manager.slash(channel, "kachuful-club", pages="public")
    assert done.ephemeral and club in done.response.content
    # Now anyone reads them without a login, in the language their browser asks for.
    status, text = await get(browser, club, **{"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"})
    assert status == 200 and 'lang="fr"' in text
    page = Page(text)
    assert "Classement Kachuful" in page.text and "asha" in page.text
    status, text = await get(browser, f"{club}/game/1/replay?step=1")
    assert status == 200 and 'lang="en"' in text  # no language asked: the server's
    # Back to members only.
    await manager.slash(channel, "kachuful-club", pages="members")
    assert (await get(browser, club))[0] == 302
