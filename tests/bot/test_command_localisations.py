"""The synced slash commands carry their descriptions and choices in every language whose
catalogue translates them, within Discord's limits (a translation over 100 characters would
fail the whole sync: the translator leaves it out, and this test fails on it)."""

from __future__ import annotations

from typing import Any

import pytest
import simcord

from bot.i18n import LANGUAGES, SOURCE, translation

from .helpers import world

# Discord's locale for each language the bot speaks.
DISCORD_LOCALE = {"fr": "fr", "it": "it", "hi": "hi"}


def texts(entry: dict[str, Any], path: str = "") -> list[tuple[str, str, dict[str, str]]]:
    """(where, English text, its localisations) of every description and choice name."""
    found = []
    where = f"{path}/{entry.get('name', '')}"
    if "description" in entry and entry.get("type", 1) in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11):
        found.append((where, entry["description"], entry.get("description_localizations") or {}))
    for choice in entry.get("choices") or ():
        found.append(
            (f"{where}={choice['value']}", choice["name"], choice.get("name_localizations") or {})
        )
    for option in entry.get("options") or ():
        found += texts(option, where)
    return found


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != SOURCE])
async def test_synced_commands_carry_each_translated_language(
    env: simcord.Env, language: str
) -> None:
    world(env, "asha")
    tr = translation(language)
    locale = DISCORD_LOCALE[language]
    missing = []
    commands = [env.backend.find_command(name, None) for name in ("kachuful", "kachuful-settings")]
    for command in commands:
        assert command is not None
        for where, english, localised in texts(command):
            shown = localised.get(locale)
            if shown is not None:
                assert 1 <= len(shown) <= 100, (where, shown)
                assert shown != english
            elif tr.gettext(english) != english:
                missing.append(f"{where}: {english!r}")  # translated, yet left out (too long)
    assert not missing, missing
    # Names are never translated.
    for command in commands:
        assert command is not None and not command.get("name_localizations")


async def test_a_french_client_sees_french_descriptions(env: simcord.Env) -> None:
    world(env, "asha")
    command = env.backend.find_command("kachuful", None)
    assert command is not None
    start = next(o for o in command["options"] if o["name"] == "start")
    if translation("fr").gettext(start["description"]) == start["description"]:
        pytest.fail("the French catalogue does not translate /kachuful start")
    assert start["description_localizations"]["fr"] == translation("fr").gettext(
        start["description"]
    )
