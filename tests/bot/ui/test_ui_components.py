"""The buttons the bot sends are exactly what discord.py would send for its DynamicItems, and
every custom_id is answered by the DynamicItem it belongs to."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.render.specs import ButtonSpec
from bot.ui.custom_ids import custom_id
from bot.ui.items import (
    DYNAMIC_ITEMS,
    BackButton,
    BidButton,
    HandButton,
    LobbyButton,
    LookButton,
    PlayButton,
    RefreshButton,
    UnseenButton,
)
from bot.ui.payloads import build_view

SPECS = (
    ButtonSpec(("join", 7, 3), "Join", style="success"),
    ButtonSpec(("leave", 7, 3), "Leave"),
    ButtonSpec(("cpu", 7, 3), "Add computer player", row=1),
    ButtonSpec(("start", 7, 3), "Start (host)", style="primary", disabled=True, row=1),
    ButtonSpec(("hand", 7), "Your hand", style="primary", emoji="🂠"),
    ButtonSpec(("refresh", 7), "Refresh", row=4, emoji="🔄"),
    ButtonSpec(("bid", 7, 41, 0, False), "0", style="primary", row=1),
    ButtonSpec(("bid", 7, 41, 3, True), "3 blind", style="danger", disabled=True, row=1),
    ButtonSpec(("play", 7, 41, 51), "K♣", row=2),
    ButtonSpec(("play", 7, 41, 0), "2♠", disabled=True, row=3),
    ButtonSpec(("unseen", 7, 41), "Play it unseen", row=3),
    ButtonSpec(("look", 7, 41), "Look", row=0),
    ButtonSpec(("back", 7, 2), "I'm back", style="success"),
)


def reference_item(spec: ButtonSpec) -> discord.ui.Item[Any]:
    """The DynamicItem a View would hold for the spec (discord.py's own serialisation)."""
    kind, *args = spec.action
    options: dict[str, Any] = {
        "label": spec.label,
        "style": getattr(discord.ButtonStyle, spec.style),
        "disabled": spec.disabled,
        "row": spec.row,
        "emoji": spec.emoji,
    }
    if kind in ("join", "leave", "cpu", "start"):
        return LobbyButton(str(kind), int(args[0]), int(args[1]), **options)
    classes: dict[str, Any] = {
        "hand": HandButton,
        "refresh": RefreshButton,
        "bid": BidButton,
        "play": PlayButton,
        "unseen": UnseenButton,
        "look": LookButton,
        "back": BackButton,
    }
    return classes[str(kind)](*args, **options)  # type: ignore[no-any-return]


def reference_components(specs: tuple[ButtonSpec, ...]) -> list[dict[str, Any]]:
    view = discord.ui.View(timeout=None)
    for spec in specs:
        view.add_item(reference_item(spec))
    return view.to_components()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: ":".join(map(str, s.action)))
def test_one_button_is_what_discord_py_sends(spec: ButtonSpec) -> None:
    view = build_view((spec,))
    assert view is not None
    assert view.to_components() == reference_components((spec,))


async def test_rows_are_laid_out_as_discord_py_does() -> None:
    view = build_view(SPECS)
    assert view is not None
    assert view.to_components() == reference_components(SPECS)
    assert [row["type"] for row in view.to_components()] == [1, 1, 1, 1, 1]


@pytest.mark.parametrize(
    "specs",
    [
        tuple(ButtonSpec(("play", 7, 1, card), str(card), row=0) for card in range(6)),
        tuple(ButtonSpec(("play", 7, 1, card), str(card), row=card) for card in range(6)),
    ],
    ids=["six in a row", "a sixth row"],
)
def test_more_than_discord_allows_is_refused(specs: tuple[ButtonSpec, ...]) -> None:
    with pytest.raises(ValueError, match="Discord allows"):
        build_view(specs)


def test_no_buttons_no_view() -> None:
    assert build_view(()) is None


def test_a_sent_view_is_never_kept_for_dispatch() -> None:
    # Clicks are answered by the DynamicItems registered at start-up, not by a stored view.
    view = build_view(SPECS[:1])
    assert view is not None
    assert view.is_finished() and not view.is_dispatchable()
    assert not view.has_components_v2()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: ":".join(map(str, s.action)))
def test_each_custom_id_is_answered_by_exactly_one_dynamic_item(spec: ButtonSpec) -> None:
    text = custom_id(spec.action)
    assert len(text) <= 100  # Discord's limit for a custom_id
    owners = [
        item
        for item in DYNAMIC_ITEMS
        if item.__discord_ui_compiled_template__.fullmatch(text)  # type: ignore[attr-defined]
    ]
    assert owners == [type(reference_item(spec))]


def test_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown button action"):
        custom_id(("fly", 1))


@pytest.mark.parametrize(
    ("language", "previous", "following"),
    [
        ("en", "Previous", "Next"),
        ("fr", "Précédent", "Suivant"),
        ("it", "Indietro", "Avanti"),
        ("hi", "पिछला", "अगला"),
    ],
)
def test_page_buttons_speak_the_reply_s_language(
    language: str, previous: str, following: str
) -> None:
    from bot.i18n import translation
    from bot.ui.payloads import page_buttons

    view = page_buttons(
        1, 3, lambda direction, page: f"kf:x:{direction}:{page}", translation(language)
    )
    assert view is not None
    [row] = view.to_components()
    assert [b["label"] for b in row["components"]] == [previous, following]
