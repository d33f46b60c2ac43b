"""A table's options and seats to and from the JSON stored in the ``games`` row.

Every row an earlier version wrote is read: an option it did not state takes the registry's
default (and is not written back while it keeps it, so a row read and saved again is the
same text); a key this version does not know is kept and written back (a newer version's row,
read by an older bot after a rollback, loses nothing). A value an option does not allow makes
the row unreadable (ValueError): the store reports such a row as damaged, which the bot tells
the channel, rather than letting a table run on rules nobody chose.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from types import MappingProxyType
from typing import Any

from bot.model import Seat, TableOptions
from bot.registry import MAX_HAND_LIMIT, OPTIONS
from kachuful_core.rules import LENGTHS

# The options with a default of their own, in the order the bot has always written them.
_STATED = ("max_hand", "schedule", "trump", "hook", "scoring", "blind_bids", "forehead", "mode")
# The options a table may lack (None): the channel had no such setting, or no game before.
_OPTIONAL = ("turn_seconds", "computers", "computer_levels", "invited", "language")
KNOWN = _STATED + _OPTIONAL
_DEFAULTS = {f.name: f.default for f in fields(TableOptions) if f.name in _STATED}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _checked(key: str, value: Any) -> Any:
    """The model's value of a stored option; raises ValueError if the option does not allow
    it."""
    if key == "max_hand":
        ok = value in LENGTHS or (_is_int(value) and 1 <= value <= MAX_HAND_LIMIT)
    elif key == "computer_levels":
        ok = isinstance(value, list) and all(isinstance(level, str) for level in value)
        value = tuple(value) if ok else value
    elif key == "invited":
        ok = isinstance(value, list) and all(_is_int(user_id) for user_id in value)
        value = tuple(value) if ok else value
    else:
        ok = OPTIONS[key].allows(value)
    if not ok:
        # The value is the table's options, never a card or a seed: safe to name.
        raise ValueError(f"table option {key}: {value!r} is not allowed")
    return value


def options_from_json(data: Any) -> TableOptions:
    if not isinstance(data, dict):
        raise ValueError("table options: not a JSON object")
    values = {
        key: _checked(key, value)
        for key, value in data.items()
        if key in KNOWN and value is not None
    }
    return TableOptions(
        **values,
        extra=MappingProxyType({k: v for k, v in data.items() if k not in KNOWN}),
        unstated=frozenset(key for key in _STATED if key not in data),
    )


def options_to_json(options: TableOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in KNOWN:
        value = getattr(options, key)
        if value is None or (key in options.unstated and value == _DEFAULTS[key]):
            continue
        out[key] = list(value) if isinstance(value, tuple) else value
    out.update(options.extra)
    return out


def seat_to_json(seat: Seat) -> dict[str, Any]:
    return asdict(seat)


def seat_from_json(data: dict[str, Any]) -> Seat:
    return Seat(
        user_id=data.get("user_id"),
        name=str(data.get("name", "?")),
        away=bool(data.get("away", False)),
        timeouts=int(data.get("timeouts", 0)),
        left_user_id=data.get("left_user_id"),
        looked_deal=data.get("looked_deal"),
        level=data.get("level") if isinstance(data.get("level"), str) else None,
    )
