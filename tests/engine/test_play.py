"""Rule tables through the game: following suit, trumps, no-trump, the hook rule, scoring,
blind bids and shared wins. Every expected value is worked out by hand from docs/rules.md."""

from __future__ import annotations

import pytest

from kachuful_core import (
    DealerBidForbidden,
    Game,
    MustFollowSuit,
    Phase,
    RecordError,
    Rules,
    card_str,
    load_game,
    score_summary,
    view,
)
from kachuful_core.events import DealScored, DealStarted, GameEnded, TrickWon
from kachuful_core.record import export_record

from .support import (
    EXAMPLE_HANDS,
    EXAMPLE_NAMES,
    bid_all,
    c,
    cs,
    example_record,
    play_cards,
    preset_game,
    suit_id,
    trump_letter,
)

EXAMPLE_PLAY = "KH 2C AH 7H  4S 2S 3S AS  3D 5D 9D 4D"

# ---- one-card tricks: who wins ----------------------------------------------------------------


def one_card_game(trump: str | None, cards: str, players: int = 4) -> Game:
    """A one-card deal whose trump is ``trump`` (by the cycle), dealer the last seat, so seat 0
    leads and ``cards`` are played by seats 0, 1, 2, ... in order."""
    # In a "down" schedule of top H the one-card deal is index H-1, trump cycle[H-1].
    tops = {"S": 1, "D": 2, "C": 3, "H": 4}
    if trump is None:
        rules = Rules(players=players, max_hand=5, schedule="down", trump="cycle-notrump")
        deal = 4
    else:
        rules = Rules(players=players, max_hand=tops[trump], schedule="down")
        deal = tops[trump] - 1
    game = preset_game(rules, cards.split(), deal=deal, dealer=players - 1)
    assert game.hand_size == 1
    assert trump_letter(game.trump) == trump
    return game


@pytest.mark.parametrize(
    ("trump", "cards", "winner"),
    [
        ("C", "KH 2C AH 7H", 1),  # the worked example: a low trump beats the led ace
        ("C", "KH 2C 3C 7H", 2),  # higher trump wins
        ("C", "KH AS AD 7H", 0),  # aces of other non-trump suits win nothing
        ("C", "2H AS 3H 7H", 3),  # highest of the led suit
        ("S", "AH 2S KH QH", 1),
        ("S", "2S AH AD AC", 0),  # a trump lead wins against off-suit aces
        ("S", "5S 2S AS 3S", 2),  # trump led: highest trump
        ("D", "10D JD 9D 2D", 1),  # J above 10
        ("D", "9D 10D 8D 2D", 1),  # 10 above 9
        ("H", "10S 9S JS 2H", 3),
        ("H", "QH KH 2C AS", 1),
        (None, "KH 2C AH 7H", 2),  # no trump: clubs are just another suit
        (None, "2D AS AC AH", 0),  # no trump: the led suit wins over every ace
        (None, "QS KS 10S JS", 1),
    ],
)
def test_trick_winner(trump: str | None, cards: str, winner: int) -> None:
    game = one_card_game(trump, cards)
    bid_all(game, {0: 0, 1: 0, 2: 0, 3: 0})
    events = play_cards(game, cards)
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [winner]
    expected = [0, 0, 0, 0]
    expected[winner] = 1
    scored = [e for e in events if isinstance(e, DealScored)]
    assert list(scored[0].tricks_won) == expected


@pytest.mark.parametrize("players", [3, 5, 6, 7])
def test_trick_winner_at_every_table_size(players: int) -> None:
    # Trump clubs; the last seat's 2C wins against the led ace.
    cards = [*["AH", "KH", "QH", "JH", "10H", "9H"][: players - 1], "2C"]
    game = one_card_game("C", " ".join(cards), players)
    bid_all(game, dict.fromkeys(range(players), 0))
    events = play_cards(game, " ".join(cards))
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [players - 1]


# ---- following suit ---------------------------------------------------------------------------

FOLLOW = ["KH AS 3D", "2C 4H 5D", "AH 9H 2S", "7H 3S 4D"]
VOID = EXAMPLE_HANDS  # B has no hearts
TRUMP_LEAD = ["KC AS 3D", "2C 4S 5D", "AH 9D 2S", "7H 3S 4D"]


