"""Discord's permissions are named in one place (bot/render/permissions.py), as each reader's
Discord client names them: no message writes a permission's English name itself, each
language names every permission in its own words, and a message naming one by placeholder
reads it in the reader's language."""

from __future__ import annotations

import pytest

from bot.command_translator import naming_permissions
from bot.i18n import N_, translation
from bot.render import club, refusal
from bot.render.permissions import PERMISSION_WORDS, fill, named_permissions
from tests.bot.catalogue import TRANSLATED, extracted


def test_no_message_writes_a_permissions_name_itself() -> None:
    names = set(PERMISSION_WORDS.values())
    written = sorted(
        message
        for _, message in extracted()
        if message not in names and any(name in message for name in names)
    )
    assert written == [], "name permissions with a placeholder such as {manage_guild}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_language_names_every_permission_in_its_own_words(language: str) -> None:
    tr = translation(language)
    same = [name for name in PERMISSION_WORDS.values() if tr.gettext(name) == name]
    assert same == []


def test_a_message_names_the_permission_in_the_readers_language() -> None:
    assert "**Manage Server**" in refusal("not_manager", translation("en"))
    assert "«\u00a0**Gérer le serveur**\u00a0»" in refusal("not_manager", translation("fr"))
    assert "“सर्वर मैनेज करें”" in club.refusal("not_organiser", translation("hi"))
    assert "«Crea eventi»" in club.schedule_note("no_permission", translation("it"))


def test_placeholders_and_other_values_are_filled_together() -> None:
    message = "{name}: ask someone with {manage_guild} or {manage_channels}."
    assert named_permissions(message) == ["manage_guild", "manage_channels"]
    assert fill(message, translation("en"), name="asha") == (
        "asha: ask someone with Manage Server or Manage Channels."
    )
    assert fill("No placeholder {here", translation("en")) == "No placeholder {here"


def test_a_command_description_names_the_permission_in_each_language() -> None:
    described = naming_permissions(N_("Stop this server's seasons ({manage_guild})"))
    assert described.message == "Stop this server's seasons (Manage Server)"
    assert described.extras["template"] == "Stop this server's seasons ({manage_guild})"
