"""The web table's client in a real browser (Debian's chromium driven by Playwright), against
fake_table.py: the real WebServer (pages, assets, policy, sessions) with a canned socket.
What a player sees and taps, and the frames the page sends for it."""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from . import fake_table as fake
from .fake_table import C, D, FakeTable, H, S, wait_for

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.xdist_group("browser")]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    assert os.path.exists(CHROMIUM), "install Debian's chromium: apt-get install -y chromium"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        await browser.close()


class Seen:
    """A table page open in the browser, and what the page complained about."""

    def __init__(self, table: FakeTable, page: Any) -> None:
        self.table = table
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", self.request)
        page.on("console", self.console)

    def request(self, request: Any) -> None:
        # Nothing from another origin (Discord's Activity proxy would block it).
        if not request.url.startswith((f"{self.table.base}/", "data:", "blob:")):
            self.errors.append(f"a request to another origin: {request.url}")

    def console(self, message: Any) -> None:
        # A browser asks for /favicon.ico by itself: its 404 is no error of the page's.
        if message.type == "error" and "favicon" not in message.location.get("url", ""):
            self.errors.append(message.text)

    def moves(self) -> list[dict[str, Any]]:
        return [frame for frame in self.table.frames if frame["t"] == "move"]


@contextlib.asynccontextmanager
async def open_table(
    chromium: Any, tmp_path: Path, view: dict[str, Any], viewport: dict[str, int] = DESKTOP
) -> AsyncIterator[Seen]:
    table = FakeTable(view, tmp_path)
    await table.start()
    context = await chromium.new_context(viewport=viewport)
    try:
        await context.add_cookies([table.cookie()])
        seen = Seen(table, await context.new_page())
        await seen.page.goto(table.url)
        await seen.page.wait_for_selector(".seat")
        yield seen
        assert seen.errors == []
    finally:
        await context.close()
        await table.close()


@pytest_asyncio.fixture(loop_scope="module")
async def playing(chromium: Any, tmp_path: Path) -> AsyncIterator[Seen]:
    async with open_table(chromium, tmp_path, fake.mid_trick()) as seen:
        yield seen


def card(page: Any, code: int) -> Any:
    return page.locator(f".hand button[data-card='{code}']")


async def test_the_table_draws_the_view(playing: Seen) -> None:
    page = playing.page
    names = await page.locator(".seat .name").all_inner_texts()
    assert names == ["Asha", "Bilal", "Chen", "Dev"]
    # The reader's hand, each card named; only the two hearts may follow the led heart.
    hand = page.locator(".hand button")
    labels = [await hand.nth(i).get_attribute("aria-label") for i in range(await hand.count())]
    assert labels == ["A of spades", "10 of spades", "K of hearts", "4 of hearts"]
    for code in (H + fake.KING, H + fake.FOUR):
        assert await card(page, code).is_enabled()
    for code in (S + fake.ACE, S + fake.TEN):
        assert await card(page, code).is_disabled()
        assert "off" in (await card(page, code).get_attribute("class") or "").split()
    # The trick, the turn, the dealer, the clock, the deal's facts.
    trick = page.locator(".trick .card")
    assert [await trick.nth(i).get_attribute("aria-label") for i in range(2)] == [
        "Chen: 9 of hearts",
        "Dev: Q of hearts",
    ]
    assert await page.locator(".seat.turn .name").inner_text() == "Asha"
    assert await page.locator(".seat:has(.dealer) .name").inner_text() == "Chen"
    # The turn clock counts down from the view's deadline (42 s when the view was made; the
    # page took a moment to open).
    minutes, seconds = (await page.locator(".seat.turn .clock").inner_text()).split(":")
    assert minutes == "0" and 20 <= int(seconds) <= 42
    assert await page.locator(".fact.deal").inner_text() == "Deal 4 of 8"
    assert await page.locator(".fact.trump").get_attribute("aria-label") == "Trump: spades"
    # The last trick on demand, its winner marked.
    await page.get_by_role("button", name="Last trick").click()
    assert await page.locator(".trick.last .card").count() == 4
    assert await page.locator(".trick .winner").get_attribute("aria-label") == "Chen: A of diamonds"


