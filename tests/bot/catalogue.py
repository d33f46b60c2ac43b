"""The message catalogues as the tests read them: Babel's extraction of the code (as
``pybabel extract -F babel.cfg -k N_ -k locale_str`` does it) and each language's .po file."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, SOURCE

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "Nn_": (1, 2), "locale_str": None}
TRANSLATED = tuple(language for language in LANGUAGES if language != SOURCE)

MsgId = str | tuple[str, str]  # a message, or a plural's (singular, plural)
MsgKey = tuple[str | None, str]  # (context, message or a plural's singular): a catalogue's key


def extracted(root: Path = ROOT) -> dict[MsgKey, str]:
    """Every message the code marks for translation, by (context, message), with where it
    was first seen."""
    with open(root / "babel.cfg", encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[MsgKey, str] = {}
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(root), method_map, options_map, keywords=KEYWORDS
    ):
        key = (context, message if isinstance(message, str) else message[0])
        found.setdefault(key, f"{filename}:{lineno}")
    return found


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalogue(language: str) -> Catalog:
    with open(po_path(language), "rb") as po:
        return read_po(po, locale=language)


def compiled(catalogue: Catalog) -> bytes:
    """The .mo file ``pybabel compile`` writes for ``catalogue`` (fuzzy entries left out)."""
    out = io.BytesIO()
    write_mo(out, catalogue, use_fuzzy=False)
    return out.getvalue()


def untranslated(language: str, found: dict[MsgKey, str]) -> list[str]:
    """The messages of ``found`` that ``language``'s catalogue lacks, leaves empty or marks
    fuzzy (stale), each with where the code has it."""
    catalogue = read_catalogue(language)
    missing = []
    for (context, msgid), where in found.items():
        message = catalogue.get(msgid, context=context)
        strings = () if message is None else message.string
        strings = strings if isinstance(strings, tuple) else (strings,)
        if message is None or message.fuzzy or not strings or not all(strings):
            missing.append(f"{where}: {msgid!r}" + (f" ({context})" if context else ""))
    return missing


def tiny(language: str, messages: dict[MsgId, str | tuple[str, ...]]) -> bytes:
    """A compiled catalogue of a few messages, for tests that must not wait for translators."""
    catalogue = Catalog(locale=language, domain=DOMAIN)
    for key, string in messages.items():
        catalogue.add(key, string)
    out = io.BytesIO()
    write_mo(out, catalogue)
    return out.getvalue()


def tiny_po(language: str, messages: dict[MsgId, str | tuple[str, ...]]) -> bytes:
    """A catalogue of a few messages as a .po file, as the bot finds its catalogues."""
    from babel.messages.pofile import write_po

    catalogue = Catalog(locale=language, domain=DOMAIN)
    for key, string in messages.items():
        catalogue.add(key, string)
    out = io.BytesIO()
    write_po(out, catalogue)
    return out.getvalue()


def tiny_translations(language: str, messages: dict[MsgId, str | tuple[str, ...]]) -> Any:
    import gettext

    return gettext.GNUTranslations(io.BytesIO(tiny(language, messages)))
