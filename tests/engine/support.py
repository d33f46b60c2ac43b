"""Helpers for the engine tests.

The oracles here (trick winner, score, trump of a deal, schedule) are written from docs/rules.md,
not from the engine, so a test that compares the engine with them checks the engine against
the rules. They are themselves pinned by the hand-computed tables in test_rules.py and
test_play.py.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kachuful_core import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotInHand,
    DealerBidForbidden,
    Game,
    InvalidSeat,
    KachufulError,
    MustFollowSuit,
    NotYourTurn,
    OptionNotEnabled,
    Phase,
    Rules,
    WrongPhase,
    card_str,
    dealing,
    parse_card,
    view,
)
from kachuful_core.cards import SUIT_LETTERS
from kachuful_core.events import (
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
from kachuful_core.game import PresetDeal
from kachuful_core.record import export_record

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "SHDC"
DECK = tuple(parse_card(r + s) for s in SUITS for r in RANKS)

# docs/rules.md §1 and §2, written out.
CYCLE = ("S", "D", "C", "H")
CYCLE_NOTRUMP = ("S", "D", "C", "H", None)

OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "schedule": ("down-up", "down", "double"),
    "trump": ("cycle", "cycle-notrump", "turned"),
    "hook": (True, False),
    "scoring": ("exact", "penalty", "per-trick", "judgement"),
    "blind_bids": (False, True),
    "forehead": (False, True),
}
# Every option value once, the others left at their defaults.
SINGLE_OPTIONS: list[dict[str, Any]] = [{}] + [
    {name: value}
    for name, values in OPTION_VALUES.items()
    for value in values
    if value != Rules.model_fields[name].default
]

EXAMPLE_NAMES = ["Asha", "Bilal", "Chen", "Dev"]
EXAMPLE_HANDS = ["KH AS 3D", "2C 4S 5D", "AH 9D 2S", "7H 3S 4D"]


def example_record() -> dict[str, Any]:
    """The example record of docs/record-format.md, which is the worked example of docs/rules.md
    §1 (a fresh copy)."""
    return {
        "format": "kachuful-record/1",
        "rules": {"players": 4},
        "players": list(EXAMPLE_NAMES),
        "first_dealer": 3,
        "start_deal": 10,
        "deals": [
            {
                "hands": [h.split() for h in EXAMPLE_HANDS],
                "bids": [1, 0, 1, 0],
                "tricks": [
                    ["KH", "2C", "AH", "7H"],
                    ["4S", "2S", "3S", "AS"],
                    ["3D", "5D", "9D", "4D"],
                ],
            }
        ],
    }


# ---- cards ---------------------------------------------------------------------------------


def c(text: str) -> int:
    return parse_card(text)


def cs(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def suit_letter(card: int) -> str:
    return card_str(card)[-1]


def rank_index(card: int) -> int:
    return RANKS.index(card_str(card)[:-1])


def trump_letter(trump: int | None) -> str | None:
    return None if trump is None else SUIT_LETTERS[trump]


def suit_id(letter: str) -> int:
    return SUIT_LETTERS.index(letter)


# ---- oracles from docs/rules.md ------------------------------------------------------------


def largest_hand(players: int) -> int:
    return 52 // players


def expected_sizes(schedule: str, top: int) -> list[int]:
    down = list(range(top, 0, -1))
    down_up = down + list(range(2, top + 1))
    if schedule == "down":
        return down
    if schedule == "down-up":
        return down_up
    return down_up + down_up[1:]


def expected_trump(trump: str, index: int) -> str | None:
    if trump == "cycle":
        return CYCLE[index % 4]
    assert trump == "cycle-notrump"
    return CYCLE_NOTRUMP[index % 5]


def winner_of(trick: Sequence[tuple[int, int]], trump: str | None) -> int:
    """Highest trump if any was played, else highest card of the led suit."""
    led = suit_letter(trick[0][1])

    def strength(card: int) -> tuple[int, int]:
        s = suit_letter(card)
        return (2 if s == trump else 1 if s == led else 0, rank_index(card))

    return max(trick, key=lambda sc: strength(sc[1]))[0]


def score_of(scoring: str, bid: int, tricks: int, blind: bool = False) -> int:
    exact = bid == tricks
    if scoring == "exact":
        points = 10 + bid if exact else 0
    elif scoring == "penalty":
        points = 10 + bid if exact else -abs(tricks - bid)
    elif scoring == "per-trick":
        points = tricks + 10 if exact else tricks
    else:
        assert scoring == "judgement"
        points = 10 if exact else -10
    return 2 * points if blind and exact else points


# ---- building games ------------------------------------------------------------------------


def preset_game(
    rules: Rules,
    hands: Sequence[str],
    *,
    deal: int,
    dealer: int,
    turned: str | None = None,
    names: Sequence[str] | None = None,
) -> Game:
    """A game starting at schedule index ``deal`` with ``dealer`` and the given hands."""
    dealt = tuple(tuple(cs(h)) for h in hands)
    preset = PresetDeal(dealt, None if turned is None else c(turned))
    return Game(rules, names, first_dealer=dealer, start_deal=deal, presets={deal: preset})


def bid_all(game: Game, bids: dict[int, int]) -> None:
    """Bid for every seat in turn order from ``bids`` (seat -> bid)."""
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        game.bid(seat, bids[seat])


def play_cards(game: Game, cards: str) -> list[Event]:
    """Play the cards in order, each by the seat whose turn it is."""
    events: list[Event] = []
    for text in cards.split():
        seat = game.turn
        assert seat is not None
        events += game.play(seat, c(text))
    return events


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything a caller can observe of a game."""
    n = game.rules.players
    return (
        export_record(game).to_json(),
        game.move_count,
        game.turn,
        game.phase,
        game.deal_index,
        game.dealer,
        game.hand_size,
        game.trump,
        game.leader,
        tuple(game.totals),
        game.bids,
        game.blind,
        game.tricks_won,
        game.current_trick,
        game.completed_tricks,
        game.forbidden_bid,
        game.winners,
        tuple(game.has_looked(s) for s in range(n)),
        tuple(tuple(game.hand(s)) for s in range(n)),
        tuple(tuple(game.legal_bids(s)) for s in range(n)),
        tuple(tuple(game.legal_cards(s)) for s in range(n)),
        tuple(view(game, s) for s in range(n)),
    )