async def test_a_tap_on_a_legal_card_plays_it(playing: Seen) -> None:
    page = playing.page
    await page.get_by_role("button", name="K of hearts").click()
    await wait_for(lambda: playing.moves())
    [frame] = playing.moves()
    assert frame["move"] == {"card": H + fake.KING} and frame["version"] == 47
    assert isinstance(frame["id"], str) and frame["id"]
    # The next view: the card on the trick, out of the hand.
    await page.wait_for_selector(f".trick .card[data-card='{H + fake.KING}']")
    assert await page.locator(".hand button").count() == 3


async def test_a_card_that_may_not_be_played_cannot_be_tapped(playing: Seen) -> None:
    page = playing.page
    await card(page, S + fake.ACE).click(force=True)
    await card(page, S + fake.TEN).dispatch_event("click")
    # Then a legal one: the only move the server ever gets.
    await card(page, H + fake.FOUR).click()
    await wait_for(lambda: playing.moves())
    assert [frame["move"] for frame in playing.moves()] == [{"card": H + fake.FOUR}]


async def test_a_refused_move_shows_the_servers_answer(playing: Seen) -> None:
    playing.table.refuse = "It is not your turn any more."
    page = playing.page
    await card(page, H + fake.KING).click()
    answer = page.get_by_role("alert")
    await answer.filter(has_text="It is not your turn any more.").wait_for()
    assert await answer.is_visible()
    assert await page.locator(".hand button").count() == 4
    # The hand is playable again after the refusal.
    assert await card(page, H + fake.KING).is_enabled()


async def test_after_the_line_drops_the_page_says_hello_again(playing: Seen) -> None:
    assert [hello["version"] for hello in playing.table.hellos] == [None]
    await playing.table.drop()
    await wait_for(lambda: len(playing.table.hellos) == 2)
    hello = playing.table.hellos[1]
    assert hello == {"t": "hello", "table": fake.TABLE, "version": 47}
    # A card tapped as the line dies, never answered: sent again with the same id on the
    # next line, after the hello (the server counts a move id once).
    playing.table.mute = True
    await playing.page.get_by_role("button", name="4 of hearts").click()
    await wait_for(lambda: playing.moves())
    await playing.table.drop()
    playing.table.mute = False
    await wait_for(lambda: len(playing.moves()) == 2)
    first, again = playing.moves()
    assert first == again and first["move"] == {"card": H + fake.FOUR}
    at = {id(frame): i for i, frame in enumerate(playing.table.frames)}
    assert len(playing.table.hellos) == 3
    assert at[id(first)] < at[id(playing.table.hellos[2])] < at[id(again)]
    await playing.page.locator(f".trick .card[data-card='{H + fake.FOUR}']").wait_for()


async def test_bids_and_confirm_each_card(chromium: Any, tmp_path: Path) -> None:
    view = fake.bidding()
    view["bids"] = [0, 1, 3, 4, 5]  # the dealer's forbidden 2 is not offered
    async with open_table(chromium, tmp_path, view, PHONE) as seen:
        page = seen.page
        bids = page.locator(".bids button")
        assert await bids.all_inner_texts() == ["0", "1", "3", "4", "5"]
        await page.get_by_role("button", name="Bid 3").click()
        await wait_for(lambda: seen.moves())
        assert seen.moves()[0]["move"] == {"bid": 3, "blind": False}
        await page.wait_for_selector(".bids", state="detached")

        # Confirm each card: a first tap chooses, a second tap (or Confirm) plays.
        playing = fake.mid_trick()
        playing["confirm_cards"] = True
        await seen.table.push(playing)
        await card(page, H + fake.KING).click()
        await wait_for(lambda: len(seen.moves()) == 2)
        assert seen.moves()[1]["move"] == {"choose": H + fake.KING}
        await page.get_by_role("button", name="Confirm", exact=True).click()
        await wait_for(lambda: len(seen.moves()) == 3)
        assert seen.moves()[2]["move"] == {"card": H + fake.KING}


