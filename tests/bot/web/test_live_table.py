"""The web table's socket (bot/web/live.py, views.py): two players in browsers and one in
Discord at the same table as a computer player, a whole short game, the record whole and
legal and what the channel shows; every frame each browser got read for a card it should not
have seen; forged, malformed, out-of-turn and repeated moves; a restart mid-game."""

from __future__ import annotations

from typing import Any

import simcord

from kachuful_core import load_game, score_summary
from kachuful_core.cards import SUIT_LETTERS

from ..helpers import Table, buttons, start_game, world
from ..test_full_game import FINAL, public_tricks, record_tricks
from .conftest import base_of
from .players import WebPlayer

VIEW_KEYS = {
    "t", "table", "version", "language", "you", "phase", "words", "deal", "seats", "trick",
    "last_trick", "last_winner", "hand", "legal", "bids", "blind", "unseen", "visible", "can",
    "chosen", "confirm_cards", "clock", "scores", "standings",
}  # fmt: skip


async def seat_web_players(
    env: simcord.Env, oauth: Any, *names: str, web: int = 2, computers: int = 1
) -> tuple[Table, list[simcord.MemberActor], dict[int, WebPlayer]]:
    """A table of ``names`` (the first ``web`` of them in browsers) and computer players,
    started (max hand 2), every browser logged in and its socket open."""
    channel, members = world(env, *names)
    for member in members:
        oauth.add_user(member.id, member.name)
    table = await start_game(
        env, channel, members, computers=computers, players=len(names) + computers, max_hand=2
    )
    players = {}
    for member in members[:web]:
        player = WebPlayer(base_of(env.bot.settings), member.id, member.name)
        await player.log_in()
        await player.connect(table.session.row.id)
        players[member.id] = player
    return table, members, players


async def web_turn(env: simcord.Env, table: Table, player: WebPlayer) -> dict[str, Any]:
    """The web player whose turn it is plays from the view they were sent: their first bid
    or first legal card."""
    row = table.session.row
    view = await player.wait(lambda f: f["t"] == "view" and f["version"] == row.version)
    assert view["you"] == row.seat_of(player.user_id)
    move = {"bid": view["bids"][0]} if view["bids"] else {"card": view["legal"][0]}
    answer = await player.move(move, view["version"])
    assert answer["ok"] is True and answer["text"] is None, answer
    return answer


async def play_out(
    env: simcord.Env, table: Table, players: dict[int, WebPlayer], discord_members: list[Any]
) -> None:
    """Until the game ends: each seat to act plays (a browser, a Discord click; the computer
    by itself)."""
    for _ in range(200):
        await env.settle()
        session = table.session
        if session is None or session.row.status != "running":
            return
        seat = session.game.turn
        user = session.row.seats[seat].user_id
        if user in players:
            await web_turn(env, table, players[user])
        elif user is not None:
            member = table.members[user]
            assert member in discord_members
            result = await table.act(member)
            assert result.acknowledged
    raise AssertionError("the game did not end")


def check_privacy(player: WebPlayer, record: dict[str, Any]) -> int:
    """Every view this browser got: its keys are the contract's, and the only cards of a seat
    not yet on the table are its own seat's. Returns the views read."""
    game = load_game(record)
    for frame in player.views:
        assert set(frame) == VIEW_KEYS, sorted(set(frame) ^ VIEW_KEYS)
        seat = frame["you"]
        deal = frame["deal"]
        if deal is None:
            continue
        hands = game.deals[deal["number"] - 1].hands
        own = set(hands[seat]) if seat is not None else set()
        assert set(frame["hand"] or ()) <= own
        assert set(frame["legal"]) <= set(frame["hand"] or ())
        assert frame["chosen"] in (None, *own)
        assert frame["visible"] == []  # no forehead deal at this table
        for entry in frame["trick"]:
            assert entry["card"] in hands[entry["seat"]]  # a card on the table: played
        if seat is None:
            assert frame["hand"] is None and frame["legal"] == [] and frame["bids"] == []
    return len(player.views)


