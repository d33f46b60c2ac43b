"""The bot's languages: which catalogue a reader or a table gets, and the marker for words
written at module level.

Every word a player reads is English in the code (the source language) and goes through a
gettext translations object at render time: ``tr.gettext("Your lead.")``,
``tr.ngettext("{n} trick", "{n} tricks", n).format(n=n)`` (placeholders are filled after the
translation, so a translator may move them). Render functions take that object as a
parameter (``tr``): there is no "current language", so one table's language cannot leak into
another's messages. Private messages use the reader's Discord language
(``Interaction.locale``); public ones the table's, stored with its options when it opened.

The catalogues are bot/locale/<lang>/LC_MESSAGES/kachuful.po, the only form kept: each is
compiled in memory with Babel the first time its language is needed in a process (about a
tenth of a second), so a change of words touches the catalogue and never a binary, and the
bot runs from a checkout, an editable install or a wheel with no build step.
bot/locale/README.md says how to extract and update them with Babel.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "kachuful"
SOURCE = "en"
# The languages the bot speaks, the source first, each as its players name it.
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "it": "Italiano", "hi": "हिन्दी"}
LANGUAGES = tuple(LANGUAGE_NAMES)

Translations = gettext.NullTranslations


def N_(message: str) -> str:
    """Marks a module-level string for extraction; it is translated where it is shown."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a module-level plural for extraction (``tr.ngettext(*pair, n)`` where shown)."""
    return singular, plural


def language_of(locale: Any, fallback: str = SOURCE) -> str:
    """The bot's language for a Discord locale (a ``discord.Locale`` or its value: ``en-GB``,
    ``fr``, ``pt-BR``...): any variant of a language the bot speaks is that language,
    anything else is ``fallback``."""
    if locale is None:
        return fallback
    text = str(getattr(locale, "value", locale)).strip().lower()
    language = text.replace("_", "-").split("-", 1)[0]
    return language if language in LANGUAGE_NAMES else fallback


@cache
def translation(language: str) -> Translations:
    """The translations of ``language`` (loaded once); the source language, and a language
    whose catalogue is missing, translate nothing."""
    if language == SOURCE or language not in LANGUAGE_NAMES:
        return gettext.NullTranslations()
    po = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.is_file():
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compile_catalogue(po, language)))


def compile_catalogue(po: Path, language: str) -> bytes:
    """What ``pybabel compile`` would write for ``po``: the .mo bytes, fuzzy (stale) entries
    left out. Babel is imported here, when a language other than English is first needed."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as source:
        catalogue = read_po(source, locale=language)
    out = io.BytesIO()
    write_mo(out, catalogue, use_fuzzy=False)
    return out.getvalue()


EN = translation(SOURCE)


def reader(interaction: Any) -> Translations:
    """A private message's translations: its reader's Discord language, else English."""
    return translation(language_of(getattr(interaction, "locale", None)))


def table_language(options: Any) -> str:
    """A table's language, kept with its options (``TableOptions.language``) from the lobby
    on; English for a table opened before languages existed."""
    language = getattr(options, "language", None)
    return language if isinstance(language, str) and language in LANGUAGE_NAMES else SOURCE


def for_table(options: Any) -> Translations:
    """A public message's translations: the table's language."""
    return translation(table_language(options))