async def test_the_words_come_from_the_view(chromium: Any, tmp_path: Path) -> None:
    async with open_table(chromium, tmp_path, fake.bidding(fake.WORDS_FR)) as seen:
        page = seen.page
        assert await page.locator(".fact.trump").get_attribute("aria-label") == "Atout : pique"
        assert await page.get_by_role("button", name="Annoncer 2").count() == 1
        assert await card(page, H + fake.KING).get_attribute("aria-label") == "R de cœur"
        assert await page.locator(".hand button .corner.top b").first.inner_text() == "A"


async def test_a_phone_shows_the_whole_hand(chromium: Any, tmp_path: Path) -> None:
    view = fake.mid_trick()
    view["hand"] = [suit + rank for suit in (S, H, D) for rank in range(4, 8)] + [C + 12]
    view["legal"] = [H + rank for rank in range(4, 8)]
    async with open_table(chromium, tmp_path, copy.deepcopy(view), PHONE) as seen:
        page = seen.page
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
        hand = page.locator(".hand button")
        assert await hand.count() == 13
        for i in range(13):
            box = await hand.nth(i).bounding_box()
            assert box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
            assert box["y"] + box["height"] <= PHONE["height"]
        # Every card shows its corner: the next card never covers the rank.
        boxes = [await hand.nth(i).bounding_box() for i in range(13)]
        steps = [b["x"] - a["x"] for a, b in itertools.pairwise(boxes) if a and b]
        assert min(steps) >= 18
        # The felt, the seats and the trick fit the screen too.
        seats = page.locator(".seat")
        for i in range(4):
            box = await seats.nth(i).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


async def test_take_back_claim_the_scores_and_a_watcher(chromium: Any, tmp_path: Path) -> None:
    view = fake.mid_trick()
    view["can"] = {"takeback": True, "claim": True, "look": False}
    async with open_table(chromium, tmp_path, view, PHONE) as seen:
        page = seen.page
        await page.get_by_role("button", name="Take back").click()
        await wait_for(lambda: len(seen.moves()) == 1)
        await page.get_by_role("button", name="Claim the rest").click()
        await wait_for(lambda: len(seen.moves()) == 2)
        assert [frame["move"] for frame in seen.moves()] == [{"takeback": True}, {"claim": True}]
        # On a phone the score table is a sheet opened on demand.
        scores = page.locator("table.scores")
        assert not await scores.is_visible()
        await page.get_by_role("button", name="Scores").click()
        assert await scores.is_visible()
        assert await scores.locator("tbody tr").count() == 3
        assert await scores.locator("tfoot td").all_inner_texts() == ["22", "20", "18", "21"]
        # A deal's loss with a true minus sign, as the bot's messages write it.
        first = await scores.locator("tbody tr").first.locator("td").all_inner_texts()
        assert first == ["12", "\u22123", "10", "11"]
        await page.get_by_role("button", name="Close").click()
        assert not await scores.is_visible()

        # A watcher: the public table, no hand, nothing to tap.
        watcher = fake.mid_trick()
        watcher.update(you=None, hand=None, legal=[], bids=[])
        await seen.table.push(watcher)
        await page.get_by_text("You are watching this table.").wait_for()
        assert await page.locator(".hand").count() == 0
        assert await page.locator(".trick .card").count() == 2


async def test_inside_discord_the_hello_carries_the_activitys_session(
    chromium: Any, tmp_path: Path
) -> None:
    """The Activity's page (no cookie in Discord's frame): activity.js, stood in for here
    (the SDK needs Discord's parent frame), gives the table, the session and the socket."""
    table = FakeTable(fake.mid_trick(), tmp_path)
    await table.start()
    context = await chromium.new_context(viewport=PHONE)
    try:
        session = table.cookie()["value"]
        socket = table.base.replace("http", "ws", 1) + "/ws"
        entered = {"table": fake.TABLE, "text": None, "session": session, "socket": socket}
        script = (
            "export async function enterActivity(page) {"
            f" document.body.dataset.layout = 'pip'; return {json.dumps(entered)}; }}"
        )
        await context.route(
            "**/activity.js",
            lambda route: route.fulfill(body=script, content_type="text/javascript"),
        )
        seen = Seen(table, await context.new_page())
        await seen.page.goto(f"{table.base}/activity")
        await seen.page.wait_for_selector(".seat")
        assert table.hellos == [
            {"t": "hello", "table": fake.TABLE, "version": None, "session": session}
        ]
        # Picture in picture: the trick and whose turn it is, nothing else.
        page = seen.page
        assert await page.locator(".trick .card").count() == 2
        assert await page.locator(".seat:visible .name").all_inner_texts() == ["Asha"]
        assert not await page.locator(".hand").is_visible()
        assert seen.errors == []

        # A page that proves no one gets no view.
        other = await chromium.new_context()
        bare = await other.new_page()
        await bare.goto(f"{table.base}/assets/{table.server.assets.digest}/table.css")
        await bare.evaluate(
            "(url) => new Promise((done) => { const s = new WebSocket(url);"
            " s.onopen = () => s.send(JSON.stringify({t: 'hello', table: 4242, version: null}));"
            " s.onclose = done; })",
            socket,
        )
        await other.close()
        assert len(table.hellos) == 1
    finally:
        await context.close()
        await table.close()