@pytest.mark.parametrize(
    ("hands", "before", "seat", "legal", "refused"),
    [
        # must follow suit: the only legal cards are those of the led suit
        (FOLLOW, "KH", 1, "4H", "2C 5D"),
        (FOLLOW, "KH 4H", 2, "AH 9H", "2S"),
        (FOLLOW, "KH 4H AH", 3, "7H", "3S 4D"),
        (TRUMP_LEAD, "KC", 1, "2C", "4S 5D"),  # trump led: follow with trump
        # void: any card, trump or not (no duty to trump)
        (VOID, "KH", 1, "2C 4S 5D", ""),
        (TRUMP_LEAD, "KC 2C", 2, "AH 9D 2S", ""),
        # the leader leads any card, trump included
        (TRUMP_LEAD, "", 0, "KC AS 3D", ""),
        (VOID, "", 0, "KH AS 3D", ""),
    ],
)
def test_follow_suit_and_void_play(
    hands: list[str], before: str, seat: int, legal: str, refused: str
) -> None:
    def fresh() -> Game:
        game = preset_game(Rules(players=4), hands, deal=10, dealer=3)
        assert trump_letter(game.trump) == "C"
        bid_all(game, {0: 1, 1: 0, 2: 1, 3: 0})
        play_cards(game, before)
        assert game.turn == seat
        return game

    game = fresh()
    assert sorted(game.legal_cards(seat)) == sorted(cs(legal))
    assert sorted(view(game, seat).legal_cards) == sorted(cs(legal))
    led = before.split()[0][-1] if before else None
    for text in refused.split():
        assert not game.can_play(seat, c(text))
        with pytest.raises(MustFollowSuit) as info:
            game.play(seat, c(text))
        error = info.value
        assert error.seat == seat
        assert led is not None and error.suit == suit_id(led)
        assert sorted(error.held) == sorted(cs(legal))
        assert error.played == c(text)
    for text in legal.split():  # every legal card is accepted
        game = fresh()
        assert game.can_play(seat, c(text))
        game.play(seat, c(text))
        assert c(text) not in game.hand(seat)


# ---- the hook rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hook", "others", "legal", "forbidden"),
    [
        (True, [1, 0, 1], [0, 2, 3], 1),  # the worked example
        (True, [0, 0, 0], [0, 1, 2], 3),
        (True, [3, 0, 0], [1, 2, 3], 0),
        (True, [2, 1, 0], [1, 2, 3], 0),
        (True, [1, 1, 0], [0, 2, 3], 1),
        (True, [2, 2, 0], [0, 1, 2, 3], None),  # forbidden -1: out of range, all legal
        (True, [3, 3, 3], [0, 1, 2, 3], None),  # others already bid more than the tricks
        (False, [1, 0, 1], [0, 1, 2, 3], None),
        (False, [0, 0, 0], [0, 1, 2, 3], None),
        (False, [3, 0, 0], [0, 1, 2, 3], None),
    ],
)
def test_hook_rule(hook: bool, others: list[int], legal: list[int], forbidden: int | None) -> None:
    def fresh() -> Game:
        rules = Rules(players=4, hook=hook)
        game = preset_game(rules, EXAMPLE_HANDS, deal=10, dealer=3)
        for seat, bid in enumerate(others):
            # bidders before the dealer are never restricted
            assert game.legal_bids(seat) == [0, 1, 2, 3]
            game.bid(seat, bid)
        assert game.turn == 3
        return game

    game = fresh()
    assert game.legal_bids(3) == legal
    assert list(view(game, 3).legal_bids) == legal
    assert view(game, 3).forbidden_bid == forbidden
    assert game.forbidden_bid == forbidden
    for bid in range(4):
        assert game.can_bid(3, bid) == (bid in legal)
    if forbidden is not None:
        with pytest.raises(DealerBidForbidden) as info:
            game.bid(3, forbidden)
        assert info.value.forbidden == forbidden
        assert info.value.seat == 3
    for bid in legal:
        game = fresh()
        game.bid(3, bid)
        assert game.phase is Phase.PLAYING
        assert game.forbidden_bid == forbidden
        assert score_summary(game)["deals"][0]["forbidden_bid"] == forbidden
        if hook:
            assert sum(others) + bid != 3


