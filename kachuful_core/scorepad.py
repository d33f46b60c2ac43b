"""A score pad for a game played with a real deck: the bot deals no card, the players say
their bids and then the tricks they took, and the pad checks what can be checked and keeps
the score. Its record is ``kachuful-scorepad/1`` (docs/scorepad.md), not a game record: it
holds no card, and says so.

Checked: bids are made in turn from the dealer's left, within 0..hand size, and the dealer may
not make the bids add up to the hand size when the hook rule is on; each player's tricks lie
within 0..hand size; the tricks entered so far never add up to more than the hand size, and a
deal is scored only once every player's tricks add up to exactly the hand size. A player may
correct their tricks until the deal is scored (the count that makes the total wrong is the one
to fix, whoever entered it).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .cards import SUIT_LETTERS
from .errors import (
    BidOutOfRange,
    DealerBidForbidden,
    InvalidSeat,
    KachufulError,
    NotYourTurn,
    RecordError,
    WrongPhase,
)
from .rules import Rules

FORMAT = "kachuful-scorepad/1"
CARDS = "real deck: the cards were dealt and played at the table, not by the bot"


class TricksDoNotAddUp(KachufulError):
    """The tricks entered add up to more than the deal has (or, all entered, to another
    number): ``total`` entered for ``hand_size``."""

    def __init__(self, total: int, hand_size: int) -> None:
        super().__init__(f"the tricks add up to {total}; the deal has {hand_size}")
        self.total = total
        self.hand_size = hand_size


class PadDeal(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    bids: list[int | None]
    tricks: list[int | None]


class PadRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["kachuful-scorepad/1"]
    cards: str = CARDS
    rules: dict[str, Any]
    players: list[str]
    first_dealer: int
    deals: list[PadDeal]


Stage = Literal["bidding", "tricks", "finished"]


class ScorePad:
    """The score pad of one game. Build with :meth:`new` or :meth:`from_document`."""

    def __init__(self, rules: Rules, players: list[str], first_dealer: int) -> None:
        if len(players) != rules.players:
            raise ValueError(f"{len(players)} names for {rules.players} seats")
        if not 0 <= first_dealer < rules.players:
            raise ValueError(f"there is no seat {first_dealer}")
        if rules.blind_bids or rules.forehead or rules.trump == "turned":
            raise ValueError(
                "blind bids, the forehead deal and the turned trump are not kept on a score pad"
            )
        self.rules = rules
        self.players = list(players)
        self.first_dealer = first_dealer
        self.deals: list[PadDeal] = []
        self._open_deal()

    @classmethod
    def new(cls, rules: Rules, players: list[str], first_dealer: int = 0) -> ScorePad:
        return cls(rules, players, first_dealer)

    # ---- where the game stands ---------------------------------------------------------

    @property
    def n(self) -> int:
        return self.rules.players

    @property
    def deal_index(self) -> int:
        """The deal in play (its place in the schedule); the number of deals once finished."""
        return len(self.deals) - 1 if self.stage != "finished" else len(self.deals)

    @property
    def current(self) -> PadDeal:
        return self.deals[-1]

    @property
    def stage(self) -> Stage:
        if len(self.deals) == self.rules.num_deals and self._scored(len(self.deals) - 1):
            return "finished"
        if any(b is None for b in self.deals[-1].bids):
            return "bidding"
        return "tricks"

    def dealer(self, index: int | None = None) -> int:
        index = len(self.deals) - 1 if index is None else index
        return (self.first_dealer + index) % self.n

    def hand_size(self, index: int | None = None) -> int:
        index = len(self.deals) - 1 if index is None else index
        return self.rules.hand_sizes[index]

    def trump(self, index: int | None = None) -> int | None:
        """The trump of a deal by the cycle (None: no trump)."""
        index = len(self.deals) - 1 if index is None else index
        return self.rules.trump_for(index)

    def bid_order(self, index: int | None = None) -> list[int]:
        dealer = self.dealer(index)
        return [(dealer + 1 + k) % self.n for k in range(self.n)]

    @property
    def turn(self) -> int | None:
        """The seat to bid, while bidding; None otherwise."""
        if self.stage != "bidding":
            return None
        return next(s for s in self.bid_order() if self.current.bids[s] is None)

    def forbidden_bid(self) -> int | None:
        """The dealer's forbidden bid, once everyone else has bid (hook rule)."""
        if self.stage != "bidding" or self.turn != self.dealer():
            return None
        others = sum(b for b in self.current.bids if b is not None)
        return self.rules.forbidden_bid(self.hand_size(), others)

    def legal_bids(self) -> list[int]:
        forbidden = self.forbidden_bid()
        return [b for b in range(self.hand_size() + 1) if b != forbidden]

    def scores(self) -> list[tuple[int, ...]]:
        """Each scored deal's scores, by seat."""
        out = []
        for index, deal in enumerate(self.deals):
            if self._scored(index):
                out.append(
                    tuple(
                        self.rules.score(b or 0, t or 0)
                        for b, t in zip(deal.bids, deal.tricks, strict=True)
                    )
                )
        return out

    @property
    def totals(self) -> list[int]:
        totals = [0] * self.n
        for row in self.scores():
            for seat, points in enumerate(row):
                totals[seat] += points
        return totals

    def winners(self) -> tuple[int, ...] | None:
        if self.stage != "finished":
            return None
        best = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == best)

    def summary(self) -> dict[str, Any]:
        """The pad's scores as ``kachuful_core.score_summary`` gives a game's (the document of
        docs/record-format.md), so that a pad's results are counted as a game's are. A pad
        knows no trick's winner: ``trick_winners`` is None."""
        deals = []
        for index, scores in enumerate(self.scores()):
            deal = self.deals[index]
            trump = self.trump(index)
            bids = list(deal.bids)
            others = sum(b or 0 for s, b in enumerate(bids) if s != self.dealer(index))
            deals.append(
                {
                    "index": index,
                    "dealer": self.dealer(index),
                    "hand_size": self.hand_size(index),
                    "trump": None if trump is None else SUIT_LETTERS[trump],
                    "bids": bids,
                    "forbidden_bid": self.rules.forbidden_bid(self.hand_size(index), others),
                    "trick_winners": None,
                    "tricks_won": [t or 0 for t in deal.tricks],
                    "scores": list(scores),
                }
            )
        winners = self.winners()
        return {
            "complete": self.stage == "finished",
            "deals": deals,
            "totals": self.totals,
            "winners": None if winners is None else list(winners),
        }

    def tricks_entered(self) -> int:
        return sum(t for t in self.current.tricks if t is not None)

    # ---- entries ------------------------------------------------------------------------

    def bid(self, seat: int, bid: int) -> None:
        """``seat`` bids; raises the engine's errors for a bid out of turn, out of range or
        forbidden to the dealer."""
        if self.stage != "bidding":
            raise WrongPhase(self.stage, "bidding")
        if seat != self.turn:
            raise NotYourTurn(seat, self.turn)
        size = self.hand_size()
        if not 0 <= bid <= size:
            raise BidOutOfRange(seat, bid, 0, size)
        forbidden = self.forbidden_bid()
        if forbidden is not None and bid == forbidden:
            raise DealerBidForbidden(seat, forbidden)
        self.current.bids[seat] = bid

    def tricks(self, seat: int, tricks: int) -> bool:
        """``seat`` took ``tricks`` tricks (or corrects its count); True when this entry
        completed and scored the deal (the next deal then opens). Raises for a count out of
        range, or one that makes the counts add up to more than the deal has."""
        if self.stage != "tricks":
            raise WrongPhase(self.stage, "playing")
        if not 0 <= seat < self.n:
            raise InvalidSeat(seat)
        size = self.hand_size()
        if not 0 <= tricks <= size:
            raise BidOutOfRange(seat, tricks, 0, size)
        counts = list(self.current.tricks)
        counts[seat] = tricks
        total = sum(t for t in counts if t is not None)
        if total > size:
            raise TricksDoNotAddUp(total, size)
        self.current.tricks[seat] = tricks
        if self._scored(len(self.deals) - 1):
            self._open_deal()
            return True
        return False

    def mismatch(self) -> int | None:
        """Every count entered but adding up to less than the deal has: that total."""
        counts = self.current.tricks
        if self.stage == "tricks" and None not in counts:
            total = sum(t for t in counts if t is not None)
            if total != self.hand_size():
                return total
        return None

    def _scored(self, index: int) -> bool:
        deal = self.deals[index]
        return None not in deal.tricks and sum(
            t for t in deal.tricks if t is not None
        ) == self.hand_size(index)

    def _open_deal(self) -> None:
        if len(self.deals) < self.rules.num_deals:
            self.deals.append(PadDeal(bids=[None] * self.n, tricks=[None] * self.n))

    # ---- the record ---------------------------------------------------------------------

    def to_document(self) -> dict[str, Any]:
        deals = [d for d in self.deals if any(b is not None for b in d.bids)]
        return {
            "format": FORMAT,
            "cards": CARDS,
            "rules": self.rules.options(),
            "players": list(self.players),
            "first_dealer": self.first_dealer,
            "deals": [d.model_dump() for d in deals],
        }

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> ScorePad:
        """A pad from its record, every entry checked again; ``RecordError`` (in words)
        for a record that is not valid."""
        try:
            record = PadRecord.model_validate(document)
        except ValidationError as error:
            raise RecordError(f"not a score pad record: {error.errors()[0]['msg']}") from None
        try:
            rules = Rules(**record.rules)
            pad = cls(rules, record.players, record.first_dealer)
        except (ValidationError, ValueError, TypeError) as error:
            raise RecordError(f"rules or players: {error}") from None
        if len(record.deals) > rules.num_deals:
            raise RecordError(
                f"deals: {len(record.deals)} deals; the schedule has {rules.num_deals}"
            )
        for number, deal in enumerate(record.deals):
            where = f"deal {number}"
            if len(deal.bids) != pad.n or len(deal.tricks) != pad.n:
                raise RecordError(f"{where}: one bid and one trick count per player")
            if number < len(record.deals) - 1 and None in deal.tricks:
                raise RecordError(f"{where} is not complete, but another deal follows it")
            try:
                for seat in pad.bid_order(number):
                    bid = deal.bids[seat]
                    if bid is None:
                        break
                    pad.bid(seat, bid)
                for seat, count in enumerate(deal.tricks):
                    if count is not None:
                        pad.tricks(seat, count)
            except KachufulError as error:
                raise RecordError(f"{where}: {error}") from None
            if any(b is None for b in deal.bids) and any(t is not None for t in deal.tricks):
                raise RecordError(f"{where}: tricks are entered before bidding is over")
        return pad
