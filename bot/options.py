"""Slash command options, checked in code against the option registry (bot.registry), and the
``Rules`` of a table's options.

Discord shows only the declared choices, but a modified client (or a raw API call) can send any
value of the option's type, and discord.py passes it through unchecked. Each check returns the
table options, or one line for the user naming the option and the values it allows. Nothing
here names an option: every one is handled as the registry declares it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.i18n import EN, Translations
from bot.model import TableOptions
from bot.registry import MUST_BE_START, OPTIONS, RULE_OPTIONS, START_OPTIONS, Option
from kachuful_core import Rules


@dataclass(frozen=True)
class StartOptions:
    players: int
    options: TableOptions


def refusal(option: Option, tr: Translations) -> str:
    """/kachuful start's words for a value ``option`` does not allow."""
    if option.refused is not None:
        low, high = option.choices[0].value, option.choices[-1].value
        return tr.gettext(option.refused).format(low=low, high=high)
    return option.must_be(tr, MUST_BE_START)


def kept_values(given: dict[str, Any]) -> dict[str, Any]:
    """Typed option values (``given``: by option name, None where not given) as a table keeps
    them, by the name each is kept under: a value given wins over a default, and of two given
    for one key (a length and a largest hand) the one declared later."""
    kept: dict[str, Any] = {}
    for option in OPTIONS.values():
        if option.name not in given:
            continue
        value = given[option.name]
        if value is not None:
            kept[option.key] = option.kept(value)
        elif option.default is not None and option.key not in kept:
            kept[option.key] = option.kept(option.default)
    return kept


def check_start(tr: Translations = EN, **given: Any) -> StartOptions | str:
    """/kachuful start: the seats and table options, or the refusal to show (in the language
    of ``tr``, the one who typed the command). An option not given (or None) takes the
    registry's default."""
    unknown = set(given) - set(START_OPTIONS)
    if unknown:
        raise TypeError(f"no /kachuful start option {sorted(unknown)}")
    for name in START_OPTIONS:
        value = given.get(name)
        if value is not None and not OPTIONS[name].allows(value):
            return refusal(OPTIONS[name], tr)
    kept = kept_values({name: given.get(name) for name in START_OPTIONS})
    players = kept.pop("players")
    return StartOptions(players=players, options=TableOptions.of(**kept))


def table_rules(options: TableOptions, players: int) -> tuple[Rules, bool]:
    """The rules of a table's options for ``players`` seats, and whether a rule had to be
    lowered to fit them (the largest hand, to the deck: the lobby says so)."""
    values: dict[str, Any] = {}
    lowered = False
    for name in RULE_OPTIONS:
        option, value = OPTIONS[name], options.rules[name]
        if option.resolve is not None:
            value, changed = option.resolve(value, players)
            lowered = lowered or changed
        values[name] = value
    return Rules(players=players, **values), lowered
