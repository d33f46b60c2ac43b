"""The render layer: pure functions, checked against Discord's limits for the biggest tables."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot import render
from bot.i18n import EN
from bot.model import Seat, Table, TableOptions
from bot.render.cards import card_rows, hand_text, number_rows
from bot.render.channel import MODES, Post, View, public_posts
from bot.render.limits import MAX_PER_ROW
from bot.render.specs import MessageSpec, check_limits
from kachuful_core import Game, Phase, Rules
from kachuful_core.errors import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotInHand,
    DealerBidForbidden,
    InvalidSeat,
    MustFollowSuit,
    NotYourTurn,
    OptionNotEnabled,
    WrongPhase,
)
from kachuful_core.players import RandomPlayer, act
from kachuful_core.views import view as seat_view

LONG = "W" * 32  # Discord display names are at most 32 characters


def row_for(players: int, *, version: int = 7) -> Table:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    seats = [
        Seat(user_id=None if i == 1 else 10**17 + i, name=f"{LONG[:-1]}{i}") for i in range(players)
    ]
    return Table(
        id=12345678,
        guild_id=10**18,
        channel_id=10**18 + 1,
        host_id=10**17,
        status="running",
        options=TableOptions(),
        max_seats=players,
        seats=seats,
        created_at=now,
        updated_at=now,
        version=version,
    )


def assert_fits(spec: MessageSpec) -> None:
    assert check_limits(spec) == []
    assert len(spec.buttons) <= 25
    rows: dict[int, int] = {}
    for button in spec.buttons:
        rows[button.row] = rows.get(button.row, 0) + 1
        ids = ":".join(str(part) for part in button.action)
        assert len(ids) <= 80  # the custom_id built from it stays far below 100
    assert all(count <= MAX_PER_ROW for count in rows.values())
    assert len(rows) <= 5


@pytest.mark.parametrize("size", range(1, 18))
def test_card_rows_fit_any_hand(size: int) -> None:
    rng = random.Random(size)
    for _ in range(200):
        hand = rng.sample(range(52), size)
        rows = card_rows(hand)
        assert len(rows) <= 4 and all(len(r) <= 5 for r in rows)
        assert sorted(c for r in rows for c in r) == sorted(hand)


def test_card_rows_one_suit_per_row_when_possible() -> None:
    hand = [0, 1, 2, 13, 14, 26, 39, 40]  # ♠ 2 3 4 · ♥ 2 3 · ♦ 2 · ♣ 2 3
    rows = card_rows(hand)
    assert [sorted({c // 13 for c in r}) for r in rows] == [[0], [1], [2], [3]]
    assert number_rows(18) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17]]
    # Every suit in text presentation (U+FE0E): the font's glyph in the text colour, never an
    # emoji (near-black ♠ and ♣ on the dark theme).
    assert hand_text([12, 11, 0, 25], EN) == "♠\ufe0e A K 2 · ♥\ufe0e A"


VIEW = View(lobby_minutes=15, idle_hours=24, deadline=datetime(2024, 1, 1, 0, 1, tzinfo=UTC))


def render_public(posts: list[Post], built: set[str]) -> list[MessageSpec]:
    """Every public message as the publisher draws it now: the ones that can still change,
    and each final one once (as the publisher compares a final message only once)."""
    specs = []
    for post in posts:
        if post.final and post.key in built:
            continue
        specs.append(post.build())
        if post.final:
            built.add(post.key)
    return specs


@pytest.mark.parametrize(("players", "options"), [(3, {}), (7, {}), (3, {"blind_bids": True})])
@pytest.mark.parametrize("mode", ["trick", "compact"])  # thread mode draws as trick mode
def test_every_message_of_a_whole_game_fits(
    players: int, options: dict[str, bool], mode: str
) -> None:
    """Drive a complete game (17-card hands at three players) and render everything."""
    rules = Rules(players=players, **options)
    game = Game.new(rules, f"render-{players}", players=[f"{LONG[:-1]}{i}" for i in range(players)])
    row = row_for(players)
    row.options = TableOptions(mode=mode)
    row.seats[0].timeouts = 2  # notes about seats are part of the newest message
    row.seats[-1].away = True
    bots = [RandomPlayer(seat) for seat in range(players)]
    biggest = 0
    built: set[str] = set()
    keys: set[str] = set()
    while True:
        assert_fits(render.scoreboard(row, game, EN))
        posts = public_posts(row, game, replace(VIEW, delivered=frozenset(keys)))  # all out
        for spec in render_public(posts, built):
            assert_fits(spec)
        keys |= {post.key for post in posts}
        for seat in range(players) if mode == "trick" else ():  # the same in every mode
            spec = render.hand_message(row, seat_view(game, seat), EN, version=row.version)
            assert_fits(spec)
            biggest = max(biggest, len(spec.buttons))
        if game.phase is Phase.FINISHED:
            break
        act(game, game.turn, bots[game.turn])
    if mode == "trick":
        assert biggest >= (19 if players == 3 else 8)  # 18 bids + Refresh at 17 cards
    row.status = "finished"
    for spec in render_public(
        public_posts(row, game, replace(VIEW, delivered=frozenset(keys))), built
    ):
        assert_fits(spec)
    assert "final" in built
    # Every deal had its messages: per trick one each, in compact mode one live message.
    deals = range(game.num_deals)
    assert {f"d{d}.score" for d in deals} <= keys
    if mode == "compact":
        assert {f"d{d}.live" for d in deals} <= keys and not any(".t" in k for k in keys)
    else:
        tricks = {f"d{d}.t{t}" for d in deals for t in range(rules.hand_sizes[d])}
        assert tricks <= keys and {f"d{d}.bids" for d in deals} <= keys


def test_hand_message_shows_only_the_seat_s_own_cards() -> None:
    game = Game.new(Rules(players=4), "private", players=list("ABCD"))
    row = row_for(4)
    seat = game.turn
    spec = render.hand_message(row, seat_view(game, seat), EN, version=3)
    text = str([e.to_dict() for e in spec.embeds])
    assert hand_text(game.hand(seat), EN) in text
    for other in range(4):
        if other != seat:
            assert hand_text(game.hand(other), EN) not in text
    bids = [b for b in spec.buttons if b.action[0] == "bid"]
    assert [b.action for b in bids] == [("bid", row.id, 3, n, False) for n in range(14)]
    assert all(not b.disabled for b in bids)
    # Public messages never carry a card or a bid in a button, nor any hand's cards.
    row.seats[0].away = True
    while game.phase is not Phase.PLAYING or not game.current_trick:
        act(game, game.turn, RandomPlayer(game.turn))
    for mode in MODES:
        row.options = TableOptions(mode=mode)
        for post in public_posts(row, game, VIEW):
            spec = post.build()
            assert all(b.action[0] in ("hand", "back") for b in spec.buttons)
            shown = str([spec.content, *(e.to_dict() for e in spec.embeds)])
            for other in range(4):
                assert hand_text(game.hand(other), EN) not in shown


def test_dealer_forbidden_bid_disabled_with_reason() -> None:
    game = Game.new(Rules(players=3, max_hand=3), "hook", players=list("ABC"))
    while game.turn != game.dealer:
        game.bid(game.turn, 1)
    spec = render.hand_message(row_for(3), seat_view(game, game.dealer), EN, version=1)
    forbidden = game.forbidden_bid
    assert forbidden == 1
    [blocked] = [b for b in spec.buttons if b.action[:1] == ("bid",) and b.action[3] == forbidden]
    assert blocked.disabled and blocked.label == "1 (not allowed)"
    assert "may not bid **1**" in str(spec.embeds[0].to_dict())


def test_every_engine_error_has_words() -> None:
    row = row_for(3)
    errors = [
        NotYourTurn(0, 2),
        WrongPhase("playing", "bidding"),
        WrongPhase("bidding", "playing"),
        MustFollowSuit(0, 1, (13, 25), 0),
        CardNotInHand(0, 5),
        DealerBidForbidden(0, 2),
        BidOutOfRange(0, 9, 0, 3),
        BlindBidAfterLooking(0),
        OptionNotEnabled("forehead"),
        InvalidSeat(9),
    ]
    texts = [render.engine_error(error, row, EN) for error in errors]
    assert all(texts) and len(set(texts)) == len(texts)
    assert "must follow hearts" in texts[3] and "♥\ufe0e A 2" in texts[3] and "2♠\ufe0e" in texts[3]
    assert "may not bid 2" in texts[5]
    assert row.seats[2].name in texts[0]


def test_names_cannot_inject_markdown_or_mentions() -> None:
    row = row_for(3)
    row.seats[0].name = "**@everyone** <@100000000000000099>"
    row.seats[0].timeouts = 1  # the name in a note of the newest message too
    game = Game.new(Rules(players=3, max_hand=2), "names", players=["x", "y", "z"])
    specs = [post.build() for post in public_posts(row, game, VIEW)]
    assert len(specs) >= 3  # the lobby, the first dealer's draw, the bidding, the ping
    for spec in specs:
        text = str([spec.content, *(e.to_dict() for e in spec.embeds)])
        assert "@everyone" not in text.replace("@\u200beveryone", "")
        assert "<@100000000000000099>" not in text
        assert spec.allowed_mentions.everyone is False and spec.allowed_mentions.roles is False


def test_lobby_and_help_fit() -> None:
    lobby_row = row_for(7)
    lobby_row.status = "lobby"
    assert_fits(render.lobby(lobby_row, EN, timeout_minutes=15))
    assert_fits(render.help_message(EN))
    assert_fits(render.general_rules(EN))


def test_final_standings_with_a_shared_win() -> None:
    from kachuful_core.events import GameEnded

    row = row_for(4)
    ended = GameEnded(totals=(40, 55, 55, 12), winners=(1, 2))
    spec = render.final_standings(row, ended, EN)  # type: ignore[arg-type]  # totals, winners
    text = spec.embeds[0].description or ""
    first, second = row.seats[1].name, row.seats[2].name
    assert text.startswith(f"Shared win: **{first}** and **{second}**!")
    lines = text.split("\n\n")[1].splitlines()
    # Equal first; the dot escaped, or Discord would renumber the lines as a list (1, 2, 3).
    assert lines[0].startswith("1\\. ") and lines[1].startswith("1\\. ")
    assert lines[2].startswith("3\\. ") and lines[3].startswith("4\\. ")
    assert [line.endswith("🏆") for line in lines] == [True, True, False, False]
    # Names in bold, not mentions: the standings notify nobody.
    assert spec.mention_ids == () and "<@" not in text


def test_the_closed_lobby_names_the_winners_not_the_seats_in_order() -> None:
    """Beside the final standings, seats listed 1, 2, 3 would read as a ranking: a finished
    game's lobby names who won (one player, or the shared winners); a stopped one, none."""
    from kachuful_core.events import GameEnded

    row = row_for(4)
    row.status = "finished"
    names = [seat.name for seat in row.seats]
    for winners, headline in (
        ((2,), f"🏆 **{names[2]}** wins!"),
        ((0, 3), f"🏆 Shared win: **{names[0]}** and **{names[3]}**!"),
    ):
        ended = GameEnded(totals=(40, 12, 55, 40), winners=winners)
        spec = render.lobby_started(row, EN, 42, ended)  # type: ignore[arg-type]  # winners
        [embed] = spec.embeds
        assert embed.title == "Kachuful — game over"
        assert (embed.description or "").splitlines() == [
            headline,
            "See the final standings (game played in <#42>).",
        ]
        assert embed.fields == [] and spec.buttons == ()
    ended = GameEnded(totals=(40, 12, 55, 40), winners=(2,))
    spec = render.lobby_started(row, EN, None, ended)  # type: ignore[arg-type]
    assert (spec.embeds[0].description or "").endswith("\nSee the final standings.")
    row.status = "stopped"
    [embed] = render.lobby_started(row, EN, 42, ended).embeds  # type: ignore[arg-type]
    assert embed.title == "Kachuful — game stopped"
    assert embed.description == "The game was stopped without a result."
    assert "wins" not in str(embed.to_dict()) and "🏆" not in str(embed.to_dict())