@pytest.mark.parametrize("players", [3, 5, 7])
def test_hook_rule_at_other_table_sizes(players: int) -> None:
    # A one-card deal: everyone before the dealer bids 0, so the dealer may not bid 1.
    rules = Rules(players=players, max_hand=1)
    hands = ["AS", "KS", "QS", "JS", "10S", "9S", "8S"][:players]
    game = preset_game(rules, hands, deal=0, dealer=players - 1)
    for seat in range(players - 1):
        game.bid(seat, 0)
    assert game.legal_bids(players - 1) == [0]
    with pytest.raises(DealerBidForbidden):
        game.bid(players - 1, 1)


# ---- scoring through a deal -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scoring", "scores"),
    [
        # bids 1 0 1 0, tricks 1 1 1 0 (the worked example)
        ("exact", [11, 0, 11, 10]),
        ("penalty", [11, -1, 11, 10]),
        ("per-trick", [11, 1, 11, 10]),
        ("judgement", [10, -10, 10, 10]),
    ],
)
def test_scoring_of_the_example_deal(scoring: str, scores: list[int]) -> None:
    game = preset_game(Rules(players=4, scoring=scoring), EXAMPLE_HANDS, deal=10, dealer=3)
    bid_all(game, {0: 1, 1: 0, 2: 1, 3: 0})
    events = play_cards(game, EXAMPLE_PLAY)
    scored = [e for e in events if isinstance(e, DealScored)]
    assert list(scored[0].scores) == scores
    assert list(scored[0].totals) == scores
    assert list(game.totals) == scores
    record = example_record()
    record["rules"]["scoring"] = scoring
    assert score_summary(load_game(record))["totals"] == scores


@pytest.mark.parametrize(
    ("scoring", "scores"),
    [
        # A bids 1 blind and takes 1 (doubled); B bids 0 blind and takes 1 (a miss: not
        # doubled); C bids 1, takes 1; D bids 0, takes 0.
        ("exact", [22, 0, 11, 10]),
        ("penalty", [22, -1, 11, 10]),
        ("per-trick", [22, 1, 11, 10]),
        ("judgement", [20, -10, 10, 10]),
    ],
)
def test_blind_bids_double_an_exact_bid_only(scoring: str, scores: list[int]) -> None:
    rules = Rules(players=4, scoring=scoring, blind_bids=True)
    game = preset_game(rules, EXAMPLE_HANDS, deal=10, dealer=3, names=EXAMPLE_NAMES)
    game.bid(0, 1, blind=True)
    game.bid(1, 0, blind=True)
    game.bid(2, 1)
    game.bid(3, 0)
    assert game.blind == (True, True, False, False)
    events = play_cards(game, EXAMPLE_PLAY)
    scored = [e for e in events if isinstance(e, DealScored)]
    assert list(scored[0].scores) == scores
    assert scored[0].blind == (True, True, False, False)
    # the same deal as a record
    record = example_record()
    record["rules"].update(scoring=scoring, blind_bids=True)
    record["deals"][0]["blind"] = [True, True, False, False]
    assert score_summary(load_game(record))["totals"] == scores
    assert load_game(export_record(game)).totals == scores


# ---- the end of the game ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "bids", "scores", "winners"),
    [
        # seat 1 trumps the led 2H with AS; bids all 0: scores 10, 0, 10, a shared win
        (["2H", "AS", "KS"], {0: 0, 1: 0, 2: 0}, [10, 0, 10], [0, 2]),
        # the dealer may not bid 0 after 0, 1; seat 1 alone wins
        (["2H", "AS", "KS"], {0: 0, 1: 1, 2: 1}, [10, 11, 0], [1]),
        # seat 0 leads the trump ace and makes its 1; the dealer may not bid 0 after 1, 0
        (["AS", "2H", "3H"], {0: 1, 1: 0, 2: 1}, [11, 10, 0], [0]),
    ],
)
def test_winners_and_shared_wins(
    hands: list[str], bids: dict[int, int], scores: list[int], winners: list[int]
) -> None:
    rules = Rules(players=3, max_hand=1)  # a schedule of one one-card deal, spades trump
    assert rules.num_deals == 1
    game = preset_game(rules, hands, deal=0, dealer=2)
    bid_all(game, bids)
    assert game.winners is None
    events = play_cards(game, " ".join(hands))
    assert game.phase is Phase.FINISHED
    assert list(game.totals) == scores
    assert game.winners == tuple(winners)
    ended = [e for e in events if isinstance(e, GameEnded)]
    assert len(ended) == 1 and list(ended[0].winners) == winners
    summary = score_summary(game)
    assert summary["complete"] is True
    assert summary["winners"] == winners
    assert summary["totals"] == scores


