"""A duplicate event's club pages: its travellers checked against the exported records of
its games (``/kachuful export event:``), the hands hidden until every table of the round has
finished, and the standings the travellers' matchpoints add up to."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
import simcord

from kachuful_core import load_game
from tests.bot.club.helpers import club, event_message, exported, register, threads_of
from tests.bot.helpers import Table

from .conftest import base_of, log_in
from .standin import OAuthStandIn
from .test_club_pages import get, new_browser, read

pytestmark = pytest.mark.both_backends


@pytest.fixture
async def browser() -> AsyncIterator[aiohttp.ClientSession]:
    async with new_browser() as session:
        yield session


@pytest.mark.one_store(
    "the store's reads behind these pages run on both stores in test_club_pages.py and "
    "tests/bot/club; this plays six players' event, the slowest of the club pages' tests"
)
async def test_a_duplicate_rounds_travellers_match_the_exported_records(
    env: simcord.Env, oauth: OAuthStandIn, browser: aiohttp.ClientSession
) -> None:
    guild, channel, organiser, members = club(env, 6)
    for member in members:
        oauth.add_user(member.id, member.name)
    await organiser.slash(
        channel,
        "kachuful-event open",
        name="Dup",
        format="duplicate",
        rounds=1,
        players=3,
        max_hand=2,
        level="heuristic",
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    base = base_of(env.bot.settings)
    event = f"{base}/club/{guild.id}/event/1"
    # The event's message links its page (the web table is on).
    assert event_message(channel).embeds[0].url == event
    await log_in(browser, base, members[0].id)
    first, second = threads_of(channel, 1)
    await Table(env, first, members).play_to_end()
    await env.bot.club.settled_all()
    # One table has finished, the other plays the same cards: no hand is shown anywhere.
    page = await read(browser, f"{event}/round/1")
    assert [d for _t, d, _a in page.marked if "card" in d] == []
    assert "still playing" in page.text
    done = next(int(link.rsplit("/", 1)[1]) for link in page.links if "/game/" in link)
    status, _text = await get(browser, f"{base}/club/{guild.id}/game/{done}/replay")
    assert status == 403
    status, text = await get(browser, f"{base}/club/{guild.id}/game/{done}")
    assert status == 200 and "/replay" not in text
    await Table(env, second, members).play_to_end()
    await env.bot.club.settled_all()
    export = await exported(await organiser.slash(channel, "kachuful export", event=1))
    tables = export["tables"]
    games = [load_game(entry["record"]) for entry in tables]
    page = await read(browser, f"{event}/round/1")
    rows = {
        (int(deal["deal"]), int(seat["seat"]), int(row["table"])): row
        for _t, row, around in page.marked
        if "table" in row and "bid" in row
        for deal in around
        if "deal" in deal
        for seat in around
        if "seat" in seat
    }
    deals = len(tables[0]["record"]["deals"])
    assert len(rows) == deals * 3 * len(tables)
    points = {s["name"]: 0.0 for entry in tables for s in entry["seats"]}
    for number in range(deals):
        hands = tables[0]["record"]["deals"][number]["hands"]
        for seat in range(3):
            # The hands as dealt, the same at every table, shown once the round is over.
            shown = [
                data["card"]
                for _t, data, around in page.marked
                if "card" in data
                and any(d.get("deal") == str(number + 1) for d in around)
                and any(
                    "seat-traveller" in d["class"].split() and d.get("seat") == str(seat)
                    for d in around
                )
            ]
            assert shown == sorted(hands[seat], key=shown.index), (number, seat)
            assert sorted(shown) == sorted(hands[seat])
            for index, (entry, game) in enumerate(zip(tables, games, strict=True)):
                log = game.deals[number]
                record_deal = entry["record"]["deals"][number]
                row = rows[(number + 1, seat, entry["table"])]
                assert int(row["bid"]) == record_deal["bids"][seat]
                assert int(row["tricks"]) == log.trick_winners.count(seat)
                assert int(row["points"]) == log.scores[seat]
                # Matchpoints from the rules (docs/events.md): the same seat at the other
                # table, 1 for a better score, ½ for the same.
                other = games[1 - index].deals[number].scores[seat]
                mine = log.scores[seat]
                expected = 1.0 if mine > other else 0.5 if mine == other else 0.0
                assert float(row["matchpoints"]) == expected, (number, seat, index)
                points[entry["seats"][seat]["name"]] += expected
        for entry in tables:
            assert entry["record"]["deals"][number]["hands"] == hands
    # The event's standings are what the travellers add up to.
    standing = await read(browser, event)
    names = {m.id: m.name for m in members}
    for _t, data, around in standing.marked:
        if "points" in data:
            row = next(d for d in around if "player" in d)
            assert float(data["points"]) == points[names[int(row["player"])]]
    assert len([d for _t, d, _a in standing.marked if "points" in d]) == len(members)
