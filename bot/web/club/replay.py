"""A finished game step by step, as a club page replays it: each deal as dealt, then every
bid, then every card, one step each (what Board Game Arena's and Trickster's replays do).

Pure: from the engine's :class:`~kachuful_core.Game` (rebuilt from the stored record) to plain
data a template draws. Only deals played out are replayed, like the replay in Discord
(bot/render/review.py), so a step never shows a card the game did not show in the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.deal import trump_of
from kachuful_core import Game
from kachuful_core.cards import display_order
from kachuful_core.game import DealLog


@dataclass(frozen=True)
class Step:
    """A moment of a deal: ``bids`` bids made (in bidding order) and ``cards`` cards played."""

    deal: int  # position of the deal in ``game.deals``
    bids: int
    cards: int


@dataclass(frozen=True)
class SeatMoment:
    seat: int
    name: str
    dealer: bool
    hand: tuple[int, ...]  # the cards still held, in display order
    bid: int | None
    blind: bool
    tricks: int
    turn: bool  # the seat whose move the next step shows
    score: int | None  # the deal's points, once its last card is played
    total: int  # the game's points so far (this deal's once it is scored)


@dataclass(frozen=True)
class Moment:
    """What one step shows."""

    step: int
    steps: int
    deal_number: int  # the deal's place in the schedule, 1-based (as Discord counts deals)
    deals: int  # the game's deals played out
    hand_size: int
    trump: int | None
    turned: int | None
    seats: tuple[SeatMoment, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick on the table, from its lead
    trick_number: int  # 1-based; 0 while bidding
    winner: int | None  # the seat that won the trick shown, once it is complete
    action: tuple[str, int | None]  # ("dealt", None) | ("bid", seat) | ("card", seat)
    scored: bool  # the deal's last card: its points are shown
    deal_starts: tuple[int, ...]  # the first step of each deal played out


def played_deals(game: Game) -> list[DealLog]:
    deals = []
    for log in game.deals:
        if log.scores is None:
            break
        deals.append(log)
    return deals


def steps(game: Game) -> list[Step]:
    """Every step of the played-out deals: dealt, each bid, each card."""
    out: list[Step] = []
    seats = len(game.deals[0].hands) if game.deals else 0
    for position, log in enumerate(played_deals(game)):
        out.append(Step(position, 0, 0))
        out.extend(Step(position, n, 0) for n in range(1, seats + 1))
        cards = sum(len(trick) for trick in log.tricks)
        out.extend(Step(position, seats, n) for n in range(1, cards + 1))
    return out


def bidding_order(log: DealLog) -> list[int]:
    seats = len(log.hands)
    return [(log.dealer + 1 + i) % seats for i in range(seats)]


def moment(game: Game, names: list[str], number: int) -> Moment | None:
    """Step ``number`` (0-based) of the replay, or None when there is no such step."""
    every = steps(game)
    if not 0 <= number < len(every):
        return None
    step = every[number]
    deals = played_deals(game)
    log = deals[step.deal]
    seats = len(log.hands)
    order = bidding_order(log)
    bidders = set(order[: step.bids])
    played = [pair for trick in log.tricks for pair in trick][: step.cards]
    gone = {card for _seat, card in played}
    complete = step.cards // seats
    in_trick = step.cards - complete * seats
    if step.cards and in_trick == 0:
        trick_index, shown = complete - 1, tuple(log.tricks[complete - 1])
        winner: int | None = log.trick_winners[trick_index]
        won = log.trick_winners[:complete]
    else:
        trick_index, shown = complete, tuple(log.tricks[complete][:in_trick]) if in_trick else ()
        winner = None
        won = log.trick_winners[:complete]
    last = step.cards == sum(len(trick) for trick in log.tricks) and step.cards > 0
    earlier = [sum(d.scores[s] for d in deals[: step.deal] if d.scores) for s in range(seats)]
    action: tuple[str, int | None] = ("dealt", None)
    if step.cards:
        action = ("card", played[-1][0])
    elif step.bids:
        action = ("bid", order[step.bids - 1])
    turn = _next_turn(log, step, order, seats)
    moments = []
    for seat in range(seats):
        score = log.scores[seat] if last and log.scores is not None else None
        moments.append(
            SeatMoment(
                seat=seat,
                name=names[seat] if seat < len(names) else str(seat + 1),
                dealer=seat == log.dealer,
                hand=tuple(display_order([c for c in log.hands[seat] if c not in gone])),
                bid=log.bids[seat] if seat in bidders else None,
                blind=bool(log.blind[seat]) if seat in bidders else False,
                tricks=won.count(seat),
                turn=seat == turn,
                score=score,
                total=earlier[seat] + (score or 0),
            )
        )
    starts = [i for i, s in enumerate(every) if s.bids == 0]
    return Moment(
        step=number,
        steps=len(every),
        deal_number=log.index + 1,
        deals=len(deals),
        hand_size=len(log.hands[0]),
        trump=trump_of(game, log.index),
        turned=log.turned,
        seats=tuple(moments),
        trick=shown,
        trick_number=trick_index + 1 if step.cards or step.bids == seats else 0,
        winner=winner,
        action=action,
        scored=last,
        deal_starts=tuple(starts),
    )


def _next_turn(log: DealLog, step: Step, order: list[int], seats: int) -> int | None:
    """The seat whose move the next step shows (None after the deal's last card)."""
    if step.bids < seats:
        return order[step.bids]
    flat = [pair for trick in log.tricks for pair in trick]
    return flat[step.cards][0] if step.cards < len(flat) else None
