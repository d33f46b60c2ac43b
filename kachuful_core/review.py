"""The review of a finished game: for every seat and deal, its bid against the Expert's, its
play against the Expert's, and the luck of its cards. Defined in docs/review.md.

Everything is computed from the game's record (``kachuful-record/1``) alone, one deal at a
time (:func:`review_deal`, a pure function of picklable values, so that a bot can run each
deal in a worker process and interleave other work), and is deterministic: the same record
always gives the same review.

* **Bid.** At the seat's turn to bid, with its cards and the bids made before it, the Expert
  (the search level) chooses a bid; its bidding model gives the hand's expected trick count.
  ``bid_cost`` is the Expert's expected deal score with its bid less that with the bid made,
  both judged by the Expert's search on the same sampled deals: the points the bid gave away
  (0 for the same bid; it can be a little below 0 where the search's pick, which also weighs
  its model, scored less on those deals).
* **Play.** From the first card of the deal, with the bids as made, the Expert plays every
  seat's cards to the end of the deal (the other players' real moves no longer apply once
  the play differs, so the Expert stands in for them too). ``play`` is how many tricks nearer
  to its bid the seat ended than the Expert playing its cards did: positive when the player's
  play gained tricks towards the bid, negative when it lost them.
* **Luck.** The best expected score of the dealt hand by the Expert's bidding model (as if
  bidding first, so that the other bids do not count) less the same for an average hand at
  that seat: :func:`~kachuful_core.players.search.average_hand_value`.

A figure is None where it cannot be measured: a forehead deal (the seat does not see its own
cards), a seat that never bid (a deal not played out is not reviewed at all).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict

from .game import Game, Phase
from .players.base import act
from .players.search import SearchPlayer, average_hand_value, hand_outlook
from .record import deal_record, load_game, parse_record
from .views import SeatView, view

REVIEW_FORMAT = "kachuful-review/1"
EXPERT_SEED = 0


class SeatDeal(BaseModel):
    """One seat in one deal."""

    model_config = ConfigDict(frozen=True)

    bid: int
    tricks: int
    score: int
    expert_bid: int | None
    expected_tricks: float | None
    bid_cost: float | None
    expert_tricks: int | None
    play: int | None
    luck: float | None


class DealReview(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int  # the deal's place in the schedule, 0-based
    hand_size: int
    seats: tuple[SeatDeal, ...]


class SeatTotals(BaseModel):
    """One seat's figures over the whole game."""

    model_config = ConfigDict(frozen=True)

    deals: int
    compared: int  # deals with an Expert bid to compare with
    same_bid: int
    bid_cost: float
    play: int
    luck: float
    score: int


