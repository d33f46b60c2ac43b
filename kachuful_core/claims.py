"""Ends of a deal the table need not click through: claims and forced cards.

A **claim**: the player to play says their cards take every remaining trick of the deal. The
claim is accepted only when it is certain *whatever the others hold*: it is decided from the
claimant's own cards and the cards already played (public), never from the other hands, so a
refused claim tells the claimant nothing the rules hide. An accepted claim is played out at
once, card by card, so the record stays a plain sequence of moves the engine replays.

Why the check is sound: the others are treated as one opponent who may hold any card not yet
seen (not in the claimant's hand, not played, not the turned card) and plays to beat the
claimant. The claimant wins the trick in progress with a card nothing unseen can beat, then
leads every trick: trumps first, highest first, then each other suit highest first. A lead of a
suit draws at least one unseen card of that suit from whoever holds one (they must follow), and
the opponent gives up its lowest; so the claimant's j-th lead in a suit is safe if fewer than
j unseen cards of that suit could remain, or it is higher than every unseen card of the suit. A
lead in a plain suit is safe only once no unseen trump can remain (a void hand could trump it).

**Forced cards**: when every remaining card of the deal has only one legal choice (in practice
the last trick, or the last two when everyone must follow suit), the deal plays itself out.
"""

from __future__ import annotations

from .cards import BITS, DECK_SIZE, Card, cards_of
from .errors import ClaimNotCertain, NotYourTurn, WrongPhase
from .events import Event
from .game import Game, Phase


def claim_line(game: Game, seat: int) -> list[Card] | None:
    """The claimant's cards in an order that takes every remaining trick whatever the others
    hold, or None when no such order is certain. Only for the seat whose turn it is to play."""
    if game.phase is not Phase.PLAYING or seat != game.turn or game.is_forehead_deal:
        return None  # in a forehead deal the claimant cannot see their own card
    hand = game.hand(seat)
    unseen = _unseen(game, hand)
    trick = game.current_trick
    if not trick:
        return _leads(hand, unseen, game.trump)
    last_to_play = len(trick) == game.rules.players - 1
    for card in sorted(game.legal_cards(seat), reverse=True):
        if not _wins_trick(card, trick, unseen, game.trump, last_to_play):
            continue
        rest = _leads([c for c in hand if c != card], unseen, game.trump)
        if rest is not None:
            return [card, *rest]
    return None


def claim(game: Game, seat: int) -> list[Event]:
    """Play out a certain claim: the claimant's cards in :func:`claim_line`'s order, the
    others' lowest legal card each time. Raises :class:`ClaimNotCertain` (nothing played)."""
    if game.phase is not Phase.PLAYING:
        raise WrongPhase(game.phase.value, Phase.PLAYING.value)
    if seat != game.turn:
        raise NotYourTurn(seat, game.turn)
    line = claim_line(game, seat)
    if line is None:
        raise ClaimNotCertain(seat)
    deal = game.deal_number
    events: list[Event] = []
    while game.phase is Phase.PLAYING and game.deal_number == deal:
        player = game.turn
        assert player is not None  # playing: someone is to play
        card = line.pop(0) if player == seat else min(game.legal_cards(player))
        events += game.play(player, card)
    return events


def all_forced(game: Game) -> bool:
    """Whether every remaining card of the deal has only one legal choice: the last trick,
    or the last two when everyone still to play in the current one holds a single card of the
    suit led (the next trick's leader holding two cards or more would have a choice)."""
    if game.phase is not Phase.PLAYING:
        return False
    remaining = game.hand_size - len(game.completed_tricks)
    trick = game.current_trick
    if remaining == 1:
        return True
    if remaining != 2 or not trick:
        return False
    led = trick[0][1] // 13
    played = {seat for seat, _ in trick}
    to_play = [seat for seat in range(game.rules.players) if seat not in played]
    return all(sum(1 for c in game.hand(seat) if c // 13 == led) == 1 for seat in to_play)


def play_forced(game: Game) -> list[Event]:
    """Play out the rest of the deal when every remaining card is forced (nothing otherwise)."""
    if not all_forced(game):
        return []
    deal = game.deals[-1]
    events: list[Event] = []
    while game.phase is Phase.PLAYING and game.deals[-1] is deal:
        seat = game.turn
        assert seat is not None  # playing: someone is to play
        (card,) = game.legal_cards(seat)
        events += game.play(seat, card)
    return events


def single_legal_card(game: Game, seat: int) -> Card | None:
    """The seat's only legal card, when it is their turn to play and they have no choice."""
    legal = game.legal_cards(seat)
    return legal[0] if len(legal) == 1 else None


# ---- the proof ----------------------------------------------------------------------------------


def _unseen(game: Game, hand: list[Card]) -> int:
    """The cards the claimant cannot see: not theirs, not played this deal, not turned."""
    seen = sum(BITS[c] for c in hand)
    for trick in (*game.completed_tricks, game.current_trick):
        seen |= sum(BITS[c] for _, c in trick)
    if game.turned is not None:
        seen |= BITS[game.turned]
    return ((1 << DECK_SIZE) - 1) & ~seen


def _in_suit(cards: list[Card], suit: int) -> list[Card]:
    return sorted((c for c in cards if c // 13 == suit), reverse=True)


def _wins_trick(
    card: Card, trick: tuple[tuple[int, Card], ...], unseen: int, trump: int | None, last: bool
) -> bool:
    """Whether ``card`` takes the trick in progress whatever the seats after it hold."""
    led = trick[0][1] // 13
    suit = card // 13
    beaten: list[Card] = [c for _, c in trick]
    if not last:
        # A seat still to play may hold any unseen card of the suit led, and may trump if
        # void in it.
        beaten += _in_suit(cards_of(unseen), led)
        if trump is not None and led != trump:
            beaten += _in_suit(cards_of(unseen), trump)
    for other in beaten:
        other_suit = other // 13
        if suit == other_suit and other > card:
            return False
        if suit != other_suit and (suit != trump) and (other_suit in (led, trump)):
            return False
    return suit in (led, trump)


def _leads(hand: list[Card], unseen: int, trump: int | None) -> list[Card] | None:
    """The claimant's leads, trumps first: None if one of them could lose its trick."""
    unseen_cards = cards_of(unseen)
    order: list[Card] = []
    trumps_left = len(_in_suit(unseen_cards, trump)) if trump is not None else 0
    suits = [trump] if trump is not None else []
    suits += [s for s in range(4) if s != trump]
    for suit in suits:
        mine = _in_suit(hand, suit)
        if not mine:
            continue
        if suit != trump and trumps_left > 0:
            return None  # a plain lead while a trump may be out: it could be trumped
        theirs = _in_suit(unseen_cards, suit)
        left = len(theirs)
        for card in mine:
            if left > 0 and theirs[0] > card:
                return None
            left = max(0, left - 1)
            order.append(card)
        if suit == trump:
            trumps_left = left
    return order
