"""The README's two invite links grant exactly what the bot's own lists say each kind of server
needs: the table link what a casual table needs (bot/table/permissions.py), the club link that
and what events, scheduled events, event channels and the champions' role add
(bot/club/permissions.py). Each integer is computed with discord.py's ``Permissions``, so a
permission added to a list and not to the README fails here."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

from bot.club.permissions import CLUB_LINK
from bot.table.permissions import TABLE, TABLE_IN_THREAD, TABLE_LINK, THREADS

README = Path(__file__).resolve().parents[2] / "README.md"


def link(name: str, text: str) -> tuple[int, int]:
    """(the integer the README gives in bold, the one in its invite URL) for ``name``."""
    found = re.search(
        rf"\*\*{name}\*\*.*?\*\*(\d+)\*\*.*?oauth2/authorize\?\S*permissions=(\d+)", text, re.S
    )
    assert found, f"no {name} with its integer and invite URL in README.md"
    return int(found[1]), int(found[2])


def permissions(names: tuple[str, ...]) -> int:
    return discord.Permissions(**dict.fromkeys(names, True)).value


@pytest.mark.parametrize(("name", "names"), [("Table link", TABLE_LINK), ("Club link", CLUB_LINK)])
def test_each_readme_link_grants_what_the_bot_checks(name: str, names: tuple[str, ...]) -> None:
    shown, in_url = link(name, README.read_text(encoding="utf-8"))
    assert shown == in_url == permissions(names)


def test_the_links_hold_every_list_the_checks_use() -> None:
    assert set(TABLE) | set(TABLE_IN_THREAD) | set(THREADS) <= set(TABLE_LINK)
    club = discord.Permissions(permissions(CLUB_LINK))
    # Discord's rule since 2026-02-23: Create Events creates a scheduled event.
    assert club.create_events and not club.manage_events
    assert club.manage_roles and club.manage_channels
    assert permissions(TABLE_LINK) & ~club.value == 0


def test_a_drifted_readme_is_caught() -> None:
    text = README.read_text(encoding="utf-8").replace(
        str(permissions(CLUB_LINK)), str(permissions(CLUB_LINK) | 8)
    )
    assert link("Club link", text) != (permissions(CLUB_LINK),) * 2
