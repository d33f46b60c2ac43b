"""The game as a state machine: draw, deal, bid, play, score, over the whole schedule.

Queries (``legal_bids``, ``legal_cards``, ``can_*``, properties) return values. Commands
(``look``, ``bid``, ``play``, ``play_unseen``) check everything first, raise a
:class:`~kachuful_core.errors.KachufulError` subclass and leave the state untouched when they
refuse, and otherwise return the events they caused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from . import dealing
from .cards import BITS, SUIT_CARDS, SUIT_MASKS, Card, Suit, cards_of, mask_of, suit_of
from .errors import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotAllowed,
    CardNotInHand,
    DealerBidForbidden,
    InvalidSeat,
    MustFollowSuit,
    NotYourTurn,
    OptionNotEnabled,
    WrongPhase,
)
from .events import (
    BidPlaced,
    CardPlayed,
    DealScored,
    DealStarted,
    Event,
    FirstDealerDrawn,
    GameEnded,
    HandLooked,
    TrickWon,
)
from .legality import law_of, legal_mask, refusing_step
from .rules import Rules

Trick = tuple[tuple[int, Card], ...]
DrawRounds = tuple[tuple[tuple[int, Card], ...], ...]


class Phase(str):
    """The phase of a game: ``Phase.BIDDING``, ``PLAYING``, ``DEALING`` or ``FINISHED``.

    Compare with ``is``. A plain ``str`` subclass rather than an ``Enum``: on Python 3.11 an
    enum member costs a slow class-attribute look-up each time it is named, and playout loops
    name the phase on every move.
    """

    __slots__ = ()

    BIDDING: ClassVar[Phase]
    PLAYING: ClassVar[Phase]
    # Between deals with no cards to deal: only a replayed record without a seed stops here.
    DEALING: ClassVar[Phase]
    FINISHED: ClassVar[Phase]

    @property
    def value(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Phase.{self.upper()}"

    def __reduce__(self) -> tuple[object, tuple[object, str]]:
        # A copied or unpickled game keeps the one instance per phase that ``is`` compares.
        return getattr, (Phase, self.upper())


Phase.BIDDING = Phase("bidding")
Phase.PLAYING = Phase("playing")
Phase.DEALING = Phase("dealing")
Phase.FINISHED = Phase("finished")

_BIDDING = Phase.BIDDING
_PLAYING = Phase.PLAYING

# Events are immutable values, so the common ones are made once and shared: a playout then
# allocates no event per card or bid.
_CARD_PLAYED = tuple(tuple(CardPlayed(s, c) for c in range(52)) for s in range(7))
_BID_PLACED = tuple(
    tuple((BidPlaced(s, b, False), BidPlaced(s, b, True)) for b in range(18)) for s in range(7)
)


class DealLog:
    """One deal as it happened: what a record keeps."""

    __slots__ = (
        "bids",
        "blind",
        "dealer",
        "exported",
        "hands",
        "index",
        "scores",
        "trick_winners",
        "tricks",
        "turned",
    )

    def __init__(
        self,
        index: int,
        dealer: int,
        hands: tuple[tuple[Card, ...], ...],
        turned: Card | None,
        bids: list[int | None],
        blind: list[bool],
    ) -> None:
        self.index = index
        self.dealer = dealer
        self.hands = hands
        self.turned = turned
        self.bids = bids
        self.blind = blind
        self.tricks: list[list[tuple[int, Card]]] = []
        self.trick_winners: list[int] = []
        self.scores: tuple[int, ...] | None = None
        # The deal's part of the record as JSON text, kept once the deal is scored (it never
        # changes again): see record.record_json.
        self.exported: str | None = None


@dataclass(frozen=True)
class PresetDeal:
    hands: tuple[tuple[Card, ...], ...]
    turned: Card | None


class Game:
    """One table's game of Kachuful. Create with :meth:`new` or :meth:`from_record`."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str] | None = None,
        *,
        seed: dealing.GameSeed | None = None,
        first_dealer: int | None = None,
        start_deal: int = 0,
        draw: DrawRounds | None = None,
        presets: dict[int, PresetDeal] | None = None,
    ) -> None:
        n = rules.players
        names = list(players) if players is not None else [f"Player {i + 1}" for i in range(n)]
        if len(names) != n:
            raise ValueError(f"{len(names)} player names for {n} seats")
        if not 0 <= start_deal < rules.num_deals:
            raise ValueError(f"start_deal {start_deal} is outside the schedule")
        self.rules = rules
        self.players: tuple[str, ...] = tuple(names)
        self.seed: bytes | None = None if seed is None else dealing.normalize_seed(seed)
        self.start_deal = start_deal
        self._n = n
        self._sizes = rules.hand_sizes
        # The rules of play as kachuful_core.legality reads them, once for the game.
        self._law = law_of(rules)
        self._presets = dict(presets or {})
        self.move_count = 0
        # legal_mask's last answer for the seat to play, and the move count it was asked at:
        # a player lists the legal cards, then plays one, and the play need not ask again.
        self._legal = 0
        self._legal_at = -1
        self.totals: list[int] = [0] * n
        self.deals: list[DealLog] = []
        self.draw = draw
        self._opening: list[Event] = []
        if first_dealer is None:
            if self.seed is None:
                raise ValueError("a game needs a seed or a first dealer")
            self.draw, first_dealer = dealing.draw_first_dealer(self.seed, n)
            self._opening.append(FirstDealerDrawn(self.draw, first_dealer))
        self._check_seat(first_dealer)
        self.first_dealer = first_dealer
        self.phase = Phase.DEALING
        started = self._start_deal(start_deal)
        if started is not None:
            self._opening.append(started)

    @classmethod
    def new(
        cls, rules: Rules, seed: dealing.GameSeed, players: Sequence[str] | None = None
    ) -> Game:
        """A new game: the first-dealer draw and the first deal, all from ``seed``."""
        return cls(rules, players, seed=seed)

    def opening_events(self) -> list[Event]:
        """The events of creating the game (the draw, the first deal); given once."""
        events, self._opening = self._opening, []
        return events

    # ---- the current deal -------------------------------------------------------------

    def _start_deal(self, index: int) -> DealStarted | None:
        n = self._n
        self.deal_index = index
        self.dealer = (self.first_dealer + index - self.start_deal) % n
        self.hand_size = self._sizes[index]
        self.trump: Suit | None = self.rules.trump_for(index)
        self._bids: list[int | None] = [None] * n
        self._blind = [False] * n
        self._looked = [not self.rules.blind_bids] * n
        self._bid_total = 0
        self._bid_count = 0
        self._tricks_won = [0] * n
        self._trick: list[tuple[int, Card]] = []
        # The suit led to the open trick, or -1 between tricks, and its cards (0 between
        # tricks); the card winning it so far.
        self._led: Suit = -1
        self._led_mask = 0
        self._best: Card = -1
        self._best_seat = -1
        self.leader = (self.dealer + 1) % n
        dealt = self._deal_cards(index)
        if dealt is None:
            self._hands = [0] * n
            self._tmask = 0
            self._log = DealLog(index, self.dealer, (), None, self._bids, self._blind)
            self.turn: int | None = None
            self.phase = Phase.DEALING
            return None
        hands, turned, commitment = dealt
        if self.rules.trump == "turned":
            self.trump = None if turned is None else suit_of(turned)
        self._tmask = 0 if self.trump is None else SUIT_MASKS[self.trump]
        # Each hand as a 52-bit set (see cards), what kachuful_core.legality reads.
        self._hands = [mask_of(h) for h in hands]
        self._log = DealLog(index, self.dealer, hands, turned, self._bids, self._blind)
        self.deals.append(self._log)
        self.turn = self.leader
        self.phase = Phase.BIDDING
        return DealStarted(
            index, self.deal_number, self.dealer, self.hand_size, self.trump, turned, commitment
        )

    def _deal_cards(
        self, index: int
    ) -> tuple[tuple[tuple[Card, ...], ...], Card | None, str | None] | None:
        """The hands and turned card of a deal: preset by a record, or shuffled from the seed."""
        self._material = None if self.seed is None else dealing.deal_seed(self.seed, index)
        commitment = None if self._material is None else dealing.commitment(self._material)
        preset = self._presets.pop(index, None)
        if preset is not None:
            return preset.hands, preset.turned, commitment
        if self._material is None:
            return None
        hands, turned = dealing.deal_hands(self._material, self._n, self.dealer, self.hand_size)
        if self.rules.trump != "turned":
            turned = None
        return tuple(map(tuple, hands)), turned, commitment

    @property
    def deal_number(self) -> int:
        """1-based position of the current deal in the schedule."""
        return self.deal_index + 1

    @property
    def num_deals(self) -> int:
        return self.rules.num_deals

    @property
    def bids(self) -> tuple[int | None, ...]:
        return tuple(self._bids)

    @property
    def blind(self) -> tuple[bool, ...]:
        return tuple(self._blind)

    @property
    def tricks_won(self) -> tuple[int, ...]:
        return tuple(self._tricks_won)

    @property
    def current_trick(self) -> Trick:
        return tuple(self._trick)

    @property
    def completed_tricks(self) -> tuple[Trick, ...]:
        return tuple(tuple(t) for t in self._log.tricks if len(t) == self._n)

    @property
    def turned(self) -> Card | None:
        return self._log.turned

    @property
    def is_forehead_deal(self) -> bool:
        return self.rules.is_forehead_deal(self.hand_size)

    @property
    def forbidden_bid(self) -> int | None:
        """The dealer's forbidden bid, once everyone before the dealer has bid."""
        if self.phase is Phase.DEALING or self._bid_count < self._n - 1:
            return None
        others = self._bid_total - (self._bids[self.dealer] or 0)
        return self.rules.forbidden_bid(self.hand_size, others)

    @property
    def deal_scores(self) -> list[tuple[int, ...]]:
        return [d.scores for d in self.deals if d.scores is not None]

    @property
    def winners(self) -> tuple[int, ...] | None:
        if self.phase is not Phase.FINISHED:
            return None
        best = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == best)

    def hand(self, seat: int) -> list[Card]:
        """A seat's current cards. Hidden information: only for the engine's own callers
        (the seat's private view, a computer player acting for it)."""
        self._check_seat(seat)
        return cards_of(self._hands[seat])

    def has_looked(self, seat: int) -> bool:
        self._check_seat(seat)
        return self._looked[seat]

    # ---- queries ------------------------------------------------------------------------

    def legal_bids(self, seat: int) -> list[int]:
        if self.phase is not Phase.BIDDING or seat != self.turn:
            return []
        bids = list(range(self.hand_size + 1))
        if seat == self.dealer:
            forbidden = self.rules.forbidden_bid(self.hand_size, self._bid_total)
            if forbidden is not None:
                bids.remove(forbidden)
        return bids

    def legal_cards(self, seat: int) -> list[Card]:
        if self.phase is not _PLAYING or seat != self.turn:
            return []
        legal = legal_mask(self._hands[seat], self._law, self._led_mask, self._tmask)
        self._legal, self._legal_at = legal, self.move_count
        s, h, d, c = SUIT_CARDS  # cards.cards_of, written out: this is the playout loop's
        return [
            *s[legal & 0x1FFF],
            *h[legal >> 13 & 0x1FFF],
            *d[legal >> 26 & 0x1FFF],
            *c[legal >> 39],
        ]

    def can_bid(self, seat: int, bid: int, blind: bool = False) -> bool:
        try:
            self._check_bid(seat, bid, blind)
        except (ValueError, TypeError):
            return False
        return True

    def check_play(self, seat: int, card: Card) -> None:
        """Raise the refusal :meth:`play` would give for this card (nothing if it is legal)."""
        self._check_play(seat, card)

    def can_play(self, seat: int, card: Card) -> bool:
        try:
            self._check_play(seat, card)
        except (ValueError, TypeError):
            return False
        return True

    # ---- commands -----------------------------------------------------------------------

    def look(self, seat: int) -> list[Event]:
        """With blind bids on, a seat looks at its hand; from then on it may not bid blind.
        Looking again changes nothing. Looking is private, so it does not count as a move."""
        self._check_seat(seat)
        if self.phase not in (Phase.BIDDING, Phase.PLAYING) or self._looked[seat]:
            return []
        self._looked[seat] = True
        return [HandLooked(seat)]

    def bid(self, seat: int, bid: int, blind: bool = False) -> list[Event]:
        self._check_bid(seat, bid, blind)
        events: list[Event] = []
        if not blind and not self._looked[seat]:
            self._looked[seat] = True
            events.append(HandLooked(seat))
        self._bids[seat] = bid
        self._blind[seat] = blind
        self._bid_total += bid
        self._bid_count += 1
        self.move_count += 1
        events.append(_BID_PLACED[seat][bid][blind])
        if self._bid_count == self._n:
            self.phase = Phase.PLAYING
            self.turn = self.leader
            # A blind bidder picks up the hand once bidding is over: it must see what it plays.
            for other, looked in enumerate(self._looked):
                if not looked:
                    self._looked[other] = True
                    events.append(HandLooked(other))
        else:
            self.turn = (seat + 1) % self._n
        return events

    def play(self, seat: int, card: Card) -> list[Event]:
        if (
            seat != self.turn
            or self.phase is not _PLAYING
            or card.__class__ is not int
            or not 0 <= card < 52
        ):
            self._check_play(seat, card)  # raises the precise refusal
        hands = self._hands
        hand = hands[seat]
        bit = BITS[card]
        if self._legal_at == self.move_count:
            legal = self._legal
        else:
            legal = legal_mask(hand, self._law, self._led_mask, self._tmask)
        if not legal & bit:
            self._check_play(seat, card)  # not held, or ruled out: raises the refusal
        hands[seat] = hand ^ bit
        suit = card // 13
        trick = self._trick
        if self._led < 0:
            self._led = suit
            self._led_mask = SUIT_MASKS[suit]
            self._log.tricks.append(trick)
            self._best = card
            self._best_seat = seat
        else:
            best = self._best
            if (suit == best // 13 and card > best) or (suit == self.trump != best // 13):
                self._best = card
                self._best_seat = seat
        trick.append((seat, card))
        self.move_count += 1
        if len(trick) < self._n:
            self.turn = (seat + 1) % self._n
            return [_CARD_PLAYED[seat][card]]
        events: list[Event] = [_CARD_PLAYED[seat][card]]
        self._finish_trick(events)
        return events

    def play_unseen(self, seat: int) -> list[Event]:
        """In a forehead deal, play your only card without seeing it."""
        if not self.is_forehead_deal:
            raise OptionNotEnabled("forehead")
        if self.phase is not Phase.PLAYING:
            raise WrongPhase(self.phase.value, Phase.PLAYING.value)
        self._check_seat(seat)
        if seat != self.turn:
            raise NotYourTurn(seat, self.turn)
        return self.play(seat, cards_of(self._hands[seat])[0])

    # ---- checks -------------------------------------------------------------------------

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self._n:
            raise InvalidSeat(seat)

    def _check_turn(self, seat: int, phase: Phase) -> None:
        self._check_seat(seat)
        if self.phase is not phase:
            raise WrongPhase(self.phase.value, phase.value)
        if seat != self.turn:
            raise NotYourTurn(seat, self.turn)

    def _check_bid(self, seat: int, bid: int, blind: bool) -> None:
        self._check_turn(seat, Phase.BIDDING)
        if blind:
            if not self.rules.blind_bids:
                raise OptionNotEnabled("blind_bids")
            if self._looked[seat]:
                raise BlindBidAfterLooking(seat)
        if not isinstance(bid, int) or not 0 <= bid <= self.hand_size:
            raise BidOutOfRange(seat, bid, 0, self.hand_size)
        if seat == self.dealer:
            forbidden = self.rules.forbidden_bid(self.hand_size, self._bid_total)
            if bid == forbidden:
                raise DealerBidForbidden(seat, forbidden)

    def _check_play(self, seat: int, card: Card) -> None:
        self._check_turn(seat, Phase.PLAYING)
        hand = self._hands[seat]
        if not isinstance(card, int) or not 0 <= card < 52 or not hand & BITS[card]:
            raise CardNotInHand(seat, card)
        law, led_mask, tmask = self._law, self._led_mask, self._tmask
        step = refusing_step(self.rules, hand, law, led_mask, tmask, card)
        if step is None:
            return
        allowed = tuple(cards_of(legal_mask(hand, law, led_mask, tmask)))
        if step.name == "follow":
            raise MustFollowSuit(seat, self._led, allowed, card)
        raise CardNotAllowed(seat, step.name, allowed, card)

    # ---- trick, deal and game ends ------------------------------------------------------

    def _finish_trick(self, events: list[Event]) -> None:
        trick = self._trick
        win_seat = self._best_seat
        self._tricks_won[win_seat] += 1
        log = self._log
        log.trick_winners.append(win_seat)
        number = len(log.tricks)
        events.append(TrickWon(win_seat, number, tuple(trick)))
        self._trick = []
        self._led = -1
        self._led_mask = 0
        self.leader = self.turn = win_seat
        if number == self.hand_size:
            self._finish_deal(events)

    def _finish_deal(self, events: list[Event]) -> None:
        rules = self.rules
        bids = [b for b in self._bids if b is not None]
        scores = tuple(
            rules.score(bids[s], self._tricks_won[s], self._blind[s]) for s in range(self._n)
        )
        for s, points in enumerate(scores):
            self.totals[s] += points
        self._log.scores = scores
        events.append(
            DealScored(
                self.deal_index,
                tuple(bids),
                tuple(self._blind),
                tuple(self._tricks_won),
                scores,
                tuple(self.totals),
                None if self._material is None else self._material.hex(),
            )
        )
        self.turn = None
        if self.deal_index + 1 == self.num_deals:
            self.phase = Phase.FINISHED
            winners = self.winners
            assert winners is not None
            events.append(GameEnded(tuple(self.totals), winners))
            return
        started = self._start_deal(self.deal_index + 1)
        if started is not None:
            events.append(started)

    # ---- records ------------------------------------------------------------------------

    # ---- fairness -----------------------------------------------------------------------

    def commitment(self, deal_index: int) -> str | None:
        """SHA-256 of a deal's seed material: publishable before the deal is played."""
        if self.seed is None:
            return None
        return dealing.commitment(dealing.deal_seed(self.seed, deal_index))

    def game_commitment(self) -> str | None:
        """:func:`kachuful_core.dealing.game_commitment` of every deal of the schedule: one
        value to publish before the first deal instead of one per deal."""
        if self.seed is None:
            return None
        return dealing.game_commitment(
            [dealing.commitment(dealing.deal_seed(self.seed, i)) for i in range(self.num_deals)]
        )

    def reveal(self, deal_index: int) -> str | None:
        """A finished deal's seed material (hex), so anyone can check the commitment and the
        hands with :func:`kachuful_core.dealing.deal_hands`. None before the deal is over."""
        if self.seed is None:
            return None
        over = deal_index < self.deal_index or self.phase is Phase.FINISHED
        return dealing.deal_seed(self.seed, deal_index).hex() if over else None
