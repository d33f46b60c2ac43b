"""What one seat may see: the only input to a private hand message and to a computer player."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Suit
from .game import Game, Phase, Trick
from .rules import Rules


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    players: int
    phase: Phase
    deal_index: int
    deal_number: int
    num_deals: int
    hand_size: int
    trump: Suit | None
    turned: Card | None
    dealer: int
    turn: int | None
    # Own cards; None while hidden (not looked at yet with blind bids, or a forehead deal).
    hand: tuple[Card, ...] | None
    # Other seats' cards a forehead deal shows this seat (their cards still unplayed).
    visible_cards: dict[int, Card]
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    current_trick: Trick
    leader: int
    completed_tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    totals: tuple[int, ...]
    legal_bids: tuple[int, ...]
    # Cards this seat may play now; empty when it is not its turn or its card is unseen.
    legal_cards: tuple[Card, ...]
    forbidden_bid: int | None
    may_bid_blind: bool
    has_looked: bool
    # A forehead deal: it is this seat's turn to play its one card, unseen.
    play_unseen: bool
    hook: bool
    scoring: str
    rules: Rules

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat

    @property
    def is_dealer(self) -> bool:
        return self.dealer == self.seat


def view(game: Game, seat: int) -> SeatView:
    """Exactly what ``seat`` may see of ``game``."""
    game._check_seat(seat)
    forehead = game.is_forehead_deal and game.phase in (Phase.BIDDING, Phase.PLAYING)
    looked = game.has_looked(seat)
    own_visible = looked and not forehead and game.phase is not Phase.DEALING
    hand = tuple(game.hand(seat)) if own_visible else None
    visible: dict[int, Card] = {}
    if forehead:
        for other in range(game.rules.players):
            cards = game.hand(other)
            if other != seat and cards:
                visible[other] = cards[0]
    my_turn = game.turn == seat
    legal_cards = tuple(game.legal_cards(seat)) if own_visible else ()
    dealer_bidding = my_turn and seat == game.dealer and game.phase is Phase.BIDDING
    forbidden = game.forbidden_bid if dealer_bidding else None
    return SeatView(
        seat=seat,
        players=game.rules.players,
        phase=game.phase,
        deal_index=game.deal_index,
        deal_number=game.deal_number,
        num_deals=game.num_deals,
        hand_size=game.hand_size,
        trump=game.trump,
        turned=game.turned,
        dealer=game.dealer,
        turn=game.turn,
        hand=hand,
        visible_cards=visible,
        bids=game.bids,
        blind=game.blind,
        current_trick=game.current_trick,
        leader=game.leader,
        completed_tricks=game.completed_tricks,
        tricks_won=game.tricks_won,
        totals=tuple(game.totals),
        legal_bids=tuple(game.legal_bids(seat)),
        legal_cards=legal_cards,
        forbidden_bid=forbidden,
        may_bid_blind=(
            game.rules.blind_bids
            and not looked
            and game.phase is Phase.BIDDING
            and game.bids[seat] is None
        ),
        has_looked=looked,
        play_unseen=forehead and my_turn and game.phase is Phase.PLAYING,
        hook=game.rules.hook,
        scoring=game.rules.scoring,
        rules=game.rules,
    )
