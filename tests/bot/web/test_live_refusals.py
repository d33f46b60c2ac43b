"""Every socket message is a claim (bot/web/live.py): a move out of turn, for another seat, an
illegal or stale one, a malformed frame, a watcher's move are refused with nothing changed,
the socket kept open; a move sent twice counts once; a watcher gets no hand; the socket is
only for a logged-in user from this site's own pages."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import simcord

from bot.web.sessions import Identity

from ..helpers import snapshot
from .conftest import base_of
from .players import WebPlayer
from .test_live_table import seat_web_players


async def test_forged_malformed_and_out_of_turn_messages_change_nothing(
    live_env: simcord.Env, oauth: Any
) -> None:
    env = live_env
    table, (_asha, _bilal, _chen), players = await seat_web_players(
        env, oauth, "asha", "bilal", "chen"
    )
    await env.settle()
    row, game = table.session.row, table.game
    # Whoever is to bid, a browser player who is not: their move, and a move "as" the seat
    # to act (a user field is no part of a move: the actor is the login's).
    waiting = next(p for p in players.values() if row.seat_of(p.user_id) != game.turn)
    before = snapshot(table)
    sent = len(waiting.frames)
    refused = [
        await waiting.move({"bid": 0}),
        await waiting.move({"bid": 0, "blind": False}, version=row.version + 5),
        await waiting.move({"card": game.hand(game.turn)[0]}),
    ]
    await waiting.send(
        {"t": "move", "id": "as-other", "version": row.version, "move": {"bid": 0},
         "user": table.session.row.seats[game.turn].user_id}
    )  # fmt: skip
    refused.append(await waiting.wait(lambda f: f.get("id") == "as-other", after=sent))
    for answer in refused:
        assert answer["ok"] is False and answer["text"], answer
    assert "not your turn" in refused[0]["text"].lower() or "turn" in refused[0]["text"]
    malformed = [
        "not json",
        "[1, 2]",
        json.dumps({"t": "shout"}),
        json.dumps({"t": "move", "id": "a", "version": row.version, "move": {"bid": "2"}}),
        json.dumps({"t": "move", "id": "b", "version": True, "move": {"bid": 1}}),
        json.dumps({"t": "move", "id": "c", "version": row.version, "move": {"card": 99.5}}),
        json.dumps({"t": "move", "id": "d", "version": row.version, "move": {"set": "x", "on": 1}}),
        json.dumps({"t": "move", "id": "", "version": row.version, "move": {"bid": 1}}),
        json.dumps({"t": "move", "id": "e" * 65, "version": row.version, "move": {"bid": 1}}),
        json.dumps({"t": "hello", "table": "seven"}),
    ]
    for text in malformed:
        seen = len(waiting.frames)
        await waiting.send(text)
        answer = await waiting.wait(lambda f: f["t"] == "answer", after=seen)
        assert answer["ok"] is False and "could not be read" in answer["text"], text
    assert waiting.ws is not None
    await waiting.ws.send_bytes(b"\x00\x01")
    seen = len(waiting.frames)
    await waiting.send({"t": "ping"})
    assert (await waiting.wait(lambda f: f["t"] in ("pong",), after=seen)) == {"t": "pong"}
    assert not waiting.ws.closed
    await env.settle()
    assert snapshot(table) == before
    # No view was sent for all that: nothing changed.
    assert [f for f in waiting.frames[sent:] if f["t"] == "view"] == []

    # The seat to act, but a card of someone else's hand, then a move at a stale counter.
    actor = next((p for p in players.values() if row.seat_of(p.user_id) == game.turn), None)
    if actor is not None:
        other = next(s for s in range(4) if s != game.turn)
        assert (await actor.move({"card": game.hand(other)[0]}))["ok"] is False
        assert (await actor.move({"bid": 0}, version=row.version - 1))["ok"] is False
        await env.settle()
        assert snapshot(table) == before
    for player in players.values():
        await player.close()


async def test_a_move_sent_twice_counts_once(live_env: simcord.Env, oauth: Any) -> None:
    env = live_env
    table, _members, players = await seat_web_players(
        env, oauth, "asha", "bilal", "chen", web=3, computers=1
    )
    await env.settle()
    session = table.session
    actor = next(p for p in players.values() if session.row.seat_of(p.user_id) == table.game.turn)
    version = session.row.version
    bid = actor.view["bids"][0]
    frame = {"t": "move", "id": "twice", "version": version, "move": {"bid": bid}}
    seen = len(actor.frames)
    # Sent twice at once (a double tap), then again after a reconnection.
    await actor.send(frame)
    await actor.send(frame)
    first = await actor.wait(lambda f: f.get("id") == "twice", after=seen)
    index = actor.frames.index(first)
    second = await actor.wait(lambda f: f.get("id") == "twice", after=index + 1)
    assert first == second and first["ok"] is True
    await env.settle()
    seat = session.row.seat_of(actor.user_id)
    assert table.game.bids[seat] == bid
    # Once counted, the table moved on by that one move (and what others did after it).
    counted = snapshot(table)
    assert actor.ws is not None
    await actor.ws.close()
    await actor.connect(session.row.id, version)
    seen = len(actor.frames)
    await actor.send(frame)
    third = await actor.wait(lambda f: f.get("id") == "twice", after=seen)
    assert third == first
    await env.settle()
    assert snapshot(table) == counted
    for player in players.values():
        await player.close()


async def test_a_watcher_sees_the_public_table_and_cannot_move(
    live_env: simcord.Env, oauth: Any
) -> None:
    env = live_env
    table, members, players = await seat_web_players(env, oauth, "asha", "bilal", "chen")
    base = base_of(env.bot.settings)
    dev = env.guild.add_member(env.create_user("dev"))
    oauth.add_user(dev.id, "dev")
    watcher = WebPlayer(base, dev.id, "dev")
    await watcher.log_in()
    view = await watcher.connect(table.session.row.id)
    assert view["you"] is None and view["hand"] is None and view["legal"] == []
    assert view["bids"] == [] and view["can"] == {"takeback": False, "claim": False, "look": False}
    assert [s["cards_left"] for s in view["seats"]] == [view["deal"]["hand_size"]] * 4
    before = snapshot(table)
    answer = await watcher.move({"bid": 0})
    assert answer["ok"] is False and "not seated" in answer["text"]
    await env.settle()
    assert snapshot(table) == before
    # Someone from elsewhere (not in the server) may not watch.
    stranger = env.create_user("eve")
    oauth.add_user(stranger.id, "eve")
    outsider = WebPlayer(base, stranger.id, "eve")
    await outsider.log_in()
    assert outsider.http is not None
    outsider.ws = await outsider.http.ws_connect(base.replace("http", "ws") + "/ws")
    reader = asyncio.create_task(outsider._read(outsider.ws))
    await outsider.send({"t": "hello", "table": table.session.row.id, "version": None})
    refused = await outsider.wait(lambda f: f["t"] == "answer")
    assert refused["ok"] is False and outsider.views == []
    # The game goes on: the watcher's views follow it, never with a hand.
    await env.settle()
    await players[members[0].id].close()
    await outsider.ws.close()
    await reader
    for other in (watcher, outsider, *players.values()):
        await other.close()
    assert all(v["hand"] is None and v["legal"] == [] for v in watcher.views)


async def test_the_socket_is_for_a_logged_in_user_on_this_site(
    live_env: simcord.Env, browser: aiohttp.ClientSession, oauth: Any
) -> None:
    env = live_env
    base = base_of(env.bot.settings)
    socket = base.replace("http", "ws") + "/ws"
    for headers in ({}, {"Origin": base}):
        try:
            await browser.ws_connect(socket, headers=headers)
        except aiohttp.WSServerHandshakeError as error:
            assert error.status == 401
        else:
            raise AssertionError("a socket without a login")
    asha = env.create_user("asha")
    oauth.add_user(asha.id, "asha")
    player = WebPlayer(base, asha.id, "asha")
    await player.log_in()
    assert player.http is not None
    try:
        await player.http.ws_connect(socket, headers={"Origin": "https://elsewhere.example"})
    except aiohttp.WSServerHandshakeError as error:
        assert error.status == 403
    else:
        raise AssertionError("another site's page used the login")
    # An Activity (Discord's proxy is its origin) passes its session token itself.
    web = env.bot.web
    assert web is not None
    token = web.sessions.issue(Identity(asha.id, "asha"))
    proxy = {"Origin": "https://1234567890123456789.discordsays.com"}
    async with aiohttp.ClientSession() as activity:
        inside = await activity.ws_connect(f"{socket}?session={token}", headers=proxy)
        await inside.send_json({"t": "ping"})
        assert (await inside.receive_json()) == {"t": "pong"}
        await inside.close()
        for forged in ("forged", token[:-3] + "AAA"):
            try:
                await activity.ws_connect(f"{socket}?session={forged}", headers=proxy)
            except aiohttp.WSServerHandshakeError as error:
                assert error.status == 401
            else:
                raise AssertionError("a forged session token opened a socket")
    # A hello for a table that does not exist, or before any hello, a move.
    player.ws = await player.http.ws_connect(socket, headers={"Origin": base})
    player._reader = asyncio.create_task(player._read(player.ws))
    await player.send({"t": "move", "id": "early", "version": 0, "move": {"bid": 0}})
    assert (await player.wait(lambda f: f.get("id") == "early"))["ok"] is False
    await player.send({"t": "hello", "table": 999999, "version": None})
    missing = await player.wait(lambda f: f["t"] == "answer" and f["id"] is None)
    assert missing["ok"] is False and "no game" in missing["text"]
    await player.close()
