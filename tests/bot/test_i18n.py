"""The bot's languages (bot/i18n.py) and its message catalogues (bot/locale)."""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import discord
import pytest
from babel.messages.catalog import Catalog

from bot import i18n
from bot.i18n import language_of, translation
from bot.model import TableOptions

from .catalogue import (
    ROOT,
    TRANSLATED,
    compiled,
    extracted,
    read_catalogue,
    untranslated,
)

PLACEHOLDER = re.compile(r"(?<!\{)\{([a-z_][a-z0-9_]*)(?:[!:][^}]*)?\}")


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


# ---- which language ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (discord.Locale.british_english, "en"),
        (discord.Locale.american_english, "en"),
        (discord.Locale.french, "fr"),
        (discord.Locale.italian, "it"),
        (discord.Locale.hindi, "hi"),
        ("en-GB", "en"),
        ("fr", "fr"),
        ("fr-CA", "fr"),
        ("it_IT", "it"),
        ("HI", "hi"),
    ],
)
def test_language_of_a_locale_the_bot_speaks(locale: object, expected: str) -> None:
    assert language_of(locale, fallback="it") == expected


@pytest.mark.parametrize(
    "locale", [discord.Locale.japanese, discord.Locale.brazil_portuguese, "xx", "", None]
)
def test_language_of_an_unknown_locale_is_the_fallback(locale: object) -> None:
    assert language_of(locale) == "en"
    assert language_of(locale, fallback="fr") == "fr"


def test_english_and_unknown_languages_translate_nothing() -> None:
    assert translation("en").gettext("Your lead.") == "Your lead."
    assert translation("xx").ngettext("{n} trick", "{n} tricks", 2) == "{n} tricks"
    assert translation("fr") is translation("fr")  # loaded once


def test_the_table_language_is_kept_with_its_options() -> None:
    assert i18n.table_language(TableOptions(language="hi")) == "hi"
    assert i18n.table_language(TableOptions()) == "en"
    assert i18n.table_language(TableOptions(language="klingon")) == "en"


# ---- the catalogues ------------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalogue_is_compiled_from_its_po_when_first_needed(language: str) -> None:
    loaded = translation(language)
    assert isinstance(loaded, gettext.GNUTranslations)
    # The standard library reads it, with the language's own plural rule and every entry.
    assert loaded.info().get("language") == language
    catalogue = read_catalogue(language)
    loaded_again = gettext.GNUTranslations(io.BytesIO(compiled(catalogue)))
    for message in catalogue:
        if not (message.id and isinstance(message.id, str) and message.string):
            continue
        if message.fuzzy:
            continue
        if message.context:
            got = loaded.pgettext(message.context, message.id)
            assert got == loaded_again.pgettext(message.context, message.id) == message.string
        else:
            assert loaded.gettext(message.id) == loaded_again.gettext(message.id) == message.string


def test_no_compiled_catalogue_is_kept() -> None:
    """A change of words touches the catalogue, never a binary made from it: no .mo in the
    source tree (git ignores them), and the package ships the .po files."""
    assert sorted((ROOT / "bot" / "locale").rglob("*.mo")) == []
    assert "*.mo" in (ROOT / ".gitignore").read_text().split()
    assert '"locale/*/LC_MESSAGES/*.po"' in (ROOT / "pyproject.toml").read_text()


def test_a_po_edited_after_start_is_read_by_the_next_process(tmp_path: Path) -> None:
    """No stale binary can shadow a catalogue: the words come from the .po itself."""
    from .catalogue import tiny_po

    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "kachuful.po"
    po.write_bytes(tiny_po("fr", {"Your lead.": "À toi d'entamer."}))
    assert i18n.compile_catalogue(po, "fr") == compiled(read_po_file(po, "fr"))
    po.write_bytes(tiny_po("fr", {"Your lead.": "Tu entames."}))
    again = gettext.GNUTranslations(io.BytesIO(i18n.compile_catalogue(po, "fr")))
    assert again.gettext("Your lead.") == "Tu entames."


def read_po_file(path: Path, language: str) -> Catalog:
    from babel.messages.pofile import read_po

    with path.open("rb") as file:
        return read_po(file, locale=language)


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_the_placeholders_of_their_source(language: str) -> None:
    for message in read_catalogue(language):
        if not message.id or not message.string:
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(placeholders(source) for source in sources))
        for string in strings:
            if string:
                # A plural form may leave the count out ("un pli"), nothing else.
                missing = wanted - placeholders(string) - {"n", "count"}
                extra = placeholders(string) - wanted
                assert not missing and not extra, (language, message.id, string)


def test_the_template_holds_every_message_of_the_code() -> None:
    from babel.messages.pofile import read_po

    from bot.i18n import LOCALE_DIR

    with open(LOCALE_DIR / "kachuful.pot", "rb") as pot:
        template = {
            (m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(pot) if m.id
        }
    missing = set(extracted()) - template
    assert not missing, (
        f"run pybabel extract (bot/locale/README.md): {sorted(missing, key=str)[:5]}"
    )


def test_a_string_added_in_english_only_is_found_untranslated(tmp_path: Path) -> None:
    """What test_catalogue_complete.py checks: a new message with no catalogue entry (here
    in a copy of the extraction's configuration) is reported, with where it is."""
    (tmp_path / "babel.cfg").write_text((ROOT / "babel.cfg").read_text())
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "new.py").write_text(
        "def words(tr):\n"
        "    return tr.gettext('A sentence that no catalogue has yet.')\n"
        "NOTE = N_('Your lead.')\n"
    )
    found = extracted(tmp_path)
    assert set(found) == {(None, "A sentence that no catalogue has yet."), (None, "Your lead.")}
    for language in TRANSLATED:
        missing = untranslated(language, found)
        assert any("A sentence that no catalogue has yet." in line for line in missing)
        assert any(line.startswith("bot/new.py:2") for line in missing)


def test_the_turn_clocks_description_names_its_bounds() -> None:
    """The description is a literal (to be extracted), so it must follow TURN_SECONDS."""
    from bot.registry import TURN_SECONDS, option

    low, high = TURN_SECONDS
    assert f"({low}–{high})" in option("turn_seconds").describe
