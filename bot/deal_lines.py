"""A finished game's scored deals, seat by seat (:class:`bot.store.values.DealLine`), from the
engine's score summary or by replaying a stored record: what the statistics of a game are made
of. Below both the store, which replays the records of games finished before their deals were
passed in, and the table code (bot/results.py) and the score pads, which pass them."""

from __future__ import annotations

import logging
from typing import Any

from bot.store.values import DealLine
from kachuful_core import load_game, score_summary

log = logging.getLogger("bot.results")


def deal_lines_from_summary(summary: dict[str, Any], players: int) -> list[tuple[DealLine, ...]]:
    """Each seat's scored deals from ``kachuful_core.score_summary``'s document (or a score
    pad's, ``ScorePad.summary``)."""
    lines: list[list[DealLine]] = [[] for _ in range(players)]
    for deal in summary["deals"]:
        if deal["scores"] is None:
            continue
        for seat in range(players):
            lines[seat].append(
                DealLine(
                    hand_size=int(deal["hand_size"]),
                    suit=deal["trump"],
                    bid=int(deal["bids"][seat]),
                    tricks=int(deal["tricks_won"][seat]),
                    points=int(deal["scores"][seat]),
                )
            )
    return [tuple(seat_lines) for seat_lines in lines]


def deal_lines_from_record(record: str | dict[str, Any] | None) -> list[tuple[DealLine, ...]]:
    """Each seat's scored deals, by replaying a stored record through the engine (for a
    caller that did not pass them, and for games finished before they were kept). Empty
    when the record is missing or cannot be replayed."""
    if record is None:
        return []
    try:
        game = load_game(record)
    except Exception as error:
        # Only the kind of error: its words could name a card of the record.
        log.warning("a finished game's record cannot be replayed (%s)", type(error).__name__)
        return []
    return deal_lines_from_summary(score_summary(game), game.rules.players)
