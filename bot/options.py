"""Slash command options, checked in code against the option registry (bot.registry).

Discord shows only the declared choices, but a modified client (or a raw API call) can send any
value of the option's type, and discord.py passes it through unchecked. Each check returns the
table options, or one line for the user naming the option and the values it allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.i18n import EN, Translations
from bot.model import MaxHand, TableOptions
from bot.registry import MAX_HAND_LIMIT, OPTIONS, START_OPTIONS
from kachuful_core import Rules
from kachuful_core.rules import (
    LENGTHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    LengthName,
    largest_hand,
    length_max_hand,
)

SCOPES = ("channel", "server")


@dataclass(frozen=True)
class StartOptions:
    players: int
    options: TableOptions


def lobby_max_hand(length: LengthName | None, max_hand: int | None) -> MaxHand:
    """The table's ``max_hand`` option from /kachuful start's ``length`` and ``max_hand``: a
    max_hand given wins (0 is "classic"), else the length (quick, classic, full), else the full
    game. The lobby keeps the name of a length, resolved for the seats when the game starts."""
    if max_hand is not None:
        return "classic" if max_hand == 0 else max_hand
    chosen: MaxHand = OPTIONS["length"].default if length is None else length
    return chosen


def refusal(name: str, tr: Translations) -> str:
    """/kachuful start's words for a value ``name`` does not allow."""
    if name == "players":
        return tr.gettext(
            "`players` must be a number of seats from {low} to {high}: nothing was created."
        ).format(low=MIN_PLAYERS, high=MAX_PLAYERS)
    if name == "max_hand":
        return tr.gettext(
            "`max_hand` must be 0 (classic) or a hand size from 1 to {high} "
            "(lowered to 52 ÷ players if larger): nothing was created."
        ).format(high=MAX_HAND_LIMIT)
    return tr.gettext("`{name}` must be {allowed}: nothing was created.").format(
        name=name, allowed=OPTIONS[name].allowed_text(tr)
    )


def check_start(tr: Translations = EN, **given: Any) -> StartOptions | str:
    """/kachuful start: the seats and table options, or the refusal to show (in the language
    of ``tr``, the one who typed the command). An option not given (or None) takes the
    registry's default."""
    unknown = set(given) - set(START_OPTIONS)
    if unknown:
        raise TypeError(f"no /kachuful start option {sorted(unknown)}")
    values: dict[str, Any] = {}
    for name in START_OPTIONS:
        value = given.get(name)
        if value is None:
            value = OPTIONS[name].default
        if value is not None and not OPTIONS[name].allows(value):
            return refusal(name, tr)
        values[name] = value
    options = TableOptions(
        **{k: v for k, v in values.items() if k not in ("players", "length", "max_hand")},
        max_hand=lobby_max_hand(values["length"], values["max_hand"]),
    )
    return StartOptions(players=values["players"], options=options)


def check_scope(scope: Any, tr: Translations = EN) -> str | None:
    """/kachuful leaderboard: None if ``scope`` is allowed, else the refusal to show."""
    if isinstance(scope, str) and scope in SCOPES:
        return None
    return tr.gettext("`scope` must be one of {values}.").format(values=", ".join(SCOPES))


def resolve_max_hand(choice: MaxHand | None, players: int) -> tuple[int, bool]:
    """The largest hand of a table's ``max_hand`` option for ``players`` (a length's name or a
    number of cards); and whether a number had to be lowered to fit the deck (the lobby says
    so: bot/render/table.py)."""
    if choice is None:
        choice = OPTIONS["length"].default
    if choice in LENGTHS:
        return length_max_hand(choice, players), False
    limit = largest_hand(players)
    wanted = int(choice)
    if wanted > limit:
        return limit, True
    return wanted, False


def table_rules(options: TableOptions, players: int) -> tuple[Rules, bool]:
    """The rules of a table's options for ``players`` seats, and whether the largest hand was
    lowered to fit the deck (resolve_max_hand)."""
    max_hand, lowered = resolve_max_hand(options.max_hand, players)
    rules = Rules(
        players=players,
        max_hand=max_hand,
        schedule=options.schedule,
        trump=options.trump,
        hook=options.hook,
        scoring=options.scoring,
        blind_bids=options.blind_bids,
        forehead=options.forehead,
    )
    return rules, lowered
