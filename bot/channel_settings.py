"""A channel's defaults for its next game (/kachuful settings): the names, the values allowed
and the check. Pure; the store keeps the checked dict as JSON (Store.set_channel_settings) and
/kachuful start reads it with Store.channel_settings(channel_id). A running game never reads
them again: they apply to the next game only."""

from __future__ import annotations

from typing import Any

from kachuful_core.players import LEVELS as ENGINE_LEVELS

PRESENTATIONS = ("trick", "compact", "thread")
LEVELS: tuple[str, ...] = tuple(ENGINE_LEVELS)  # the computer players' levels (random, ...)
TURN_SECONDS = (15, 600)
# Table options, as /kachuful start takes them (see cogs/kachuful.py).
OPTIONS: dict[str, tuple[Any, ...]] = {
    "players": tuple(range(3, 8)),
    "max_hand": tuple(range(0, 18)),  # 0 = classic
    "schedule": ("down-up", "down", "double"),
    "trump": ("cycle", "cycle-notrump", "turned"),
    "scoring": ("exact", "penalty", "per-trick", "judgement"),
    "hook": (True, False),
    "blind_bids": (True, False),
    "forehead": (True, False),
}


class BadSetting(ValueError):
    """A value outside what a setting allows; the message is the sentence for the user."""


def check(changes: dict[str, Any]) -> dict[str, Any]:
    """The changes, checked (None values dropped); raises BadSetting."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if value is None:
            continue
        if key == "presentation":
            if value not in PRESENTATIONS:
                raise BadSetting(f"presentation must be one of {', '.join(PRESENTATIONS)}.")
        elif key == "turn_seconds":
            low, high = TURN_SECONDS
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise BadSetting(f"turn_seconds must be a whole number from {low} to {high}.")
        elif key == "computers":
            if not isinstance(value, bool):
                raise BadSetting("computers must be true or false.")
        elif key == "computer_levels":
            levels = [part.strip().lower() for part in str(value).split(",") if part.strip()]
            unknown = [level for level in levels if level not in LEVELS]
            if not levels or unknown:
                raise BadSetting(
                    f"computer_levels is a comma-separated list of {', '.join(LEVELS)}."
                )
            value = [level for level in LEVELS if level in levels]
        elif key in OPTIONS:
            allowed = OPTIONS[key]
            if value not in allowed or (isinstance(value, bool) != isinstance(allowed[0], bool)):
                raise BadSetting(f"{key}: {value!r} is not allowed.")
        else:
            raise BadSetting(f"there is no setting called {key}.")
        out[key] = value
    return out


def merge(current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current)
    merged.update(check(changes))
    return merged
