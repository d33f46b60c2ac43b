"""A channel's defaults for its next game (/kachuful-settings): the check of each value against
the option registry (bot.registry). Pure; the store keeps the checked dict as JSON
(Store.set_channel_settings) and /kachuful start reads it with Store.channel_settings(channel_id).
A running game never reads them again: they apply to the next game only."""

from __future__ import annotations

from typing import Any

from bot.i18n import EN, Translations
from bot.registry import (
    LEVEL_NAMES,
    MUST_BE_SETTING,
    SETTINGS_OPTIONS,
    level_names,
    option,
    without_replaced,
)


class BadSetting(ValueError):
    """A value outside what a setting allows; the message is the sentence for the user."""


def check(changes: dict[str, Any], tr: Translations = EN) -> dict[str, Any]:
    """The changes, checked (None values dropped); raises BadSetting, whose message is in the
    language of ``tr``."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if value is None:
            continue
        if key not in SETTINGS_OPTIONS:
            raise BadSetting(tr.gettext("there is no setting called {key}.").format(key=key))
        if key == "computer_levels":
            # The players' words (Beginner, ...) or the engine's names, as older settings
            # have them; kept as the engine's names, weakest first.
            levels = level_names(value) if isinstance(value, str) else None
            if levels is None:
                words = ", ".join(tr.gettext(name) for name in LEVEL_NAMES.values())
                raise BadSetting(
                    tr.gettext("computer_levels is a comma-separated list of {words}.").format(
                        words=words
                    )
                )
            value = levels
        elif not option(key).allows(value):
            raise BadSetting(option(key).must_be(tr, MUST_BE_SETTING, name=key))
        out[key] = value
    return out


def merge(
    current: dict[str, Any], changes: dict[str, Any], tr: Translations = EN
) -> dict[str, Any]:
    """The channel's settings with ``changes`` applied. Two settings kept as one table option
    (a length, a largest hand) are one choice said two ways: a channel keeps the one given
    last, and of two given together the one /kachuful start lets win (declared later)."""
    checked = check(changes, tr)
    merged = {**without_replaced(current, checked), **checked}
    order = SETTINGS_OPTIONS.index
    for name in checked:
        key = option(name).key
        if any(option(k).key == key and order(k) > order(name) for k in checked):
            merged.pop(name, None)
    return merged
