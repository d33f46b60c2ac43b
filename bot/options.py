"""Slash command options, checked in code.

Discord shows only the declared choices, but a modified client (or a raw API call) can send any
value of the option's type, and discord.py passes it through unchecked. Each check returns the
table options, or one line for the user naming the option and the values it allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from bot.render.channel import MODES
from kachuful_core.rules import MAX_PLAYERS, MIN_PLAYERS, ScheduleName, ScoringName, TrumpName

# 0 is "classic"; a hand above 52 ÷ players is lowered (with a note) when the game starts.
MAX_HAND_LIMIT = 17
SCHEDULES: tuple[str, ...] = get_args(ScheduleName)
TRUMPS: tuple[str, ...] = get_args(TrumpName)
SCORINGS: tuple[str, ...] = get_args(ScoringName)
SCOPES = ("channel", "server")


@dataclass(frozen=True)
class StartOptions:
    players: int
    options: dict[str, Any]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(name: str, value: Any, allowed: tuple[str, ...]) -> str | None:
    if isinstance(value, str) and value in allowed:
        return None
    return f"`{name}` must be one of {', '.join(allowed)}: nothing was created."


def check_start(
    *,
    players: Any = MAX_PLAYERS,
    max_hand: Any = None,
    schedule: Any = "down-up",
    trump: Any = "cycle",
    hook: Any = True,
    scoring: Any = "exact",
    blind_bids: Any = False,
    forehead: Any = False,
    mode: Any = "trick",
) -> StartOptions | str:
    """/kachuful start: the seats and table options, or the refusal to show."""
    if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return (
            f"`players` must be a number of seats from {MIN_PLAYERS} to {MAX_PLAYERS}: "
            "nothing was created."
        )
    if max_hand is not None and (not _is_int(max_hand) or not 0 <= max_hand <= MAX_HAND_LIMIT):
        return (
            f"`max_hand` must be 0 (classic) or a hand size from 1 to {MAX_HAND_LIMIT} "
            "(lowered to 52 ÷ players if larger): nothing was created."
        )
    for name, value, allowed in (
        ("schedule", schedule, SCHEDULES),
        ("trump", trump, TRUMPS),
        ("scoring", scoring, SCORINGS),
        ("mode", mode, MODES),
    ):
        refusal = _one_of(name, value, allowed)
        if refusal is not None:
            return refusal
    for name, value in (("hook", hook), ("blind_bids", blind_bids), ("forehead", forehead)):
        if not isinstance(value, bool):
            return f"`{name}` must be true or false: nothing was created."
    return StartOptions(
        players=players,
        options={
            "max_hand": "full" if max_hand is None else ("classic" if max_hand == 0 else max_hand),
            "schedule": schedule,
            "trump": trump,
            "hook": hook,
            "scoring": scoring,
            "blind_bids": blind_bids,
            "forehead": forehead,
            "mode": mode,
        },
    )


def check_scope(scope: Any) -> str | None:
    """/kachuful leaderboard: None if ``scope`` is allowed, else the refusal to show."""
    if isinstance(scope, str) and scope in SCOPES:
        return None
    return f"`scope` must be one of {', '.join(SCOPES)}."
