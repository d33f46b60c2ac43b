"""The synced slash commands carry their descriptions and choices in every language whose
catalogue translates them, within Discord's limits (a translation over 100 characters would
fail the whole sync: the translator leaves it out, and this test fails on it)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import simcord

from bot.i18n import LANGUAGE_NAMES, LANGUAGES, SOURCE, translation

from .catalogue import read_catalogue
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


def synced(env: simcord.Env) -> list[dict[str, Any]]:
    world(env, "asha")
    commands = [env.backend.find_command(name, None) for name in ("kachuful", "kachuful-settings")]
    assert all(command is not None for command in commands)
    return [command for command in commands if command is not None]


# Choices shown as they are in every language: each language named in its own words.
NEVER_TRANSLATED = set(LANGUAGE_NAMES.values())


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != SOURCE])
async def test_every_description_and_choice_reaches_the_catalogue(
    env: simcord.Env, language: str
) -> None:
    """A text built from a variable (the event's computer levels, once the engine's labels)
    is never extracted: it reaches players in English in every language. Each description and
    choice is localised, or its catalogue entry says it reads the same in the language."""
    catalogue = read_catalogue(language)
    translated_as_itself = {
        message.id
        for message in catalogue
        if isinstance(message.id, str) and message.string == message.id
    }
    untranslated = [
        f"{where}: {english!r}"
        for command in synced(env)
        for where, english, localised in texts(command)
        if DISCORD_LOCALE[language] not in localised
        and english not in translated_as_itself
        and english not in NEVER_TRANSLATED
    ]
    assert untranslated == []


# An option written with a choice in a sentence ("cards:Real deck"): the reader's client
# shows that choice in their language, so a translation names it by its translated name.
OPTION_VALUE = re.compile(r"\b([a-z_]+):(\S[^`.,;)]*)")


async def test_no_translation_quotes_a_choice_by_its_english_name(env: simcord.Env) -> None:
    english_choices: dict[str, set[str]] = {}

    def collect(entry: dict[str, Any]) -> None:
        for option in entry.get("options") or ():
            for choice in option.get("choices") or ():
                head = choice["name"].split(" (")[0].strip()
                english_choices.setdefault(option["name"], set()).add(head.lower())
            collect(option)

    for command in synced(env):
        collect(command)
    quoted = [
        (language, value[:80])
        for language in LANGUAGES
        if language != SOURCE
        for message in read_catalogue(language)
        if message.id
        for value in (message.string if isinstance(message.string, tuple) else (message.string,))
        for option, written in OPTION_VALUE.findall(value)
        if any(written.lower().startswith(head) for head in english_choices.get(option, ()))
    ]
    assert quoted == []
