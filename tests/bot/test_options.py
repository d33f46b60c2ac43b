"""Table options through the bot and the read-only commands (command syncing: see
test_command_sync.py)."""

from __future__ import annotations

import json

import discord
import pytest
import simcord

from bot.i18n import EN
from bot.render.cards import hand_text
from kachuful_core import Phase, card_str, load_game

from .helpers import buttons, enabled_actions, start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store(
        "the lobby's options; their storage is tests/bot/store/test_table_options.py"
    ),
]


async def test_forehead_deal_shows_the_others_cards_and_plays_unseen(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2, schedule="down", forehead=True)
    while table.game.hand_size != 1:
        await table.act(table.member_at(table.game.turn))
    assert table.game.is_forehead_deal
    # Bidding in the forehead deal: everyone sees the others' cards, not their own.
    for member in members:
        hand = await table.open_hand(member)
        text = str(hand.embeds[0].to_dict())
        seat = table.session.row.seat_of(member.id)
        assert "cannot see your own card" in text
        own = discord.utils.escape_markdown(_label(table.game.hand(seat)[0]))
        others = [table.game.hand(s)[0] for s in range(3) if s != seat]
        assert all(_label(card) in text for card in others)
        assert f"{table.session.row.seats[seat].name}** {own}" not in text
    dealt = [table.game.hand(s)[0] for s in range(3)]
    game_id = table.session.row.id
    while table.session is not None and table.game.phase is Phase.BIDDING:
        await table.act(table.member_at(table.game.turn))
    # Every card of the one-card deal is forced: once bidding is over it plays itself, nobody
    # sees their own card before it is on the table, and the game (schedule "down") ends.
    stored = await env.bot.store.load_game(game_id)
    assert stored.status == "finished"
    played = sorted(
        card for trick in load_game(stored.record).deals[-1].tricks for _, card in trick
    )
    assert played == sorted(dealt)


def _label(card: int) -> str:
    from kachuful_core.cards import card_label

    return card_label(card)


async def test_blind_bid_before_looking(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2, schedule="down", blind_bids=True)
    first = table.member_at(table.game.turn)
    hand = await table.open_hand(first)
    assert "not looked at your cards" in (hand.embeds[0].description or "")
    assert all(b.label.startswith("Blind ") for b in enabled_actions(hand))
    blind = await first.click(hand, label="Blind 1")
    assert blind.acknowledged
    seat = table.session.row.seat_of(first.id)
    assert table.game.bids[seat] == 1 and table.game.blind[seat]
    # The deal's bidding message shows the bid as blind, next to the bidder.
    bids = [
        line
        for m in table.public()
        for e in m.embeds
        for line in (e.description or "").splitlines()
        if first.name in line
    ]
    assert any(line.endswith(": 1 (blind)") for line in bids), bids

    second = table.member_at(table.game.turn)
    hand = await table.open_hand(second)
    looked = await second.click(hand, label="Look at my hand")
    assert looked.acknowledged
    hand = table.hand(second)
    assert not any(b.label.startswith("Blind") for b in buttons(hand))
    second_seat = table.session.row.seat_of(second.id)
    assert hand.embeds[0].description == hand_text(table.game.hand(second_seat), EN)
    assert table.session.row.seats[second_seat].looked_deal == table.game.deal_index
    await table.play_to_end()


async def test_turned_trump_and_other_options(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(
        env,
        channel,
        members,
        max_hand=2,
        trump="turned",
        scoring="judgement",
        hook=False,
        schedule="double",
    )
    assert table.game.rules.trump == "turned" and table.game.rules.scoring == "judgement"
    assert table.game.num_deals == 5  # 2 1 2 1 2
    opening = table.last_public_with("Your hand")
    assert "Turned card" in str(opening.embeds[0].to_dict())
    rules = await members[1].slash(channel, "kachuful rules")
    text = rules.response.embeds[0].description or ""
    assert "Turned card" in text and "Judgement" in text and "Hook rule: off" in text
    await table.play_to_end()


async def test_score_rules_help_and_export(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    general = await members[0].slash(channel, "kachuful rules")
    assert "Kachuful — the rules" in (general.response.embeds[0].title or "")
    helped = await members[0].slash(channel, "kachuful help")
    assert helped.response.ephemeral and "/kachuful start" in helped.response.embeds[0].description
    nothing = await members[0].slash(channel, "kachuful export")
    assert "No finished game" in nothing.response.content

    table = await start_game(env, channel, members, max_hand=2, schedule="down")
    early = await members[2].slash(channel, "kachuful export")
    assert "No finished game" in early.response.content  # a running game's hands stay hidden
    score = await members[1].slash(channel, "kachuful score")
    assert score.response.ephemeral and "scores" in (score.response.embeds[0].title or "").lower()
    await table.play_to_end()
    exported = await members[2].slash(channel, "kachuful export")
    assert exported.response.ephemeral
    attachment, seeds_file = exported.response.attachments
    record = json.loads(await attachment.read())
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert record == stored.record and record["format"] == "kachuful-record/1"
    seeds = json.loads(await seeds_file.read())
    game = load_game(stored.record, seed=stored.seed)
    assert [d["seed"] for d in seeds["deals"]] == [
        game.reveal(index) for index in range(len(record["deals"]))
    ]
    # The seeds deal the recorded hands (anyone can check them with the engine's dealing).
    from kachuful_core.dealing import commitment, deal_hands

    first = seeds["deals"][0]
    assert commitment(bytes.fromhex(first["seed"])) == first["commitment"]
    assert first["commitment"] == game.commitment(0)
    hands, _ = deal_hands(
        bytes.fromhex(first["seed"]), 3, record["first_dealer"], len(record["deals"][0]["hands"][0])
    )
    dealt = [sorted(card_str(card) for card in hand) for hand in hands]
    assert dealt == [sorted(hand) for hand in record["deals"][0]["hands"]]
