"""/kachuful practice and Practise this deal (docs/review.md#practice): a deal played again
alone, privately, with the real cards of every seat, against computer players; hints on
request; unrated and counted nowhere; refusals that change nothing; a crash loses and doubles
nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import simcord

from bot.client import KachufulBot
from bot.i18n import EN
from bot.render.cards import hand_text
from bot.store.learning import Practices
from kachuful_core import load_game
from tests.bot.helpers import custom_ids, start_game, world

from .helpers import button_list, finished_game, forge, labels, texts

pytestmark = pytest.mark.both_backends


def move_buttons(message: Any) -> list[Any]:
    return [
        b
        for b in button_list(message)
        if not b.disabled and (b.custom_id.startswith("kf:pb:") or b.custom_id.startswith("kf:pc:"))
    ]


async def play_out(member: simcord.MemberActor, message: Any) -> Any:
    """Click the first enabled bid or card until the deal is over; the last message."""
    for _ in range(40):
        moves = move_buttons(message)
        if not moves:
            return message
        result = await member.click(message, custom_id=moves[0].custom_id)
        message = result.response
    raise AssertionError("the practice deal never ended")


async def test_a_game_s_deal_is_played_again_with_its_real_cards(env: simcord.Env) -> None:
    table, (_asha, bilal, _chen), game_id = await finished_game(env)
    history_before = await env.bot.store.reads.history(channel_id=table.channel.id, page=0)
    stored = await env.bot.store.reads.game(game_id)
    original = load_game(stored.record).deals[0]
    seat = next(s for s, e in enumerate(stored.seats) if e.user_id == bilal.id)

    started = await bilal.slash(
        table.channel, "kachuful practice", game=game_id, deal=1, level="heuristic"
    )
    assert started.ephemeral and started.response is not None
    shown = texts(started.response)
    assert "Practice · deal 1 · 2 cards" in shown and "Unrated" in shown
    practice = await env.bot.store.practice.load(1)
    assert practice is not None and practice.user_id == bilal.id and practice.seat == seat
    assert practice.record["deals"][0]["hands"] == stored.record["deals"][0]["hands"]
    # Bilal sees only his own cards while the deal is on.
    assert hand_text(original.hands[seat], EN) in shown
    for other in range(3):
        if other != seat:
            assert hand_text(original.hands[other], EN) not in shown

    end = await play_out(bilal, started.response)
    shown = texts(end)
    assert "Result" in shown and "The hands as dealt:" in shown
    for hand in original.hands:
        assert hand_text(hand, EN) in shown  # every seat's, now that it is over
    assert labels(end) == ["Play it again", "New deal"]
    # Counted nowhere: no game, no result, no board change.
    history_after = await env.bot.store.reads.history(channel_id=table.channel.id, page=0)
    assert history_after == history_before
    assert all("Practice" not in texts(m) for m in table.public())


async def test_hints_are_given_on_request_and_never_at_a_rated_table(env: simcord.Env) -> None:
    table, (asha, _b, _c), _game_id = await finished_game(env)
    # No button of the rated game, public or private, offers a hint.
    for member in table.members.values():
        for message in table.seen_by(member):
            assert not [c for c in custom_ids(message) if c.startswith("kf:ph:")]
    started = await asha.slash(table.channel, "kachuful practice", level="random")
    shown = texts(started.response)
    assert "Practice · deal" in shown and "🤖" in shown
    hinted = await asha.click(started.response, label="Hint")
    shown = texts(hinted.response)
    assert "Hint" in shown and "The Expert" in shown
    practice = await env.bot.store.practice.load(1)
    assert practice is not None and practice.hints == 1
    end = await play_out(asha, hinted.response)
    again = await asha.click(end, label="Play it again")
    replayed = await env.bot.store.practice.load(2)
    assert replayed is not None
    assert replayed.record["deals"][0]["hands"] == practice.record["deals"][0]["hands"]
    assert "Practice · deal" in texts(again.response)


async def test_someone_else_s_or_an_old_button_changes_nothing(env: simcord.Env) -> None:
    table, (asha, bilal, _c), _game_id = await finished_game(env)
    started = await asha.slash(table.channel, "kachuful practice", level="random")
    message = started.response
    first = move_buttons(message)[0].custom_id
    forged = await forge(env, bilal, message, first)
    assert forged.ephemeral and "someone else's" in forged.response.content
    before = await env.bot.store.practice.load(1)
    moved = await asha.click(message, custom_id=first)
    assert (await env.bot.store.practice.load(1)).version == before.version + 1
    # The same button again (a double click): the message has moved on, so the button is no
    # longer on it; the click is answered and nothing is applied twice.
    old = await forge(env, asha, message, first)
    assert old.ephemeral and "no longer works" in old.response.content
    after = await env.bot.store.practice.load(1)
    assert after.version == before.version + 1
    assert moved.response is not None and "Practice · deal" in texts(moved.response)


async def test_a_crash_after_a_move_is_saved_loses_and_doubles_nothing(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    table, (asha, _b, _c), game_id = await finished_game(env)
    started = await asha.slash(table.channel, "kachuful practice", game=game_id, level="random")
    message = started.response
    move = move_buttons(message)[0].custom_id
    original = Practices.save
    died: list[bool] = []

    async def dies(self: Practices, *args: Any) -> bool:
        if not died:
            died.append(True)
            await original(self, *args)
            raise asyncio.CancelledError  # the process stops before the message is edited
        return await original(self, *args)

    monkeypatch.setattr(Practices, "save", dies)
    await asha.click(message, custom_id=move)
    saved = await env.bot.store.practice.load(1)
    await env.restart_bot(make_bot())
    # The message still shows the deal before the move: clicking it again shows the deal as
    # saved, with the move applied once.
    again = await forge(env, asha, message, move)
    assert "had moved on" in (again.response.content or "")
    now = await env.bot.store.practice.load(1)
    assert now.version == saved.version and now.record == saved.record
    end = await play_out(asha, again.response)
    assert "Result" in texts(end)


async def test_practise_this_deal_from_a_replay(env: simcord.Env) -> None:
    table, (asha, _b, _c), game_id = await finished_game(env)
    review = await asha.slash(table.channel, "kachuful review", game=game_id)
    replay = await asha.click(review.response, label="Replay")
    step = await asha.click(replay.response, label="Next")
    practice = await asha.click(step.response, label="Practise this deal")
    assert practice.ephemeral and "Practice · deal 1 · 2 cards" in texts(practice.response)
    assert "(Expert)" in texts(practice.response)
    stored = await env.bot.store.practice.load(1)
    assert stored is not None and stored.source_game == game_id and stored.level == "search"


async def test_a_forehead_deal_is_not_practised(env: simcord.Env) -> None:
    """On a forehead deal a seat does not see its own card; the practice message would."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=1, forehead=True)
    while table.session is not None and table.session.row.status == "running":
        await table.act(table.member_at(table.game.turn))
    game_id = (await env.bot.store.reads.latest_closed_game(channel.id)).id
    refused = await members[0].slash(channel, "kachuful practice", game=game_id, deal=1)
    assert refused.ephemeral and "forehead deal cannot be practised" in refused.response.content
    assert await env.bot.store.practice.load(1) is None


async def test_the_practice_hand_is_drawn_as_cards_until_the_deal_ends(env: simcord.Env) -> None:
    """As at a table: the hand in words and as a picture of the cards; at the end, with the
    hand gone, the picture goes too."""
    table, (_asha, bilal, _chen), game_id = await finished_game(env)
    started = await bilal.slash(table.channel, "kachuful practice", game=game_id, deal=1)
    assert started.response is not None

    def seen(message_id: int) -> Any:
        return next(m for m in table.channel.history(viewer=bilal) if m.id == message_id)

    message = seen(started.response.id)
    [attachment] = message.attachments
    assert attachment.filename.endswith(".png")
    assert message.embeds[0].image.url == f"attachment://{attachment.filename}"
    assert env.backend.cdn.get(attachment.url)[:8] == b"\x89PNG\r\n\x1a\n"

    end = await play_out(bilal, started.response)
    finished = seen(end.id)
    assert "Result" in texts(finished)
    assert finished.attachments == [] and not finished.embeds[0].image
