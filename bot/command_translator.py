"""The slash commands in the players' languages: Discord shows each user the descriptions and
choice names of their own client's language, from the localisations sent with the commands.

discord.py asks :class:`CommandTranslator` for every string of every command when it syncs
them (and when bot.command_sync computes their digest, so a changed translation is a change
to sync). Names of commands and options stay English: a translated name must follow Discord's
name rule, and one bad name fails the whole sync. A translation longer than Discord allows (100
characters for a description or a choice) is left out, for the same reason: the user then
reads the English. A description naming a permission (``naming_permissions``) takes its name
from bot/render/permissions.py in each language, as the user's Discord client shows it."""

from __future__ import annotations

from typing import Any

from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.app_commands import locale_str

from bot import registry
from bot.i18n import SOURCE, language_of, translation
from bot.render.permissions import fill

# What may be translated: descriptions and choices (never a name).
TRANSLATED = frozenset(
    {
        Where.command_description,
        Where.group_description,
        Where.parameter_description,
        Where.choice_name,
    }
)
MAX_LENGTH = 100  # a command's, an option's description, a choice's name


def choice_str(option: str, choice: registry.Choice) -> locale_str:
    """A registry choice's name for a slash command: its English words, and where it comes
    from, so that the translator words it (with "(default)" where it is) in each language."""
    shown = registry.option(option).choice_name(choice)
    return locale_str(shown, option=option, value=choice.value)


def naming_permissions(template: str) -> locale_str:
    """A description whose ``template`` names permissions by placeholder (``{manage_guild}``,
    marked with ``N_``): the English with Discord's English names, and, through the
    translator, each language's template with that language's names."""
    return locale_str(fill(template, translation(SOURCE)), template=template)


class CommandTranslator(app_commands.Translator):
    async def translate(
        self, string: locale_str, locale: Locale, context: app_commands.TranslationContext[Any, Any]
    ) -> str | None:
        if context.location not in TRANSLATED:
            return None
        language = language_of(locale, fallback=SOURCE)
        if language == SOURCE:
            return None
        tr = translation(language)
        extras = string.extras
        if "template" in extras:
            text = fill(tr.gettext(extras["template"]), tr)
        elif "option" in extras:
            option = registry.option(extras["option"])
            text = option.choice_name(option.choice_of[extras["value"]], tr)
        else:
            text = tr.gettext(string.message)
        if text == string.message or not 1 <= len(text) <= MAX_LENGTH:
            return None
        return text
