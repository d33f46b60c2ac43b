"""A table's options and seats to and from the JSON stored in the ``games`` row.

Every row an earlier version wrote is read: an option it did not state takes the registry's
default (and is not written back while it keeps it, so a row read and saved again is the
same text); a key this version does not know is kept and written back (a newer version's row,
read by an older bot after a rollback, loses nothing). A value an option does not allow makes
the row unreadable (ValueError): the store reports such a row as damaged, which the bot tells
the channel, rather than letting a table run on rules nobody chose.
"""

from __future__ import annotations

from dataclasses import fields
from types import MappingProxyType
from typing import Any

from bot.model import Seat, TableOptions
from bot.registry import OPTIONS, RULE_DEFAULTS, RULE_OPTIONS

# The table's settings beside its rules, by field (every field but the rules and the
# bookkeeping): those with a default of their own are stated like the rules; the others may be
# absent (None: the channel had no such setting, or no game before).
_SETTINGS = tuple(
    f.name for f in fields(TableOptions) if f.name not in ("rules", "extra", "unstated")
)
_SETTING_DEFAULTS = {f.name: f.default for f in fields(TableOptions) if f.name in _SETTINGS}
# The keys stated in every row, in the order the bot has always written them, with defaults.
_DEFAULTS = {
    **RULE_DEFAULTS,
    **{k: v for k, v in _SETTING_DEFAULTS.items() if v is not None},
}
_STATED = tuple(_DEFAULTS)
KNOWN = (*RULE_OPTIONS, *_SETTINGS)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list_of(kind: type, value: Any) -> tuple[Any, ...] | None:
    """A stored list of ``kind`` as the model's tuple; None if it is not one."""
    if not isinstance(value, list):
        return None
    ok = all(_is_int(v) if kind is int else isinstance(v, kind) for v in value)
    return tuple(value) if ok else None


# Settings kept as lists (not registry options of one value): computer levels, invited players.
_LISTS = {"computer_levels": str, "invited": int}
# Settings kept as free text.
_TEXTS = ("event_title",)


def _checked(key: str, value: Any) -> Any:
    """The model's value of a stored option; raises ValueError if the option does not allow
    it."""
    if key in _TEXTS:
        ok = isinstance(value, str)
    elif key in _LISTS:
        listed = _list_of(_LISTS[key], value)
        ok, value = listed is not None, value if listed is None else listed
    else:
        ok = OPTIONS[key].allows_kept(value)
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
        rules={k: v for k, v in values.items() if k in RULE_DEFAULTS},
        **{k: v for k, v in values.items() if k not in RULE_DEFAULTS},
        extra=MappingProxyType({k: v for k, v in data.items() if k not in KNOWN}),
        unstated=frozenset(key for key in _STATED if key not in data),
    )


def _value(options: TableOptions, key: str) -> Any:
    return options.rules[key] if key in RULE_DEFAULTS else getattr(options, key)


def options_to_json(options: TableOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in KNOWN:
        value = _value(options, key)
        if value is None or (key in options.unstated and value == _DEFAULTS[key]):
            continue
        out[key] = list(value) if isinstance(value, tuple) else value
    out.update(options.extra)
    return out


# Seat keys written only when they differ from their default: a seat saved again is the text
# an earlier version wrote.
_QUIET_SEAT_KEYS = {"claimed": [], "single_card": False, "confirm_cards": False}
# A seat's fields, read one by one: every move writes every seat, and dataclasses.asdict's
# recursive deep copy was most of a move's processor time in the store.
_SEAT_FIELDS = tuple(f.name for f in fields(Seat))


def seat_to_json(seat: Seat) -> dict[str, Any]:
    data = {name: getattr(seat, name) for name in _SEAT_FIELDS}
    for key, default in _QUIET_SEAT_KEYS.items():
        if data[key] == default:
            del data[key]
        elif key == "claimed":
            data[key] = [list(pair) for pair in data[key]]
    return data


def _claims(value: Any) -> list[tuple[int, int]]:
    """A seat's stored claims; a value this version cannot read is dropped (it only words the
    channel's trick lines: the record holds the cards)."""
    if not isinstance(value, list):
        return []
    pairs = [v for v in value if isinstance(v, list) and len(v) == 2]
    return [(v[0], v[1]) for v in pairs if _is_int(v[0]) and _is_int(v[1])]


def seat_from_json(data: dict[str, Any]) -> Seat:
    return Seat(
        user_id=data.get("user_id"),
        name=str(data.get("name", "?")),
        away=bool(data.get("away", False)),
        timeouts=int(data.get("timeouts", 0)),
        left_user_id=data.get("left_user_id"),
        looked_deal=data.get("looked_deal"),
        level=data.get("level") if isinstance(data.get("level"), str) else None,
        claimed=_claims(data.get("claimed")),
        single_card=data.get("single_card") is True,
        confirm_cards=data.get("confirm_cards") is True,
    )