# ---- a random player and a referee ----------------------------------------------------------


class RandomDriver:
    """Makes random legal moves, drawing every choice from ``rng``."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng

    def step(self) -> list[Event]:
        game, rng = self.game, self.rng
        seat = game.turn
        assert seat is not None
        if game.phase is Phase.BIDDING:
            events: list[Event] = []
            blind = game.rules.blind_bids and not game.has_looked(seat) and rng.random() < 0.3
            if not blind and rng.random() < 0.5:
                events += game.look(seat)
            events += game.bid(seat, rng.choice(game.legal_bids(seat)), blind)
            return events
        assert game.phase is Phase.PLAYING
        if game.is_forehead_deal and rng.random() < 0.5:
            return game.play_unseen(seat)
        return game.play(seat, rng.choice(game.legal_cards(seat)))


@dataclass
class Attempt:
    what: str
    kind: str  # "bid", "play", "unseen"
    seat: int
    value: int = 0
    blind: bool = False
    expected: type[KachufulError] = KachufulError
    fields: dict[str, Any] = field(default_factory=dict)


def illegal_attempts(game: Game, rng: random.Random) -> list[Attempt]:
    """Actions the rules forbid in the game's current state, with the refusal each must get."""
    n = game.rules.players
    out = [
        Attempt("bid from no seat", "bid", n, 0, expected=InvalidSeat, fields={"seat": n}),
        Attempt("play from no seat", "play", -1, DECK[0], expected=InvalidSeat),
    ]
    if game.phase is Phase.FINISHED:
        out.append(Attempt("bid after the end", "bid", 0, 0, expected=WrongPhase))
        out.append(Attempt("play after the end", "play", 0, DECK[0], expected=WrongPhase))
        return out
    turn = game.turn
    assert turn is not None
    other = rng.choice([s for s in range(n) if s != turn])
    size = game.hand_size
    hand = game.hand(turn)
    if game.phase is Phase.BIDDING:
        out += [
            Attempt(
                "bid out of turn",
                "bid",
                other,
                rng.randint(0, size),
                expected=NotYourTurn,
                fields={"seat": other, "expected": turn},
            ),
            Attempt("play while bidding", "play", turn, rng.choice(hand), expected=WrongPhase),
            Attempt(
                "bid above the hand size",
                "bid",
                turn,
                size + 1 + rng.randint(0, 3),
                expected=BidOutOfRange,
                fields={"seat": turn, "low": 0, "high": size},
            ),
            Attempt("negative bid", "bid", turn, -1, expected=BidOutOfRange),
        ]
        if turn == game.dealer and game.rules.hook:
            forbidden = size - sum(b for b in game.bids if b is not None)
            if 0 <= forbidden <= size:
                out.append(
                    Attempt(
                        "dealer bid the hook forbids",
                        "bid",
                        turn,
                        forbidden,
                        expected=DealerBidForbidden,
                        fields={"seat": turn, "forbidden": forbidden},
                    )
                )
        if not game.rules.blind_bids:
            out.append(
                Attempt("blind bid, option off", "bid", turn, 0, True, expected=OptionNotEnabled)
            )
        elif game.has_looked(turn):
            out.append(
                Attempt("blind bid after looking", "bid", turn, 0, True, BlindBidAfterLooking)
            )
        return out
    # playing
    out.append(Attempt("bid while playing", "bid", turn, 0, expected=WrongPhase))
    other_hand = game.hand(other)
    if other_hand:
        out.append(
            Attempt(
                "play out of turn",
                "play",
                other,
                rng.choice(other_hand),
                expected=NotYourTurn,
                fields={"seat": other, "expected": turn},
            )
        )
    missing = rng.choice([x for x in DECK if x not in hand])
    out.append(
        Attempt(
            "card not in hand",
            "play",
            turn,
            missing,
            expected=CardNotInHand,
            fields={"seat": turn, "card": missing},
        )
    )
    trick = game.current_trick
    if trick:
        led = suit_letter(trick[0][1])
        follow = [x for x in hand if suit_letter(x) == led]
        off = [x for x in hand if suit_letter(x) != led]
        if follow and off:
            card = rng.choice(off)
            out.append(
                Attempt(
                    "off suit while holding the led suit",
                    "play",
                    turn,
                    card,
                    expected=MustFollowSuit,
                    fields={"seat": turn, "suit": suit_id(led), "played": card},
                )
            )
    if not game.is_forehead_deal:
        out.append(Attempt("play unseen outside a forehead deal", "unseen", turn))
    elif other_hand:
        out.append(Attempt("play unseen out of turn", "unseen", other, expected=NotYourTurn))
    return out