async def test_a_whole_game_in_two_browsers_and_discord(live_env: simcord.Env, oauth: Any) -> None:
    env = live_env
    table, (asha, _bilal, chen), players = await seat_web_players(
        env, oauth, "asha", "bilal", "chen"
    )
    first = players[asha.id].view
    assert first["phase"] == "bidding" and first["you"] == table.session.row.seat_of(asha.id)
    assert (
        first["words"]["claim"] == "Claim the rest"
        and len(first["hand"]) == first["deal"]["hand_size"]
    )
    assert [s["name"] for s in first["seats"]][:3] == ["asha", "bilal", "chen"]
    assert first["seats"][3]["bot"] is True
    assert first["deal"]["trump"] in (*SUIT_LETTERS, None)

    # The table's messages link the web table.
    table_id = table.session.row.id
    link = f"{base_of(env.bot.settings)}/table/{table_id}"
    lobby = table.public()[0]
    assert [(b.label, b.url) for b in buttons(lobby) if b.url] == [("Open the table", link)]
    hand = await table.open_hand(chen)
    assert [(b.label, b.url) for b in buttons(hand) if b.url] == [("Open the table", link)]
    asked = await chen.slash(table.channel, "kachuful table")
    assert asked.ephemeral and asked.response is not None
    assert [(b.label, b.url) for b in buttons(asked.response.message)] == [("Open the table", link)]

    await play_out(env, table, players, [chen])
    await env.advance_time(60)
    await env.settle()

    stored = await env.bot.store.latest_game_in_channel(table.channel.id)
    assert stored is not None and stored.status == "finished"
    replay = load_game(stored.record)  # replays every move through the engine's rules
    summary = score_summary(replay)
    assert len(summary["deals"]) == replay.num_deals == 3  # 2, 1, 2 cards
    # The channel shows the record's tricks and totals; so does every browser's last view.
    assert public_tricks(table) == record_tricks(stored.record, summary)
    final = next(m for m in table.public() if any(e.title == FINAL for e in m.embeds))
    text = next(e.description for e in final.embeds if e.title == FINAL) or ""
    for seat, total in enumerate(summary["totals"]):
        assert f"**{stored.seats[seat].name}** — {total}" in text
    for player in players.values():
        last = player.view
        assert last["phase"] == "finished" and last["version"] == stored.version
        assert [s["score"] for s in last["seats"]] == list(summary["totals"])
        assert last["standings"] is not None and last["hand"] is None
        assert last["scores"] == [list(d["scores"]) for d in summary["deals"]]
        assert check_privacy(player, stored.record) >= 10
    # A page opened after the end (the table is only in the store now) shows the end.
    open_tables = env.bot.tables.open
    assert table_id not in open_tables.by_id and table_id not in open_tables.closing
    latecomer = players[asha.id]
    assert latecomer.ws is not None
    await latecomer.ws.close()
    after = await latecomer.connect(table_id)
    assert after["phase"] == "finished" and after["hand"] is None
    assert [s["score"] for s in after["seats"]] == list(summary["totals"])
    assert after["standings"] == players[asha.id].views[-2]["standings"]
    for player in players.values():
        await player.close()


async def test_a_restart_mid_game_and_the_pages_reconnect(
    live_env: simcord.Env, oauth: Any, make_bot: Any
) -> None:
    env = live_env
    table, (_asha, _bilal, chen), players = await seat_web_players(
        env, oauth, "asha", "bilal", "chen"
    )
    # A few moves, then the bot restarts: every socket is told it is going away.
    for _ in range(3):
        await env.settle()
        seat = table.game.turn
        user = table.session.row.seats[seat].user_id
        if user in players:
            await web_turn(env, table, players[user])
        elif user == chen.id:
            await table.act(chen)
    await env.settle()
    table_id, version = table.session.row.id, table.session.row.version
    hands = {p.user_id: p.view["hand"] for p in players.values()}
    old = env.bot
    assert old.web is not None
    await old.web.stop()
    for player in players.values():
        assert player._reader is not None
        await player._reader  # the server closed the socket
        assert player.ws is not None and player.ws.close_code == 1001
    await env.restart_bot(make_bot())
    await env.settle()
    # Each page reconnects (its session cookie is still good) and gets the current view.
    for player in players.values():
        view = await player.connect(table_id, version)
        assert view["version"] == table.session.row.version == version
        assert view["hand"] == hands[player.user_id]
    # And the game goes on to its end, in the browsers and in Discord.
    await play_out(env, table, players, [chen])
    await env.settle()
    stored = await env.bot.store.latest_game_in_channel(table.channel.id)
    assert stored is not None and stored.status == "finished"
    load_game(stored.record)
    for player in players.values():
        assert player.view["phase"] == "finished"
        check_privacy(player, stored.record)
        await player.close()


async def test_confirm_each_card_and_take_back_on_the_web(
    live_env: simcord.Env, oauth: Any
) -> None:
    env = live_env
    table, _, players = await seat_web_players(env, oauth, "asha", "bilal", "chen", web=3)
    await env.settle()
    for player in players.values():
        answer = await player.move({"set": "confirm_cards", "on": True})
        assert answer["ok"] is True
    # Everyone bids; the first to play chooses a card, sees it chosen, then confirms it.
    for _ in range(8):
        await env.settle()
        if table.game.phase.value == "playing":
            break
        await web_turn(env, table, players[table.session.row.seats[table.game.turn].user_id])
    await env.settle()
    player = players[table.session.row.seats[table.game.turn].user_id]
    view = await player.wait(
        lambda f: f["t"] == "view" and f["version"] == table.session.row.version
    )
    assert view["confirm_cards"] is True and view["chosen"] is None
    card = view["legal"][-1]
    before = table.session.row.version
    chosen = await player.move({"choose": card}, view["version"])
    assert chosen["ok"] is True
    offered = await player.wait(lambda f: f["t"] == "view" and f["chosen"] == card)
    assert offered["version"] == before == table.session.row.version  # nothing played yet
    played = await player.move({"card": card}, before)
    assert played["ok"] is True
    after = await player.wait(lambda f: f["t"] == "view" and f["version"] > before)
    assert {"seat": after["you"], "card": card} in after["trick"] and card not in after["hand"]
    assert after["can"]["takeback"] is True
    # Taken back: the card is in the hand again, and it is that player's turn again.
    back = await player.move({"takeback": True}, after["version"])
    assert back["ok"] is True
    again = await player.wait(lambda f: f["t"] == "view" and f["version"] > after["version"])
    assert card in again["hand"] and again["seats"][again["you"]]["turn"] is True
    for other in players.values():
        await other.close()
