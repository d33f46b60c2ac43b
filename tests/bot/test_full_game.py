"""Whole games through the real bot: slash commands and clicks to the final standings."""

from __future__ import annotations

import re
from typing import Any

import pytest
import simcord

from bot.i18n import EN
from bot.render.cards import label as card_label
from kachuful_core import load_game, score_summary
from kachuful_core.cards import parse_card

from .helpers import Table, buttons, custom_ids, forced_cards, validate_all_requests, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends

TRICK_LINE = re.compile(r"^\*\*Trick (\d+) of (\d+)\*\*: (.+)$", re.MULTILINE)
CARD = re.compile(r"^`([^`]+)` \*\*(.+)\*\*$")


def trick_cards(text: str) -> list[tuple[int, int, list[str]]]:
    """(trick number, hand size, ["name card", ...]) of every trick line in ``text``."""
    found = []
    for match in TRICK_LINE.finditer(text):
        cards = []
        for part in match.group(3).split(" · "):
            card = CARD.match(part)
            assert card is not None, part
            cards.append(f"{card.group(2)} {card.group(1)}")
        found.append((int(match.group(1)), int(match.group(2)), cards))
    return found


def public_tricks(table: Table) -> list[tuple[int, int, list[str]]]:
    """Every trick shown publicly, in the order of the messages."""
    found = []
    for message in table.public():
        found += trick_cards(message.content or "")
        for embed in message.embeds:
            found += trick_cards(embed.description or "")
    return found


FINAL = "Kachuful — final standings"


