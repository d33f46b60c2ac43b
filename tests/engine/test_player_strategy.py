"""Computer players through :func:`act` and in crafted deals: legal bids (the hook rule
included), the blind and forehead flows, refusals, determinism, and the heuristic's choices
where the right one follows from docs/rules.md alone (a trick that cannot be won, a card that
always wins, a card that weakly dominates another)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest

from kachuful_core import Game, Phase, Rules, card_str, view
from kachuful_core.events import BidPlaced, CardPlayed, DealStarted, Event, HandLooked
from kachuful_core.players import HeuristicPlayer, Player, RandomPlayer, act
from kachuful_core.record import export_record

from .support import bid_all, c, play_cards, preset_game, snapshot

SPADES = 0

# ---- building crafted deals -----------------------------------------------------------------


def spades_deal(hands: Sequence[str], *, dealer: int = 3, **options: Any) -> Game:
    """A four-player deal of ``len(hands[0].split())`` cards with spades trump and the given
    hands; the dealer is seat 3 by default, so seat 0 leads and seat 3 plays last."""
    size = len(hands[0].split())
    # Down schedule of top size+4: deal index 4 has ``size`` cards and trump cycle[4 % 4] = S.
    rules = Rules(players=4, max_hand=size + 4, schedule="down", **options)
    game = preset_game(rules, hands, deal=4, dealer=dealer)
    assert game.hand_size == size
    assert game.trump == SPADES
    return game


def choose_card(game: Game, seat: int = 3) -> str:
    """What the heuristic plays for ``seat`` now, through act; returns the card as text."""
    assert game.turn == seat
    events = act(game, seat, HeuristicPlayer(0))
    played = [e for e in events if isinstance(e, CardPlayed)]
    assert [e.seat for e in played] == [seat]
    return card_str(played[0].card)


def choose_bid(game: Game, seat: int) -> int:
    assert game.turn == seat
    events = act(game, seat, HeuristicPlayer(0))
    bids = [e for e in events if isinstance(e, BidPlaced)]
    assert [e.seat for e in bids] == [seat]
    return bids[0].bid


def bid_first(game: Game, bids: Sequence[int]) -> None:
    """The first ``len(bids)`` bids of the deal, in turn order."""
    for bid in bids:
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)


def drive(game: Game, seats: Sequence[Any], between: Any = None) -> list[Event]:
    """Play the game to its end with ``seats[s]`` acting for seat ``s``; all events."""
    events = list(game.opening_events())
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        if between is not None:
            between()
        events += act(game, seat, seats[seat])
    return events


# ---- act(): legal bids and the hook rule ----------------------------------------------------


def test_dealer_never_bids_the_forbidden_number_even_when_it_is_its_natural_bid() -> None:
    """Every deal size at four players, many seeds: every bid act makes is legal, the dealer's
    never the hook's number. The same deal with the hook off shows the dealer's natural bid;
    the test needs seeds where that bid is the forbidden one, so the hook really binds."""
    hooked = Rules(players=4, max_hand=6)
    free = Rules(players=4, max_hand=6, hook=False)
    bound = 0
    dealer_bids = 0
    for seed, deal in itertools.product(range(12), range(hooked.num_deals)):
        games = [
            Game(rules, seed=seed, first_dealer=seed % 4, start_deal=deal)
            for rules in (hooked, free)
        ]
        game, twin = games
        assert [game.hand(s) for s in range(4)] == [twin.hand(s) for s in range(4)]
        players = [HeuristicPlayer(seed * 4 + s) for s in range(4)]
        while game.phase is Phase.BIDDING:
            seat = game.turn
            assert seat is not None
            legal = game.legal_bids(seat)
            forbidden = game.forbidden_bid if seat == game.dealer else None
            bid = next(e.bid for e in act(game, seat, players[seat]) if isinstance(e, BidPlaced))
            natural = next(
                e.bid for e in act(twin, seat, players[seat]) if isinstance(e, BidPlaced)
            )
            assert bid in legal
            if seat != game.dealer:
                assert bid == natural  # the same view but for the hook: the same bid
                continue
            dealer_bids += 1
            if forbidden is not None:
                assert bid != forbidden
                bound += natural == forbidden
        assert game.phase is Phase.PLAYING
    assert dealer_bids == 12 * hooked.num_deals
    assert bound >= 5, "no deal where the hook rule changed the dealer's bid"


def test_random_player_bids_are_legal_for_the_dealer_too() -> None:
    for seed in range(40):
        game = Game.new(Rules(players=3, max_hand=2, schedule="down"), seed)
        player = RandomPlayer(seed)
        while game.phase is Phase.BIDDING:
            seat = game.turn
            assert seat is not None
            legal = game.legal_bids(seat)
            events = act(game, seat, player)
            assert next(e.bid for e in events if isinstance(e, BidPlaced)) in legal


# ---- act(): blind bids ----------------------------------------------------------------------


def deals_of(events: Sequence[Event]) -> list[tuple[int, list[Event]]]:
    """The events of each deal, after its DealStarted, with the deal's hand size."""
    out: list[tuple[int, list[Event]]] = []
    for ev in events:
        if isinstance(ev, DealStarted):
            out.append((ev.hand_size, []))
        elif out:
            out[-1][1].append(ev)
    return out


