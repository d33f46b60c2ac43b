"""What every slash command must be before Discord sees it: within Discord's limits (a sync
that breaks one is refused whole, and the bot keeps its old commands), described and
translated in every language the bot speaks, and named in ``/kachuful help``.

:func:`problems` reads the payload discord.py syncs (``get_translated_payload``: names,
descriptions, options, choices and their localisations) and returns one line per problem, so a
test fails on a command Discord would refuse, or a player would find untranslated or missing
from the help, before any sync."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence, Set
from typing import Any

# Discord's limits for application commands (Discord's developer documentation, "Application
# Commands": names, descriptions, options, choices).
NAME = re.compile(r"^[-_a-z0-9]{1,32}$")  # the English names: lowercase, no space, ≤ 32
DESCRIPTION_MAX = 100
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100
OPTIONS_MAX = 25  # options of a command, subcommands of a group, groups of a command
CHOICES_MAX = 25
COMMAND_CHARACTERS_MAX = 8000  # names, descriptions and values of a command and all it holds
GLOBAL_COMMANDS_MAX = 100

SUBCOMMAND, GROUP = 1, 2
# Discord's locale of each language the bot speaks besides English.
LOCALES = {"fr": "fr", "it": "it", "hi": "hi"}


def problems(
    payloads: Sequence[dict[str, Any]], help_text: str, same: Mapping[str, Set[str]]
) -> list[str]:
    """Everything but the size of each command (:func:`size_problem`). ``same``: by
    language, the English words its catalogue keeps as they are (Discord gets no localisation
    for those: the translator leaves out a translation equal to the English)."""
    found: list[str] = []
    if len(payloads) > GLOBAL_COMMANDS_MAX:
        found.append(f"{len(payloads)} commands: Discord allows {GLOBAL_COMMANDS_MAX}")
    for command in payloads:
        name = command["name"]
        for where, entry in _entries(command, f"/{name}"):
            found += _entry(where, entry, same)
        for leaf in _leaves(command, name):
            if not _in_help(leaf, help_text):
                found.append(f"/{leaf}: not named in /kachuful help")
    return found


def size_problem(command: dict[str, Any]) -> str | None:
    size = _characters(command)
    if size > COMMAND_CHARACTERS_MAX:
        return f"/{command['name']}: {size} characters, Discord allows {COMMAND_CHARACTERS_MAX}"
    return None


def _entries(entry: dict[str, Any], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The command, and each of its options, groups and subcommands, with where it is."""
    yield where, entry
    for option in entry.get("options") or ():
        yield from _entries(option, f"{where} {option['name']}")


def _entry(where: str, entry: dict[str, Any], same: Mapping[str, Set[str]]) -> list[str]:
    found = []
    if not NAME.fullmatch(entry["name"]):
        found.append(f"{where}: the name must be 1 to 32 lowercase letters, digits, - or _")
    if entry.get("name_localizations"):
        # Names stay English (bot/command_translator.py): one bad translated name would fail
        # the whole sync, and players type the names the help shows.
        found.append(f"{where}: a translated name")
    description = entry.get("description", "")
    found += _text(where, "description", description, DESCRIPTION_MAX)
    found += _translated(where, "description", description, entry, same)
    options = entry.get("options") or ()
    if len(options) > OPTIONS_MAX:
        kind = "subcommands" if options[0].get("type") in (SUBCOMMAND, GROUP) else "options"
        found.append(f"{where}: {len(options)} {kind}, Discord allows {OPTIONS_MAX}")
    required = [bool(o.get("required")) for o in options if o.get("type") not in (1, 2)]
    if required != sorted(required, reverse=True):
        found.append(f"{where}: a required option after an optional one")
    choices = entry.get("choices") or ()
    if len(choices) > CHOICES_MAX:
        found.append(f"{where}: {len(choices)} choices, Discord allows {CHOICES_MAX}")
    for choice in choices:
        at = f"{where}={choice['value']}"
        found += _text(at, "choice name", choice["name"], CHOICE_NAME_MAX)
        found += _translated(
            at, "choice name", choice["name"], choice, same, key="name_localizations"
        )
        if isinstance(choice["value"], str) and len(choice["value"]) > CHOICE_VALUE_MAX:
            found.append(f"{at}: a choice value over {CHOICE_VALUE_MAX} characters")
    return found


def _text(where: str, what: str, text: str, limit: int) -> list[str]:
    if not 1 <= len(text) <= limit:
        return [f"{where}: its {what} has {len(text)} characters, Discord allows 1 to {limit}"]
    return []


def _translated(
    where: str,
    what: str,
    text: str,
    entry: dict[str, Any],
    same: Mapping[str, Set[str]],
    *,
    key: str = "description_localizations",
) -> list[str]:
    found = []
    shown = entry.get(key) or {}
    for language, locale in LOCALES.items():
        words = shown.get(locale)
        if words is None and text in same.get(language, ()):
            continue
        if words is None:
            found.append(f"{where}: its {what} {text!r} is not translated in {language}")
        elif not 1 <= len(words) <= DESCRIPTION_MAX:
            found.append(f"{where}: its {what} in {language} has {len(words)} characters")
    return found


def _leaves(command: dict[str, Any], name: str) -> Iterator[str]:
    """The qualified name of each command a player types: ``kachuful event open``."""
    children = [o for o in command.get("options") or () if o.get("type") in (SUBCOMMAND, GROUP)]
    if not children:
        yield name
    for child in children:
        yield from _leaves(child, f"{name} {child['name']}")


def _in_help(leaf: str, help_text: str) -> bool:
    """``/kachuful event pause`` is named in full, or as `pause` after ``/kachuful event``."""
    if f"/{leaf}`" in help_text or f"/{leaf} " in help_text:
        return True
    group, _, last = leaf.rpartition(" ")
    return group.count(" ") == 1 and f"/{group} " in help_text and f"`{last}`" in help_text


def _characters(entry: dict[str, Any]) -> int:
    """Discord's count of a command's size: every name, description and choice (name and
    value), each at its longest localisation."""

    def longest(text: str, localised: dict[str, str] | None) -> int:
        return max([len(text), *(len(words) for words in (localised or {}).values())])

    total = longest(entry["name"], entry.get("name_localizations"))
    total += longest(entry.get("description", ""), entry.get("description_localizations"))
    for choice in entry.get("choices") or ():
        total += longest(choice["name"], choice.get("name_localizations"))
        total += len(str(choice["value"]))
    return total + sum(_characters(option) for option in entry.get("options") or ())