async def test_three_players_full_game(env: simcord.Env) -> None:
    channel, (asha, bilal, chen) = world(env, "asha", "bilal", "chen")
    outsider = env.guild.add_member(env.create_user("dev"))

    started = await asha.slash(channel, "kachuful start", players=3, max_hand=3)
    assert not started.ephemeral
    lobby = started.response
    assert lobby is not None
    assert [b.label for b in buttons(lobby.message)] == [
        "Join",
        "Leave",
        "Add computer player",
        "Start (host)",
        "Quick game",
        "Classic game",
        "Full game",
    ]
    embed = lobby.embeds[0].to_dict()
    assert "asha" in embed["fields"][0]["value"] and "Max hand: 3 cards" in str(embed)
    assert "<@" not in str(embed["fields"])  # raw mentions show as <@id> text in fields

    await bilal.click(lobby, label="Join")
    joined = await chen.slash(channel, "kachuful join")
    assert joined.ephemeral
    assert "3 of 3" in str(table_lobby(channel).embeds[0].to_dict())

    refused = await bilal.click(table_lobby(channel), label="Start (host)")
    assert refused.ephemeral and "Only the host" in refused.response.content
    await asha.click(table_lobby(channel), label="Start (host)")

    table = Table(env, channel, [asha, bilal, chen])
    assert table.session.row.status == "running"
    contents = [m.content or "" for m in table.public()]
    assert any(c.startswith("🎴 Draw:") and "deals first" in c for c in contents)

    # The deal's table message: deal n of N, hand size, trump, dealer, bids, whose turn.
    opening = table.last_public_with("Your hand")
    title = opening.embeds[0].title or ""
    assert title.startswith("Deal 1 of 5 · 3 cards · trump ♠")
    first = table.member_at(table.game.turn)
    assert first is not None and first.mention not in (opening.content or "")
    pings = [m for m in table.public() if first.mention in (m.content or "")]
    assert len(pings) == 1 and pings[0].id > opening.id

    # A non-player cannot see a hand.
    nosy = await outsider.click(opening, label="Your hand")
    assert nosy.ephemeral and "not seated" in nosy.response.content

    actions = await table.play_to_end()
    await env.advance_time(60)  # new messages are paced at 5 per 5 s in a channel

    row = await env.bot.store.load_game(table.session.row.id) if table.session else None
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert row is None and stored is not None and stored.status == "finished"
    # 5 deals of 3,2,1,2,3 cards: one bid a deal, one card a trick; but the cards of each
    # deal's forced ending (its last trick at least) played themselves.
    forced = forced_cards(stored.record)
    assert len(forced) >= 3 * 5
    assert actions == 3 * (5 + 11) - len(forced)

    # Hands: only in ephemeral messages, each visible to its owner alone.
    for member in (asha, bilal, chen):
        hand_id = table.hand_ids[member.id]
        assert table.message(hand_id, member).flags.ephemeral
        for other in (asha, bilal, chen, outsider):
            if other is not member:
                assert hand_id not in [m.id for m in table.seen_by(other)]
    for message in table.public():
        assert not any(cid.startswith(("kf:p:", "kf:b:")) for cid in custom_ids(message))
        # The game is over: only the final standings keep a button, "Play again".
        final = any(e.title == "Kachuful — final standings" for e in message.embeds)
        assert [b.label for b in buttons(message)] == (["Play again", "Review"] if final else [])

    # The public tricks are the engine's record, card by card.
    replay = load_game(stored.record)
    summary = score_summary(replay)
    names = [seat.name for seat in stored.seats]
    assert public_tricks(table) == record_tricks(stored.record, summary)
    assert len(public_tricks(table)) == 11

    # Scores posted after each deal and the final standings agree with the record.
    # The last deal's scores come with the final standings, as a second embed (the game ended
    # in the change that scored it: one post fewer, the final standings a pacing slot sooner).
    score_posts = [
        e for m in table.public() for e in m.embeds if "Scores after deal" in (e.title or "")
    ]
    assert len(score_posts) == 5
    running = [0, 0, 0]
    for post, deal in zip(score_posts, summary["deals"], strict=True):
        assert post.title == f"Scores after deal {deal['index'] + 1} of 5"
        rows = (post.description or "").split("```")[1].strip().splitlines()[1:]
        for seat, line in enumerate(rows):
            running[seat] += deal["scores"][seat]
            *name, bid, won, points, total = line.split()
            assert " ".join(name) == names[seat]
            assert (int(bid), int(won)) == (deal["bids"][seat], deal["tricks_won"][seat])
            assert (int(points), int(total)) == (deal["scores"][seat], running[seat])
    assert running == list(summary["totals"])
    # Per deal: the bidding message, one message per trick, the scores (H + 2); besides them
    # only the lobby, the opening draw and the final standings remain (pings are deleted); the
    # last deal's last trick (it plays itself with the card before it, so the channel still
    # owes it when the game ends) and scores are in the final standings.
    assert len(table.public()) == sum(size + 2 for size in (3, 2, 1, 2, 3)) + 3 - 2
    final = [
        m for m in table.public() if any(e.title == "Kachuful — final standings" for e in m.embeds)
    ]
    assert len(final) == 1
    # What the channel owed comes first, in the order things happened.
    titles = [e.title for e in final[0].embeds]
    assert titles == ["Deal 5 of 5 · trump ♠︎ Spades", "Scores after deal 5 of 5", FINAL]
    text = final[0].embeds[2].description or ""
    for seat, total in enumerate(summary["totals"]):
        assert f"**{names[seat]}** — {total}" in text
    winners = summary["winners"]
    assert ("Shared win" in text) == (len(winners) > 1)

    # The leaderboard shows the result (sorted by wins: each row's figure is its wins, then
    # the games played).
    board = await bilal.slash(channel, "kachuful leaderboard", sort="wins")
    description = board.response.embeds[0].description or ""
    assert "<@" not in description  # names, not raw mentions
    for seat, member in enumerate((asha, bilal, chen)):
        wins = 1 if seat in winners else 0
        line = next(line for line in description.splitlines() if f" {member.name} · " in line)
        assert line.endswith(f" {member.name} · **{wins}** · 1")

    # Every body the bot sent is valid for Discord's API description.
    assert validate_all_requests(env) > 50


def table_lobby(channel: simcord.ChannelHandle) -> Any:
    return channel.history()[0]


def record_tricks(
    record: dict[str, Any], summary: dict[str, Any]
) -> list[tuple[int, int, list[str]]]:
    """The record's tricks as the table should have posted them: leader of the first trick
    on the dealer's left, then each trick's winner (from the engine's score summary)."""
    names = record["players"]
    players = len(names)
    expected = []
    for deal, scored in zip(record["deals"], summary["deals"], strict=True):
        leader = (scored["dealer"] + 1) % players
        for number, trick in enumerate(deal["tricks"], start=1):
            seats = [(leader + i) % players for i in range(len(trick))]
            cards = [
                f"{names[s]} {card_label(parse_card(c), EN)}"
                for s, c in zip(seats, trick, strict=True)
            ]
            expected.append((number, scored["hand_size"], cards))
            leader = scored["trick_winners"][number - 1]
    return expected
