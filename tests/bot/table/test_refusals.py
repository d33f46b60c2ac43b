"""Every refused click is answered privately and changes nothing."""

from __future__ import annotations

import pytest
import simcord

from kachuful_core import Phase

from ..helpers import (
    Table,
    button,
    craft_click,
    custom_ids,
    enabled_actions,
    lobby_message,
    snapshot,
    start_game,
    world,
)


async def turn_of_first_human(table: Table) -> simcord.MemberActor:
    member = table.member_at(table.game.turn)
    assert member is not None
    return member


async def test_double_click_is_told_what_the_first_click_did(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = await turn_of_first_human(table)
    first = await table.open_hand(actor)
    second = await table.open_hand(actor)  # the same hand, shown twice
    choice = enabled_actions(first)[0].custom_id
    assert choice in [b.custom_id for b in enabled_actions(second)]

    applied = await actor.click(first, custom_id=choice)
    assert applied.acknowledged
    before = snapshot(table)
    again = await actor.click(second, custom_id=choice)
    assert again.response.ephemeral
    # The second click is told what the first one did, and does nothing more.
    bid = choice.split(":")[4]
    assert again.response.content == f"Your bid of {bid} was placed (your first click counted)."
    assert snapshot(table) == before
    # The refusal redrew that message with the hand as it is now: nothing left to click.
    assert enabled_actions(table.message(second.id, actor)) == []


async def test_stale_button_after_the_table_moved_on(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen", "dev")
    table = await start_game(env, channel, members, max_hand=3)
    actor = await turn_of_first_human(table)
    hand = await table.open_hand(actor)
    assert enabled_actions(hand)
    drawn_before = enabled_actions(hand)[0].custom_id
    newest = await table.open_hand(actor)  # only the newest hand message is kept up to date
    leaver = next(m for m in members if m is not actor)
    left = await leaver.slash(channel, "kachuful leave")  # the move counter moves on
    assert left.response.ephemeral and "You left the game" in left.response.content
    # The table sees that the computer plays the seat now (in the players of the lobby).
    players = lobby_message(channel).embeds[0].fields[0].value or ""
    [line] = [line for line in players.splitlines() if f" {leaver.name} (" in line]
    assert "(computer" in line and line.endswith("player left)")  # e.g. "(computer · Casual — …"
    # The newest hand message was redrawn for the new move counter; the older one was not.
    assert drawn_before not in custom_ids(table.message(newest.id, actor))
    assert drawn_before in custom_ids(table.message(hand.id, actor))

    before = snapshot(table)
    stale = await actor.click(table.message(hand.id, actor), custom_id=drawn_before)
    assert stale.response.ephemeral and "out of date" in stale.response.content
    assert snapshot(table) == before
    # The redrawn message has fresh buttons that work.
    fresh = table.message(hand.id, actor)
    assert enabled_actions(fresh)
    ok = await actor.click(fresh, custom_id=enabled_actions(fresh)[0].custom_id)
    assert "out of date" not in (ok.response.content or "")
    assert snapshot(table) != before


async def test_non_player_cannot_open_a_hand_or_join_a_running_game(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    outsider = env.guild.add_member(env.create_user("eve"))
    table = await start_game(env, channel, members, max_hand=2)
    before = snapshot(table)
    refused = await outsider.click(table.last_public_with("Your hand"), label="Your hand")
    assert refused.response.ephemeral and "not seated" in refused.response.content
    by_command = await outsider.slash(channel, "kachuful hand")
    assert by_command.response.ephemeral and "not seated" in by_command.response.content
    join = await outsider.slash(channel, "kachuful join")
    assert join.response.ephemeral and "already started" in join.response.content
    assert snapshot(table) == before
    # Nothing of that is visible to the players.
    for member in members:
        assert refused.response.id not in [m.id for m in table.seen_by(member)]


async def test_wrong_seat_is_refused(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = await turn_of_first_human(table)
    waiting = next(m for m in members if m is not actor)
    hand = await table.open_hand(waiting)
    assert enabled_actions(hand) == []  # not their turn: no bid buttons at all
    before = snapshot(table)
    version = table.session.row.version
    forged = await craft_click(env, waiting, hand, f"kf:b:{table.session.row.id}:{version}:0:0")
    assert forged.response.ephemeral
    assert forged.response.content == "This button no longer works."
    assert snapshot(table) == before


async def test_a_click_that_lost_the_race_with_the_clock_is_refused(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bid button still on screen when the turn clock already played for the seat."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = await turn_of_first_human(table)
    hand = await table.open_hand(actor)
    from bot.table.hands import HandPublisher

    monkeypatch.setattr(HandPublisher, "poke", lambda self: None)  # the redraw is in flight
    await env.advance_time(91)  # the clock runs out: the computer bids for the seat
    assert table.member_at(table.game.turn) is not actor
    before = snapshot(table)
    late = await actor.click(hand, custom_id=enabled_actions(hand)[0].custom_id)
    assert late.response.ephemeral
    assert "out of date" in late.response.content
    assert "Nothing was changed" in late.response.content
    assert snapshot(table) == before


async def test_illegal_card_is_refused(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=8, schedule="down")
    for _ in range(400):
        game = table.game
        member = table.member_at(game.turn)
        assert member is not None
        seat = game.turn
        if game.phase is Phase.PLAYING and game.current_trick:
            illegal = sorted(set(game.hand(seat)) - set(game.legal_cards(seat)))
            if illegal:
                break
        await table.act(member)
    else:
        raise AssertionError("never had to follow suit")
    hand = await table.open_hand(member)
    labels = {b.custom_id: b for row in hand.components for b in row.children}
    row_id, version = table.session.row.id, table.session.row.version
    illegal_id = f"kf:p:{row_id}:{version}:{illegal[0]}"
    assert labels[illegal_id].disabled  # greyed out in the hand message
    before = snapshot(table)
    refused = await craft_click(env, member, hand, illegal_id)
    assert refused.response.ephemeral
    assert "You must follow" in refused.response.content
    assert snapshot(table) == before


async def test_dealer_forbidden_bid_is_disabled_with_reason_and_refused(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=4, schedule="down")
    for _ in range(400):
        game = table.game
        member = table.member_at(game.turn)
        assert member is not None
        if (
            game.phase is Phase.BIDDING
            and game.turn == game.dealer
            and game.forbidden_bid is not None
        ):
            break
        await table.act(member)
    else:
        raise AssertionError("the dealer never had a forbidden bid")
    forbidden = table.game.forbidden_bid
    hand = await table.open_hand(member)
    blocked = button(hand, f"{forbidden} (not allowed)")
    assert blocked.disabled
    reason = str(hand.embeds[0].to_dict())
    assert f"may not bid **{forbidden}**" in reason and "hook rule" in reason
    before = snapshot(table)
    refused = await craft_click(env, member, hand, blocked.custom_id)
    assert refused.response.ephemeral
    assert f"may not bid {forbidden}" in refused.response.content
    assert snapshot(table) == before


async def test_lobby_refusals(env: simcord.Env) -> None:
    channel, (asha, bilal, chen, dev) = world(env, "asha", "bilal", "chen", "dev")
    await asha.slash(channel, "kachuful start", players=3)
    lobby = lobby_message(channel)
    early = await asha.click(lobby, label="Leave")  # host leaving an otherwise empty lobby
    assert early.acknowledged
    assert "closed" in str(lobby_message(channel).embeds[0].to_dict())

    await asha.slash(channel, "kachuful start", players=3)
    lobby = channel.history()[-1]
    assert button(lobby, "Start (host)").disabled  # fewer than 3 seats
    twice = await asha.slash(channel, "kachuful join")
    assert "already have a seat" in twice.response.content
    await bilal.click(lobby, label="Join")
    lobby = channel.history()[-1]
    not_seated = await dev.click(lobby, label="Add computer player")
    assert not_seated.response.ephemeral and "not seated" in not_seated.response.content
    await chen.click(lobby, label="Join")
    lobby = channel.history()[-1]
    assert button(lobby, "Join").disabled  # full
    full = await dev.slash(channel, "kachuful join")
    assert "Every seat is taken" in full.response.content
    not_host = await bilal.click(lobby, label="Start (host)")
    assert not_host.response.ephemeral and "Only the host" in not_host.response.content
    again = await dev.slash(channel, "kachuful start")
    assert again.response.ephemeral and "already waiting for players" in again.response.content
    assert f"/{channel.id}/{lobby.id}" in again.response.content  # a link to the lobby


async def test_a_failed_save_changes_nothing_and_is_told_privately(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlite3

    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = await turn_of_first_human(table)
    hand = await table.open_hand(actor)
    before = snapshot(table)
    store = env.bot.store
    working = store.save_game

    async def broken(*args: object, **kwargs: object) -> None:
        # Not a storage failure the store knows (a full disk, an I/O error, a lock: see
        # test_full_disk.py): an unexpected error, told as such and logged with its traceback.
        raise sqlite3.DatabaseError("database disk image is malformed")

    store.save_game = broken  # type: ignore[method-assign]
    try:
        failed = await actor.click(hand, custom_id=enabled_actions(hand)[0].custom_id)
    finally:
        store.save_game = working  # type: ignore[method-assign]
    assert failed.response.ephemeral and "went wrong" in failed.response.content
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is sqlite3.DatabaseError]
    assert logged  # discord.py logs the failure; it is not swallowed
    assert snapshot(table) == before  # memory reloaded from the database
    assert not any("bids" in (m.content or "") for m in table.public())
    retry = await table.open_hand(actor)
    ok = await actor.click(retry, custom_id=enabled_actions(retry)[0].custom_id)
    assert ok.acknowledged and snapshot(table) != before