def test_blind_bids_in_small_deals_and_looks_first_in_larger_ones() -> None:
    """blind_max_hand=2 at a blind-bids table of sizes 3, 2, 1, 2, 3: every seat bids blind in
    the 1- and 2-card deals, without a HandLooked for it before its bid; in 3-card deals each
    seat looks, then bids openly."""
    rules = Rules(players=4, max_hand=3, blind_bids=True)
    for seed in range(3):
        game = Game.new(rules, seed)
        seats = [HeuristicPlayer(seed * 4 + s, blind_max_hand=2) for s in range(4)]
        deals = deals_of(drive(game, seats))
        assert [size for size, _ in deals] == [3, 2, 1, 2, 3]
        for size, deal in deals:
            bids = [(i, e) for i, e in enumerate(deal) if isinstance(e, BidPlaced)]
            assert len(bids) == 4
            for i, bid in bids:
                looked = [
                    j
                    for j, e in enumerate(deal)
                    if isinstance(e, HandLooked) and e.seat == bid.seat
                ]
                # Every seat picks up its hand exactly once in a deal.
                assert len(looked) == 1
                if size <= 2:
                    assert bid.blind
                    assert looked[0] > i  # picked up only once bidding is over
                else:
                    assert not bid.blind
                    assert looked[0] == i - 1  # looked, then bid
        assert [all(d.blind) for d in game.deals] == [False, True, True, True, False]
        assert not any(game.deals[0].blind) and not any(game.deals[4].blind)


def test_blind_bid_through_act_leaves_the_hand_unlooked_until_bidding_ends() -> None:
    game = Game.new(Rules(players=4, max_hand=2, blind_bids=True), 7)
    assert game.hand_size == 2
    player = HeuristicPlayer(3, blind_max_hand=2)
    for k in range(4):
        seat = game.turn
        assert seat is not None
        events = act(game, seat, player)
        assert isinstance(events[0], BidPlaced)
        assert events[0].seat == seat and events[0].blind
        assert events[0].bid in range(3)
        if k < 3:
            assert events == [events[0]]
            assert not game.has_looked(seat)
            assert view(game, seat).hand is None
        else:  # the last bid: every blind bidder picks up its hand
            assert sorted(e.seat for e in events if isinstance(e, HandLooked)) == [0, 1, 2, 3]
    assert game.blind == (True, True, True, True)
    assert game.phase is Phase.PLAYING


@pytest.mark.parametrize(
    "player", [HeuristicPlayer(5), HeuristicPlayer(5, blind_max_hand=1), RandomPlayer(5)]
)
def test_declining_a_blind_bid_looks_at_the_hand_first(player: Any) -> None:
    game = Game.new(Rules(players=4, max_hand=2, blind_bids=True), 11)
    assert game.hand_size == 2
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        assert view(game, seat).may_bid_blind
        events = act(game, seat, player)
        assert isinstance(events[0], HandLooked) and events[0].seat == seat
        assert isinstance(events[1], BidPlaced)
        assert events[1].seat == seat and not events[1].blind
        assert len(events) == 2
        assert game.has_looked(seat)
    assert not any(game.blind)