async def test_an_activity_in_a_stand_in_discord_client(chromium: Any, tmp_path: Path) -> None:
    """The real activity.js and the vendored SDK, in a frame whose parent answers as Discord's
    client does (activity_parent.js): the login, the instance's table, the session in the
    hello, and Discord's layout followed."""
    table = FakeTable(fake.mid_trick(), tmp_path)
    await table.start()
    context = await chromium.new_context(viewport={"width": 420, "height": 900})
    try:
        code = table.oauth.code_for(101)
        page = await context.new_page()
        seen = Seen(table, page)
        await page.goto(f"{table.base}/standin/parent?code={code}&locale=fr")
        activity = page.frame_locator("#activity")
        await activity.locator(".seat").first.wait_for()
        # The SDK's handshake, then the login as Discord's client saw it.
        sent = await page.evaluate("window.sent")
        assert sent[0]["opcode"] == 0 and sent[0]["client_id"] == str(fake.CLIENT_ID)
        commands = [m["cmd"] for m in sent if m["opcode"] == 1]
        assert commands[:3] == ["AUTHORIZE", "AUTHENTICATE", "USER_SETTINGS_GET_LOCALE"]
        authorize = next(m for m in sent if m.get("cmd") == "AUTHORIZE")
        assert authorize["args"]["scope"] == ["identify"]
        assert table.oauth.exchanges == 1 and table.instances == ["i-1234-gc-5678"]
        # The socket: no cookie in Discord's frame, the session in the hello.
        [hello] = table.hellos
        assert table.server is not None
        who = table.server.sessions.read(hello["session"])
        assert who is not None and who.user_id == 101
        # The reader's language is Discord's client's (the SDK's locale), not the login's.
        assert table.socket_queries == [{"session": hello["session"], "locale": "fr"}]
        assert await activity.locator(".hand button").count() == 4
        # Discord shrinks the Activity to picture in picture: the trick and the turn only.
        await page.evaluate("window.layout(1)")
        await activity.locator("body[data-layout='pip']").wait_for()
        assert not await activity.locator(".hand").is_visible()
        assert await activity.locator(".trick .card").count() == 2
        await page.evaluate("window.layout(0)")
        await activity.locator("body[data-layout='focused']").wait_for()
        assert await activity.locator(".hand").is_visible()
        assert seen.errors == []
    finally:
        await context.close()
        await table.close()


async def test_a_completed_trick_stays_in_sight_a_moment(playing: Seen) -> None:
    page = playing.page
    # Bilal plays the last card: the server's view has the trick as the last one, Chen's.
    done = fake.mid_trick()
    trick = [*done["trick"], {"seat": 0, "card": H + fake.KING}, {"seat": 1, "card": H + fake.ACE}]
    done.update(version=50, trick=[], last_trick=trick, last_winner=1, legal=[])
    done["hand"].remove(H + fake.KING)
    await playing.table.push(done)
    cards = page.locator(".trick .card")
    await page.locator(f".trick .card[data-card='{H + fake.ACE}']").wait_for()
    assert await cards.count() == 4
    assert await page.locator(".trick .winner").get_attribute("aria-label") == "Bilal: A of hearts"
    # Then the table clears for the next lead.
    await page.locator(".trick .card").first.wait_for(state="detached", timeout=4000)
    assert await cards.count() == 0