def test_a_compact_deal_reads_seats_then_bids_then_tricks() -> None:
    from bot.render import deal as deal_render

    game = Game.new(Rules(players=3, max_hand=3), "compact", players=list("ABC"))
    row = row_for(3)
    bots = [RandomPlayer(seat) for seat in range(3)]
    while game.phase is not Phase.PLAYING or len(game.deals[0].trick_winners) < 1:
        act(game, game.turn, bots[game.turn])
    spec = deal_render.compact(row, game, 0, None, EN)
    embed = spec.embeds[0]
    text = embed.description or ""
    assert [f.name for f in embed.fields if f.name == "Bids"] == []  # not below the tricks
    bids_at = text.index("**Bids:** ")
    assert all(text.index(name) < bids_at for name in (s.name for s in row.seats))
    assert bids_at < text.index("**Trick 1 of 3**") < text.index("takes it")


def test_the_deal_heading_is_over_its_first_trick_only() -> None:
    """In per-trick mode the deal's heading marks where its tricks begin; the next tricks
    follow under it without repeating it."""
    from bot.render import deal as deal_render

    game = Game.new(Rules(players=3, max_hand=3, schedule="down"), "heading", list("ABC"))
    while len(game.completed_tricks) < 2:
        act(game, game.turn or 0, RandomPlayer(game.turn or 0))
    heading = deal_render.deal_heading(game, 0, EN)
    first, second = (
        deal_render.trick(row_for(3), game, 0, number, None, EN).content or "" for number in (0, 1)
    )
    assert first.startswith(f"-# {heading}\n**Trick 1 of 3**")
    assert second.startswith("**Trick 2 of 3**") and heading not in second