# ---- act(): the forehead deal ---------------------------------------------------------------


@pytest.mark.parametrize("kind", [HeuristicPlayer, RandomPlayer])
def test_forehead_deal_plays_the_unseen_card(kind: type) -> None:
    rules = Rules(players=5, max_hand=1, forehead=True)
    for seed in range(4):
        game = Game.new(rules, seed)
        assert game.is_forehead_deal
        players = [kind(seed * 5 + s) for s in range(5)]
        while game.phase is Phase.BIDDING:
            seat = game.turn
            assert seat is not None
            assert view(game, seat).hand is None
            act(game, seat, players[seat])
        while game.phase is Phase.PLAYING:
            seat = game.turn
            assert seat is not None
            v = view(game, seat)
            assert v.hand is None and v.play_unseen and v.legal_cards == ()
            (card,) = game.hand(seat)
            events = act(game, seat, players[seat])
            assert events[0] == CardPlayed(seat, card)
            assert game.hand(seat) == []
        assert game.phase is Phase.FINISHED


# ---- act(): refusals ------------------------------------------------------------------------


def refusal_game(state: str) -> Game:
    """A game in the given state: "bid", "lead", "follow", "forehead" (playing) or "over"."""
    if state == "over":
        game = Game.new(Rules(players=3, max_hand=1), 3)
        drive(game, [RandomPlayer(s) for s in range(3)])
        return game
    if state == "forehead":
        game = Game.new(Rules(players=4, max_hand=1, forehead=True), 3)
        bid_all(game, dict.fromkeys(range(4), 0))
        return game
    game = Game.new(Rules(players=4, max_hand=3), 3)
    if state != "bid":
        bid_all(game, dict.fromkeys(range(4), 1))
    if state == "follow":
        seat = game.turn
        assert seat is not None
        game.play(seat, game.legal_cards(seat)[0])
    return game


@pytest.mark.parametrize("state", ["bid", "lead", "follow", "forehead", "over"])
def test_act_out_of_turn_raises_and_changes_nothing(state: str) -> None:
    game = refusal_game(state)
    n = game.rules.players
    others = [s for s in range(n) if s != game.turn]
    assert len(others) == (n if state == "over" else n - 1)
    before = snapshot(game)
    players: tuple[Player, ...] = (HeuristicPlayer(0), RandomPlayer(0))
    for seat, player in itertools.product(others, players):
        with pytest.raises(ValueError):
            act(game, seat, player)
        assert snapshot(game) == before
    # The seat whose turn it is may still act.
    if game.turn is not None:
        moves = game.move_count
        act(game, game.turn, HeuristicPlayer(0))
        assert game.move_count == moves + 1


# ---- determinism and the Player protocol ----------------------------------------------------


def heuristic_game(seed: int, global_seed: int) -> str:
    random.seed(global_seed)
    game = Game.new(Rules(players=4), seed)
    seats = [HeuristicPlayer(seed * 4 + s) for s in range(4)]
    # Draw from the global generator between moves: a player that used it would diverge.
    drive(game, seats, between=random.random)
    return export_record(game).to_json()


def test_same_seeds_give_the_same_full_game_whatever_the_global_random_state() -> None:
    for seed in (1, 2):
        first = heuristic_game(seed, 0)
        assert heuristic_game(seed, 0) == first
        assert heuristic_game(seed, 12345) == first
    assert heuristic_game(1, 0) != heuristic_game(2, 0)


def test_one_player_object_may_act_for_every_seat() -> None:
    """Players keep no state between calls: one object for all seats plays like four."""
    shared = Game.new(Rules(players=4, max_hand=5), 9)
    drive(shared, [HeuristicPlayer(0)] * 4)
    separate = Game.new(Rules(players=4, max_hand=5), 9)
    drive(separate, [HeuristicPlayer(0) for _ in range(4)])
    assert export_record(shared).to_json() == export_record(separate).to_json()


def test_both_players_satisfy_the_player_protocol() -> None:
    assert getattr(Player, "_is_runtime_protocol", False)
    assert isinstance(HeuristicPlayer(0), Player)
    assert isinstance(RandomPlayer(0), Player)

    class NoBlind:
        name = "incomplete"

        def choose_bid(self, view: Any) -> int:
            return 0

        def choose_card(self, view: Any) -> int | None:
            return None

    assert not isinstance(NoBlind(), Player)