def try_attempt(game: Game, attempt: Attempt) -> None:
    """The attempt must raise its refusal, with its fields, and leave the state unchanged."""
    before = snapshot(game)
    with pytest.raises(attempt.expected) as info:
        if attempt.kind == "bid":
            game.bid(attempt.seat, attempt.value, attempt.blind)
        elif attempt.kind == "play":
            game.play(attempt.seat, attempt.value)
        else:
            game.play_unseen(attempt.seat)
    error = info.value
    assert isinstance(error, KachufulError)
    for name, value in attempt.fields.items():
        assert getattr(error, name) == value, (attempt.what, name)
    if isinstance(error, MustFollowSuit):
        hand = game.hand(attempt.seat)
        led = SUIT_LETTERS[error.suit]
        assert sorted(error.held) == sorted(x for x in hand if suit_letter(x) == led)
    if attempt.kind == "bid":
        assert not game.can_bid(attempt.seat, attempt.value, attempt.blind), attempt.what
    elif attempt.kind == "play":
        assert not game.can_play(attempt.seat, attempt.value), attempt.what
    assert snapshot(game) == before, attempt.what


class Referee:
    """Follows a game through the events it returns and checks each against docs/rules.md."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = game.rules
        self.n = game.rules.players
        self.next_index = game.start_deal
        self.totals = [0] * self.n
        self.deals_scored: list[int] = []
        self.ended = False
        self.moves = 0

    def check(self, events: Sequence[Event]) -> None:
        for ev in events:
            if isinstance(ev, FirstDealerDrawn):
                self._drawn(ev)
            elif isinstance(ev, DealStarted):
                self._deal_started(ev)
            elif isinstance(ev, HandLooked):
                assert 0 <= ev.seat < self.n
            elif isinstance(ev, BidPlaced):
                self._bid(ev)
            elif isinstance(ev, CardPlayed):
                self._played(ev)
            elif isinstance(ev, TrickWon):
                self._trick_won(ev)
            elif isinstance(ev, DealScored):
                self._scored(ev)
            elif isinstance(ev, GameEnded):
                self._ended(ev)
            else:  # pragma: no cover - an event type this referee does not know
                raise AssertionError(f"unknown event {ev!r}")
        assert self.game.move_count == self.moves

    def _drawn(self, ev: FirstDealerDrawn) -> None:
        check_draw(ev.rounds, ev.dealer, self.n)
        assert ev.dealer == self.game.first_dealer

    def _deal_started(self, ev: DealStarted) -> None:
        game, rules, n = self.game, self.rules, self.n
        index = ev.deal_index
        assert index == self.next_index
        assert ev.deal_number == index + 1
        size = expected_sizes(rules.schedule, rules.top)[index]
        assert ev.hand_size == size == game.hand_size
        assert ev.dealer == (game.first_dealer + index - game.start_deal) % n == game.dealer
        self.index, self.size, self.dealer = index, size, ev.dealer
        self.hands = [set(game.hand(s)) for s in range(n)]
        self.dealt = [set(h) for h in self.hands]
        assert all(len(h) == size for h in self.hands)
        union = set().union(*self.hands)
        assert len(union) == n * size
        if rules.trump == "turned":
            if n * size == 52:
                assert ev.turned is None
            else:
                assert ev.turned is not None
                assert ev.turned not in union
            self.trump = None if ev.turned is None else suit_letter(ev.turned)
        else:
            assert ev.turned is None
            self.trump = expected_trump(rules.trump, index)
        assert trump_letter(ev.trump) == self.trump
        assert trump_letter(game.trump) == self.trump
        self.commitment = ev.commitment
        if game.seed is not None:
            assert ev.commitment is not None
            assert game.reveal(index) is None
        self.bid_order = [(ev.dealer + 1 + k) % n for k in range(n)]
        self.bids: list[int | None] = [None] * n
        self.blind = [False] * n
        self.leader = (ev.dealer + 1) % n
        self.trick: list[tuple[int, int]] = []
        self.tricks_won = [0] * n
        self.trick_count = 0
        self.played: list[int] = []
        self.next_index = index + 1

    def _bid(self, ev: BidPlaced) -> None:
        made = sum(b is not None for b in self.bids)
        assert ev.seat == self.bid_order[made]
        assert 0 <= ev.bid <= self.size
        assert not ev.blind or self.rules.blind_bids
        self.bids[ev.seat] = ev.bid
        self.blind[ev.seat] = ev.blind
        self.moves += 1
        if ev.seat == self.dealer and self.rules.hook:
            assert sum(b for b in self.bids if b is not None) != self.size

    def _played(self, ev: CardPlayed) -> None:
        assert None not in self.bids, "a card played before bidding is over"
        expected = (self.leader + len(self.trick)) % self.n
        assert ev.seat == expected
        hand = self.hands[ev.seat]
        assert ev.card in hand
        if self.trick:
            led = suit_letter(self.trick[0][1])
            if any(suit_letter(x) == led for x in hand):
                assert suit_letter(ev.card) == led, "did not follow suit"
        hand.discard(ev.card)
        self.trick.append((ev.seat, ev.card))
        self.played.append(ev.card)
        self.moves += 1

    def _trick_won(self, ev: TrickWon) -> None:
        assert len(self.trick) == self.n
        self.trick_count += 1
        assert ev.trick_number == self.trick_count
        assert list(ev.cards) == self.trick
        assert ev.seat == winner_of(self.trick, self.trump)
        self.tricks_won[ev.seat] += 1
        self.leader = ev.seat
        self.trick = []

    def _scored(self, ev: DealScored) -> None:
        game, n, size = self.game, self.n, self.size
        assert ev.deal_index == self.index
        assert not self.trick
        assert self.trick_count == size
        assert sum(self.tricks_won) == size
        # every dealt card played exactly once
        assert len(self.played) == n * size
        assert set(self.played) == set().union(*self.dealt)
        assert all(not h for h in self.hands)
        assert list(ev.bids) == self.bids
        assert list(ev.blind) == self.blind
        assert list(ev.tricks_won) == self.tricks_won
        scores = [
            score_of(self.rules.scoring, b, t, bl)
            for b, t, bl in zip(self.bids, self.tricks_won, self.blind, strict=True)
            if b is not None
        ]
        assert list(ev.scores) == scores
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        assert list(ev.totals) == self.totals
        self.deals_scored.append(self.index)
        if game.seed is not None:
            reveal = ev.seed_reveal
            assert reveal is not None
            assert game.reveal(self.index) == reveal
            material = bytes.fromhex(reveal)
            assert hashlib.sha256(material).hexdigest() == self.commitment
            hands, turned = dealing.deal_hands(material, n, self.dealer, size)
            assert [set(h) for h in hands] == self.dealt
            if self.rules.trump == "turned":
                assert (None if turned is None else suit_letter(turned)) == self.trump

    def _ended(self, ev: GameEnded) -> None:
        assert self.deals_scored == list(range(self.game.start_deal, self.rules.num_deals))
        assert list(ev.totals) == self.totals
        best = max(self.totals)
        assert list(ev.winners) == [s for s in range(self.n) if self.totals[s] == best]
        assert self.game.phase is Phase.FINISHED
        assert self.game.turn is None
        self.ended = True


def check_draw(rounds: Any, dealer: int, players: int) -> None:
    """docs/rules.md §1: highest rank deals; ties redraw among the tied players only."""
    assert rounds
    drawing = list(range(players))
    for k, draws in enumerate(rounds):
        assert sorted(seat for seat, _ in draws) == sorted(drawing)
        cards = [card for _, card in draws]
        assert len(set(cards)) == len(cards)
        top = max(rank_index(card) for card in cards)
        drawing = [seat for seat, card in draws if rank_index(card) == top]
        if k < len(rounds) - 1:
            assert len(drawing) > 1
    assert drawing == [dealer]


def play_out(
    game: Game,
    rng: random.Random,
    *,
    referee: Referee | None = None,
    probe_rate: float = 0.0,
    max_moves: int = 100_000,
) -> None:
    driver = RandomDriver(game, rng)
    for _ in range(max_moves):
        if game.phase is Phase.FINISHED:
            break
        if probe_rate and rng.random() < probe_rate:
            attempts = illegal_attempts(game, rng)
            for attempt in rng.sample(attempts, min(3, len(attempts))):
                try_attempt(game, attempt)
        events = driver.step()
        if referee is not None:
            referee.check(events)
    assert game.phase is Phase.FINISHED


# ---- the score command ---------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m kachuful_core ARGS`` in a fresh interpreter, run from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "kachuful_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        timeout=60,
        check=False,
    )
