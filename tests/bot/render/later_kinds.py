"""The message kinds added with review, practice, the score pad, events and seasons, with edge
values (0, 1, 2, a half, a negative figure, a figure that cannot be measured, the longest
names), for the words tests of test_words_in_every_language."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime

from bot.club.model import Crown, Entrant, Event, EventSeat, EventTable, SeasonPlayer
from bot.i18n import translation
from bot.model import TableOptions
from bot.render import club, practice, review, scorepad
from bot.render.specs import MessageSpec
from bot.scorepad.model import Pad, PadSeat
from kachuful_core import Game, Phase, Rules
from kachuful_core.club.scoring import Standing
from kachuful_core.players import RandomPlayer, act
from kachuful_core.review import DealReview, GameReview, Hint, SeatDeal
from kachuful_core.scorepad import ScorePad

from .test_render import LONG
from .words_check import Filler

NAMES = [f"{LONG[:-1]}{n}" for n in range(3)]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def seat_deal(bid: int, tricks: int, figures: bool, sign: int) -> SeatDeal:
    return SeatDeal(
        bid=bid,
        tricks=tricks,
        score=10 + bid if bid == tricks else 0,
        expert_bid=bid + sign if figures else None,
        expected_tricks=1.5 if figures else None,
        bid_cost=1.5 * abs(sign) if figures else None,
        expert_tricks=tricks if figures else None,
        play=sign if figures else None,
        luck=-1.5 * sign if figures else None,
    )


def a_review() -> GameReview:
    """Three deals: figures of each sign, and one (a forehead deal) with none to show."""
    deals = tuple(
        DealReview(
            index=i,
            hand_size=2 - i if i < 2 else 1,
            seats=tuple(
                seat_deal(b, t, i != 2, s) for b, t, s in ((0, 0, 0), (1, 2, 1), (2, 1, -1))
            ),
        )
        for i in range(3)
    )
    return GameReview(players=tuple(NAMES), deals=deals)


def review_messages(language: str) -> Iterator[MessageSpec]:
    tr = translation(language)
    game_review = a_review()
    for page in range(review.review_pages(game_review)):
        yield review.review_page(7, game_review, page, tr)
    game = played(Game.new(Rules(players=3, max_hand=2, schedule="down"), "replay", NAMES))
    for step in range(len(review.replay_steps(game))):
        yield review.replay_page(7, game, step, NAMES, tr)


def played(game: Game, moves: int | None = None) -> Game:
    done = 0
    while game.turn is not None and (moves is None or done < moves):
        act(game, game.turn, RandomPlayer(game.turn))
        done += 1
    return game


def practice_messages(language: str) -> Iterator[MessageSpec]:
    tr = translation(language)
    rules = Rules(players=3, max_hand=2, schedule="down")
    bid = Hint(kind="bid", choice=1, expected=11.5, tricks=1.5)
    for moves in (0, 2, 4, None):  # bidding, a card to play, mid-trick, the deal over
        game = played(Game.new(rules, "practice", NAMES), moves)
        if game.phase is Phase.FINISHED or game.deals[-1].scores is not None:
            hint = None
        elif game.phase is Phase.BIDDING:
            hint = practice.bid_hint(bid, 1.5, tr)
        else:
            card = Hint(kind="card", choice=game.hand(game.turn or 0)[0], expected=-1.0)
            hint = practice.card_hint(card, tr)
        for level in ("random", "heuristic", "search"):
            yield practice.practice_page(3, 1, game, 0, level, tr, hint)
    yield MessageSpec(content=practice.bid_hint(Hint(kind="bid", choice=0, expected=None), 0, tr))


def pad_messages(language: str) -> Iterator[MessageSpec]:
    tr = translation(language)
    seats = [PadSeat(user_id=10 + i, name=name) for i, name in enumerate(NAMES)]
    options = TableOptions.of(language=language)
    base = dict(id=5, guild_id=1, channel_id=2, host_id=10, seats=seats, options=options)
    yield scorepad.pad_message(Pad(status="open", **base), tr)  # type: ignore[arg-type]
    yield scorepad.pad_message(Pad(status="open", **{**base, "seats": seats[:1]}), tr)  # type: ignore[arg-type]
    rules = Rules(players=3, max_hand=2, schedule="down")
    pad = ScorePad.new(rules, NAMES, first_dealer=0)
    for board in ("apart", "together"):
        running = Pad(status="running", record=pad.to_document(), board=board, **base)  # type: ignore[arg-type]
        yield scorepad.pad_message(running, tr)
    for seat in pad.bid_order():  # deal 1: bids of 0, 1 and the dealer's refused total
        pad.bid(seat, min(b for b in pad.legal_bids()))
    yield scorepad.pad_message(Pad(status="running", record=pad.to_document(), **base), tr)  # type: ignore[arg-type]
    pad.tricks(0, 2)  # the counts do not add up yet
    yield scorepad.pad_message(Pad(status="running", record=pad.to_document(), **base), tr)  # type: ignore[arg-type]
    while pad.winners() is None:
        if pad.turn is not None:
            pad.bid(pad.turn, pad.legal_bids()[0])
            continue
        for seat in range(3):
            pad.tricks(seat, pad.hand_size() if seat == pad.dealer() else 0)
    for board in ("apart", "together"):
        done = Pad(status="finished", record=pad.to_document(), board=board, **base)  # type: ignore[arg-type]
        yield scorepad.pad_message(done, tr)
    for words in (*scorepad.REFUSALS.values(), *scorepad.NOTICES.values()):
        yield MessageSpec(content=tr.gettext(words).format_map(Filler()))


def an_event(status: str, fmt: str) -> Event:
    return Event(
        id=4,
        guild_id=1,
        channel_id=2,
        organiser_id=10,
        name="Club night",
        format=fmt,
        table_size=3,
        rounds=2,
        level="search",
        options=TableOptions.of(),
        status=status,  # type: ignore[arg-type]
        round=1,
        created_at=NOW,
        updated_at=NOW,
        starts_at=NOW,
    )


def club_messages(language: str) -> Iterator[MessageSpec]:
    tr = translation(language)
    entrants = [
        Entrant(user_id=10 + i, name=name, status="registered") for i, name in enumerate(NAMES)
    ]
    seats = (EventSeat(10, NAMES[0]), EventSeat(None, "Mira 🤖"), EventSeat(12, NAMES[2]))
    tables = [
        EventTable(4, 1, 1, seats, "seed", thread_id=99, game_id=1),
        EventTable(4, 1, 2, seats, "s"),
    ]
    standings = [
        Standing(10, 1, 1.5, 40, 1),
        Standing(12, 1, 1.5, 40, 2),
        Standing(11, 3, 0.0, -1, 0),
    ]
    for fmt in ("rotation", "duplicate"):
        for status in ("registering", "running", "paused", "finished", "closed"):
            for ranked in ([], standings):
                view = club.EventView(
                    an_event(status, fmt), entrants, ranked, tables, frozenset({(1, 1)})
                )
                yield club.event_message(view, tr)
    yield club.reminder(an_event("registering", "rotation"), [10, 12], tr)
    yield MessageSpec(content=club.table_title(an_event("running", "rotation"), 1, 2, tr))
    players = [SeasonPlayer(10 + i, name, i + 1, 1.5 * i, i, i) for i, name in enumerate(NAMES)]
    yield club.season_board("2026-01", date(2026, 1, 31), players, tr)
    yield club.season_board("2026-Q1", date(2026, 3, 31), [], tr)
    crowns = [
        Crown(1, "2025-12", date(2025, 12, 1), date(2026, 1, 1), tuple(players), 2),
        Crown(1, "2025-Q4", date(2025, 10, 1), date(2026, 1, 1), tuple(players[:1]), 2),
        Crown(1, "2025-11-08..2025-12-11", date(2025, 11, 8), date(2025, 12, 12), (), 2),
        Crown(1, "2025-11", date(2025, 11, 1), date(2025, 12, 1), (), 2),
    ]
    for crown in crowns:
        yield club.champions_message(crown, tr)
    yield club.hall_of_champions(crowns, tr)
    yield club.hall_of_champions([], tr)
    for kind in ("monthly", "quarterly", "dates"):
        words = club.kind_words(kind, tr, first=date(2026, 1, 1), last=date(2026, 2, 8))
        yield MessageSpec(content=club.season_notice("season_set", tr, kind=words, channel="#x"))
    for words in (*club.NOTICES.values(), *club.REFUSALS.values(), *club.SEASON_NOTICES.values()):
        yield MessageSpec(content=tr.gettext(words).format_map(Filler()))
    for words in (*review.REFUSALS.values(), *review.NOTICES.values(), *practice.REFUSALS.values()):
        yield MessageSpec(content=tr.gettext(words).format_map(Filler()))


def later_messages(language: str) -> Iterator[MessageSpec]:
    yield from review_messages(language)
    yield from practice_messages(language)
    yield from pad_messages(language)
    yield from club_messages(language)
