"""Typed refusals. Every command checks first and raises one of these, leaving the state unchanged.

The fields are structured so that callers (the bot's render layer) can word them for a player;
the messages here are for developers and logs.
"""

from __future__ import annotations

from .cards import Card, Suit, card_str


class KachufulError(ValueError):
    """Base of every refusal by the engine."""


class InvalidSeat(KachufulError):
    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"there is no seat {seat}")


class WrongPhase(KachufulError):
    def __init__(self, phase: str, expected: str) -> None:
        self.phase = phase
        self.expected = expected
        super().__init__(f"the game is {phase}, not {expected}")


class NotYourTurn(KachufulError):
    def __init__(self, seat: int, expected: int | None) -> None:
        self.seat = seat
        self.expected = expected
        super().__init__(f"seat {seat} acted out of turn (seat {expected} is to act)")


class BidOutOfRange(KachufulError):
    def __init__(self, seat: int, bid: int, low: int, high: int) -> None:
        self.seat, self.bid, self.low, self.high = seat, bid, low, high
        super().__init__(f"seat {seat} bid {bid}; bids run from {low} to {high}")


class DealerBidForbidden(KachufulError):
    def __init__(self, seat: int, forbidden: int) -> None:
        self.seat = seat
        self.forbidden = forbidden
        super().__init__(f"the dealer (seat {seat}) may not bid {forbidden}")


class BlindBidAfterLooking(KachufulError):
    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"seat {seat} has looked at its hand and cannot bid blind")


class OptionNotEnabled(KachufulError):
    def __init__(self, option: str) -> None:
        self.option = option
        super().__init__(f"the table option {option!r} is off")


class CardNotInHand(KachufulError):
    def __init__(self, seat: int, card: Card) -> None:
        self.seat = seat
        self.card = card
        shown = card_str(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)
        super().__init__(f"seat {seat} does not hold {shown}")


class CardNotAllowed(KachufulError):
    """A held card that a rule of play (kachuful_core.legality) rules out: ``rule`` names the
    rule (a step of ``legality.STEPS``), ``allowed`` the cards it leaves the seat."""

    def __init__(
        self, seat: int, rule: str, allowed: tuple[Card, ...], played: Card, message: str = ""
    ) -> None:
        self.seat, self.rule, self.allowed, self.played = seat, rule, allowed, played
        super().__init__(
            message or f"seat {seat} may not play {card_str(played)} under the rule {rule!r}"
        )


class MustFollowSuit(CardNotAllowed):
    """The follow-suit rule's refusal: ``held``, the cards of the led ``suit`` held."""

    def __init__(self, seat: int, suit: Suit, held: tuple[Card, ...], played: Card) -> None:
        self.suit, self.held = suit, held
        super().__init__(
            seat,
            "follow",
            held,
            played,
            f"seat {seat} must follow suit {suit} and played {card_str(played)}",
        )


class ClaimNotCertain(KachufulError):
    """A claim of every remaining trick that the claimant's cards could fail to make."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"seat {seat}: the remaining tricks are not certain to be won")


class NothingToTakeBack(KachufulError):
    """The seat's last move cannot be taken back (another seat acted since, or the deal is
    over, or the seat has not moved in this deal)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        super().__init__(f"seat {seat} has no move to take back")


class RecordError(KachufulError):
    """A game record that is not valid; the message is the one line a player reads."""