# ---- strategy: playing ----------------------------------------------------------------------

# Seats 0-2 in every playing scenario: seat 0 leads 8, seat 1 wins the trick so far with J,
# seat 2 plays 4; seat 3 plays last. Their other cards are low and in other suits.
OTHERS_H = ["8H 2S 3D 4C", "JH 5S 6D 7C", "4H 9S 10D 5C"]
OTHERS_S = ["8S 2H 3D 4C", "JS 5H 6D 7C", "4S 9H 10D 5C"]
OTHER_BIDS = {0: 1, 1: 1, 2: 1}


@pytest.mark.parametrize(
    ("others", "led", "hand", "duck"),
    [
        # Could win with the K; the 9 and 5 lose: shed the 9, keep the 5 to lose later.
        (OTHERS_H, "8H JH 4H", "KH 9H 5H 2C", "9H"),
        # Seat 1 trumped: every heart loses, so shed the highest.
        (["8H 3S 3D 4C", "2S 5S 6D 7C", OTHERS_H[2]], "8H 2S 4H", "KH 9H 5H 2C", "KH"),
        # Trumps led, and all three trumps lose to the J: shed the 10.
        (OTHERS_S, "8S JS 4S", "10S 9S 5S 2C", "10S"),
        # Trumps led, the K would win: shed the 9, the highest that loses.
        (OTHERS_S, "8S JS 4S", "KS 9S 5S 2C", "9S"),
    ],
    ids=["side-suit", "already-trumped", "trumps-all-lose", "trumps-one-wins"],
)
def test_bid_of_zero_ducks_with_its_highest_losing_card(
    others: list[str], led: str, hand: str, duck: str
) -> None:
    """A lower card of the same suit loses every trick a higher one loses, so with nothing
    more to take, the seat keeps its lowest cards and sheds the highest it can lose with."""
    game = spades_deal([*others, hand])
    bid_all(game, OTHER_BIDS | {3: 0})
    play_cards(game, led)
    assert choose_card(game) == duck
    assert game.tricks_won[3] == 0


def test_bid_made_in_an_earlier_trick_ducks_with_its_highest_losing_card() -> None:
    game = spades_deal(["3D KC 8H 2S 3S", "6D 7C JH 4S 5S", "10D 5C 4H 6S 7S", "AD 2C KH 9H 5H"])
    bid_all(game, {0: 1, 1: 1, 2: 1, 3: 1})
    play_cards(game, "3D 6D 10D AD  2C KC 7C 5C  8H JH 4H")
    assert game.tricks_won[3] == 1 and game.turn == 3
    assert choose_card(game) == "9H"
    assert game.tricks_won[3] == 1


@pytest.mark.parametrize("hand", ["3S KD 9C 2D", "7S 5S KD 3C", "10S 2D 3C 4D"])
def test_void_with_bid_made_discards_rather_than_trumping(hand: str) -> None:
    """Void in hearts with a bid of 0 made: any spade would take the trick (no trump played,
    seat 3 plays last); a side card loses it."""
    game = spades_deal([*OTHERS_H, hand])
    bid_all(game, OTHER_BIDS | {3: 0})
    play_cards(game, "8H JH 4H")
    card = choose_card(game)
    assert c(card) // 13 != SPADES, card
    assert game.tricks_won[3] == 0


@pytest.mark.parametrize(
    ("hand", "led", "win"),
    [
        # Needs every trick: the Q wins this one as surely as the A, and the A and K left
        # are the best chance for the rest.
        ("QH AH KH AS", "8H JH 4H", "QH"),
        # Void in hearts, needs every trick: ruff with the 3, keep the high trumps.
        ("3S AS KS QS", "8H JH 4H", "3S"),
        # Trumps led: the Q beats the J, as the A would.
        ("QS AS KS 2C", "8S JS 4S", "QS"),
    ],
    ids=["follow", "ruff", "trumps"],
)
def test_needing_every_trick_wins_with_the_lowest_winning_card(
    hand: str, led: str, win: str
) -> None:
    """Seat 3 plays last and bid all four tricks: any trick lost is a miss. Winning with the
    lowest card that wins keeps a hand at least as strong as winning with a higher one."""
    others = OTHERS_S if led.endswith("S") else OTHERS_H
    game = spades_deal([*others, hand])
    bid_all(game, {0: 1, 1: 0, 2: 0, 3: 4})
    play_cards(game, led)
    assert choose_card(game) == win
    assert game.tricks_won[3] == 1