def test_a_judgement_game_can_end_in_a_tie_of_everyone() -> None:
    # Judgement: exact scores 10 whatever the bid; bids 1, 0, 0 with seat 0 taking the trick
    # (without the hook rule, which would forbid the dealer's 0).
    rules = Rules(players=3, max_hand=1, scoring="judgement", hook=False)
    game = preset_game(rules, ["AS", "2H", "3H"], deal=0, dealer=2)
    bid_all(game, {0: 1, 1: 0, 2: 0})
    play_cards(game, "AS 2H 3H")
    assert list(game.totals) == [10, 10, 10]
    assert game.winners == (0, 1, 2)


# ---- turned trump -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turned", "cards", "winner"),
    [
        ("5H", "KS 2H AS QS", 1),  # hearts turned: 2H trumps
        ("5D", "KS 2H AS QS", 2),  # diamonds turned, none played: highest spade
        ("AC", "KS 2C 3C QS", 2),
    ],
)
def test_turned_card_sets_trump(turned: str, cards: str, winner: int) -> None:
    rules = Rules(players=4, max_hand=1, trump="turned")
    game = preset_game(rules, cards.split(), deal=0, dealer=3, turned=turned)
    assert trump_letter(game.trump) == turned[-1]
    assert game.turned == c(turned)
    bid_all(game, {0: 0, 1: 0, 2: 0, 3: 0})
    events = play_cards(game, cards)
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [winner]
    summary = score_summary(game)
    assert summary["deals"][0]["trump"] == turned[-1]


def test_turned_trump_with_no_card_left() -> None:
    # Four players, 13 cards each: the whole deck is dealt, nothing is turned, no trump.
    for seed in range(5):
        game = Game(Rules(players=4, trump="turned"), seed=seed, first_dealer=seed % 4)
        (started,) = game.opening_events()
        assert isinstance(started, DealStarted)
        assert game.hand_size == 13
        assert started.turned is None and started.trump is None
        assert game.trump is None and game.turned is None
        assert view(game, 0).trump is None


@pytest.mark.parametrize(("players", "size"), [(3, 17), (5, 10), (7, 7), (4, 12)])
def test_turned_trump_is_the_suit_of_the_next_card(players: int, size: int) -> None:
    rules = Rules(players=players, trump="turned")
    deal = rules.hand_sizes.index(size)
    for seed in range(5):
        game = Game(rules, seed=seed, first_dealer=0, start_deal=deal)
        (started,) = game.opening_events()
        assert isinstance(started, DealStarted)
        assert started.turned is not None
        assert all(started.turned not in game.hand(s) for s in range(players))
        assert started.trump == game.trump is not None
        assert trump_letter(game.trump) == card_str(started.turned)[-1]


def test_turned_trump_in_a_record() -> None:
    # Each seat holds one whole suit: 52 cards dealt, "turned" is null and there is no trump.
    ranks = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    doc = {
        "format": "kachuful-record/1",
        "rules": {"players": 4, "trump": "turned"},
        "players": ["A", "B", "C", "D"],
        "first_dealer": 3,
        "deals": [{"hands": [[r + s for r in ranks] for s in "SHDC"], "turned": None}],
    }
    assert score_summary(load_game(doc))["deals"][0]["trump"] is None
    # Twelve cards each: four are left, so one must be turned.
    doc["start_deal"] = 1
    doc["deals"] = [{"hands": [[r + s for r in ranks[:12]] for s in "SHDC"], "turned": None}]
    with pytest.raises(RecordError) as info:
        load_game(doc)
    assert str(info.value).startswith("deal 1")
    doc["deals"][0]["turned"] = "2H"
    assert score_summary(load_game(doc))["deals"][0]["trump"] == "H"