class GameReview(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: str = REVIEW_FORMAT
    players: tuple[str, ...]
    deals: tuple[DealReview, ...]

    def totals(self, seat: int) -> SeatTotals:
        rows = [deal.seats[seat] for deal in self.deals]
        compared = [r for r in rows if r.expert_bid is not None]
        return SeatTotals(
            deals=len(rows),
            compared=len(compared),
            same_bid=sum(1 for r in compared if r.expert_bid == r.bid),
            bid_cost=round(sum(r.bid_cost or 0.0 for r in rows), 2),
            play=sum(r.play or 0 for r in rows),
            luck=round(sum(r.luck or 0.0 for r in rows), 2),
            score=sum(r.score for r in rows),
        )


def reviewable_deals(document: dict[str, Any]) -> int:
    """How many deals of a record can be reviewed: those played out to their last trick."""
    record = parse_record(document)
    game = load_game(record)
    return sum(1 for deal in game.deals if deal.scores is not None)


def review_deal(document: dict[str, Any], number: int) -> DealReview:
    """The review of the ``number``-th deal (0-based) listed in a record; the deal must be
    played out. Raises ``RecordError`` for a record that breaks a rule, ``ValueError`` for a
    deal that is not played out."""
    record = parse_record(document)
    n = len(record.players)
    deal = record.deals[number]
    index = record.start_deal + number
    game = load_game(deal_record(document, number))
    played = load_game(deal_record(document, number, with_play=True))
    log = played.deals[0]
    if log.scores is None:
        raise ValueError(f"deal {index} is not played out")
    bids = deal.bids or [None] * n
    blind = deal.blind or [False] * n
    expert = SearchPlayer(EXPERT_SEED)
    judged: dict[int, tuple[int | None, float | None, float | None, float | None]] = {}
    while game.phase is Phase.BIDDING and game.turn is not None:
        seat = game.turn
        bid = bids[seat]
        assert bid is not None  # a played-out deal has every bid
        judged[seat] = _judge_bid(game, seat, bid, expert)
        game.bid(seat, bid, blind[seat])
    expert_tricks = _expert_play(game, expert, index)
    won = [log.trick_winners.count(s) for s in range(n)]
    seats = []
    for s in range(n):
        bid = bids[s]
        assert bid is not None
        e_bid, e_tricks, cost, luck = judged[s]
        play = None
        if expert_tricks is not None:
            play = abs(expert_tricks[s] - bid) - abs(won[s] - bid)
        seats.append(
            SeatDeal(
                bid=bid,
                tricks=won[s],
                score=log.scores[s],
                expert_bid=e_bid,
                expected_tricks=_round(e_tricks),
                bid_cost=_round(cost),
                expert_tricks=None if expert_tricks is None else expert_tricks[s],
                play=play,
                luck=_round(luck),
            )
        )
    return DealReview(index=index, hand_size=game.hand_size, seats=tuple(seats))


def review_game(document: dict[str, Any]) -> GameReview:
    """The whole review in one call (the bot runs :func:`review_deal` deal by deal)."""
    record = parse_record(document)
    deals = tuple(review_deal(document, i) for i in range(reviewable_deals(document)))
    return GameReview(players=tuple(record.players), deals=deals)


def _judge_bid(
    game: Game, seat: int, bid: int, expert: SearchPlayer
) -> tuple[int | None, float | None, float | None, float | None]:
    """The Expert's bid, its expected tricks, the bid's cost and the hand's luck."""
    v = _seeing(game, seat)
    if v is None:
        return None, None, None, None
    choice = expert.bid_outlook(v).choice
    outlook = hand_outlook(v)
    cost = None
    if choice == bid:
        cost = 0.0
    elif choice is not None:
        means = expert.bid_means(v, [choice, bid])
        cost = means[choice] - means[bid]
    luck = hand_outlook(v, bids_before=False).best - average_hand_value(v)
    return choice, outlook.tricks, cost, luck


def _seeing(game: Game, seat: int) -> SeatView | None:
    """The seat's view at its bid with its hand in sight (a blind bidder's too: the review
    asks what its cards were worth), or None on a forehead deal."""
    if game.is_forehead_deal:
        return None
    v = view(game, seat)
    if v.hand is None:
        v = replace(v, hand=tuple(game.hand(seat)), may_bid_blind=False, has_looked=True)
    return v


def _expert_play(game: Game, expert: SearchPlayer, index: int) -> list[int] | None:
    """Each seat's tricks when the Expert plays every seat from the deal's first card."""
    if game.is_forehead_deal:
        return None
    line = copy.deepcopy(game)
    while line.deal_index == index and line.phase is Phase.PLAYING and line.turn is not None:
        act(line, line.turn, expert)
    log = next(d for d in line.deals if d.index == index)
    return [log.trick_winners.count(s) for s in range(game.rules.players)]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


class Hint(BaseModel):
    """The Expert's decision for a seat's turn and what it expects of it (a practice deal's
    hint): ``tricks`` is the hand's expected trick count, for a bid."""

    model_config = ConfigDict(frozen=True)

    kind: str  # "bid" or "card"
    choice: int | None
    expected: float | None
    tricks: float | None = None


def hint(seat_view: SeatView) -> Hint:
    """The Expert's hint for ``seat_view``'s turn (a pure function, for a worker process).
    Raises ``ValueError`` when the seat has nothing to decide."""
    expert = SearchPlayer(EXPERT_SEED)
    if seat_view.turn != seat_view.seat or seat_view.hand is None:
        raise ValueError("nothing to decide")
    if seat_view.phase == Phase.BIDDING:  # == : a view unpickled in a worker
        outlook = expert.bid_outlook(seat_view)
        tricks = hand_outlook(seat_view).tricks
        return Hint(kind="bid", choice=outlook.choice, expected=outlook.expected, tricks=tricks)
    if seat_view.phase == Phase.PLAYING:
        outlook = expert.card_outlook(seat_view)
        return Hint(kind="card", choice=outlook.choice, expected=outlook.expected)
    raise ValueError("nothing to decide")