# ---- strategy: bidding ----------------------------------------------------------------------


def one_card_deal(
    card: str, seat: int, prior: Sequence[int], others: str = "3D 4D 5D", **options: Any
) -> Game:
    """A four-player one-card deal, spades trump, dealer seat 3; ``seat`` holds ``card``,
    the other seats ``others`` in order, and the seats before it have bid ``prior``."""
    fillers = iter(others.split())
    hands = [card if s == seat else next(fillers) for s in range(4)]
    rules = Rules(players=4, max_hand=1, schedule="down", **options)
    game = preset_game(rules, hands, deal=0, dealer=3)
    assert game.hand_size == 1 and game.trump == SPADES
    bid_first(game, prior)
    assert game.turn == seat
    return game


def positions(seats: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Every seat in ``seats`` with every run of 0/1 bids before it."""
    return [(seat, prior) for seat in seats for prior in itertools.product((0, 1), repeat=seat)]


@pytest.mark.parametrize(("seat", "prior"), positions(range(4)))
def test_one_card_ace_of_trumps_bids_one(seat: int, prior: tuple[int, ...]) -> None:
    """The ace of trumps takes the trick whoever leads: 1 whenever 1 is legal."""
    game = one_card_deal("AS", seat, prior)
    legal = game.legal_bids(seat)
    assert choose_bid(game, seat) == (1 if 1 in legal else 0)


@pytest.mark.parametrize(("seat", "prior"), positions([1, 2, 3]))
@pytest.mark.parametrize("card", ["2H", "2D"])
def test_one_card_lowest_side_card_not_leading_bids_zero(
    card: str, seat: int, prior: tuple[int, ...]
) -> None:
    """Not on lead, the two of a side suit never takes the trick: 0 whenever 0 is legal."""
    game = one_card_deal(card, seat, prior, "3H 4H 5H" if card == "2D" else "3D 4D 5D")
    legal = game.legal_bids(seat)
    assert choose_bid(game, seat) == (0 if 0 in legal else 1)


def test_hooked_dealer_with_a_sure_trick_bids_up_not_down() -> None:
    """Two cards, the dealer holds the ace of trumps and the two of hearts; the others bid
    1, 0, 0. Its natural bid 1 is forbidden; 0 can never be made (the ace always takes a
    trick) while 2 sometimes can, so it bids 2."""
    free = spades_deal(["3D 4D", "5D 6D", "7D 8D", "AS 2H"], hook=False)
    bid_first(free, [1, 0, 0])
    assert choose_bid(free, 3) == 1
    game = spades_deal(["3D 4D", "5D 6D", "7D 8D", "AS 2H"])
    bid_first(game, [1, 0, 0])
    assert game.legal_bids(3) == [0, 2]
    assert choose_bid(game, 3) == 2


@pytest.mark.parametrize(("seat", "prior"), positions(range(4)))
@pytest.mark.parametrize("mine", ["2D", "JS", "5H"])
def test_forehead_facing_the_top_trumps_bids_zero(
    mine: str, seat: int, prior: tuple[int, ...]
) -> None:
    """A forehead deal: the three other seats show the A, K and Q of trumps, so whatever
    card this seat holds (it cannot see it), one of them takes the trick: 0 when legal."""
    tops = iter(["AS", "KS", "QS"])
    hands = [mine if s == seat else next(tops) for s in range(4)]
    rules = Rules(players=4, max_hand=1, schedule="down", forehead=True)
    game = preset_game(rules, hands, deal=0, dealer=3)
    assert game.is_forehead_deal and game.trump == SPADES
    bid_first(game, prior)
    v = view(game, seat)
    assert v.hand is None
    assert sorted(v.visible_cards.values()) == sorted(c(x) for x in ("AS", "KS", "QS"))
    legal = game.legal_bids(seat)
    assert choose_bid(game, seat) == (0 if 0 in legal else 1)
