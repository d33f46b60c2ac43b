"""Buttons that keep working after a restart: DynamicItems whose custom_id carries the table
id and, for actions, the move counter the button was drawn at.

Each callback only parses its custom_id and hands over to the table code (``bot.table``): a
move becomes a plain request (``bot.table.requests``) sent down the change path through the
Discord responder, which takes the table's lock, applies, commits, releases, and only then
talks to Discord.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.i18n import reader
from bot.store.failures import is_expected
from bot.table.not_saved import not_saved
from bot.table.requests import (
    Back,
    Bid,
    Choice,
    Choose,
    Claim,
    Look,
    Move,
    PlayCard,
    SetChoice,
    TakeBack,
)

from .activity_button import ActivityButton
from .custom_ids import NUMBER, custom_id, number
from .payloads import tell

if TYPE_CHECKING:
    from bot.table.tables import Tables


log = logging.getLogger(__name__)

# DynamicItems of feature cogs (the leaderboard's and history's page buttons), added with
# add_feature_items when their cog loads.
_FEATURE_ITEMS: set[type[discord.ui.DynamicItem[Any]]] = set()


def add_feature_items(client: discord.Client, *items: type[discord.ui.DynamicItem[Any]]) -> None:
    """Register a feature cog's DynamicItems: discord.py dispatches their clicks, and
    answer_unknown_click leaves them to it."""
    client.add_dynamic_items(*items)
    _FEATURE_ITEMS.update(items)


def remove_feature_items(client: discord.Client, *items: type[discord.ui.DynamicItem[Any]]) -> None:
    client.remove_dynamic_items(*items)
    _FEATURE_ITEMS.difference_update(items)


def matches_any(custom_id: str) -> bool:
    """Whether a button of this bot answers ``custom_id`` (every one is a DynamicItem)."""
    return any(
        item.__discord_ui_compiled_template__.fullmatch(custom_id)
        for item in (*DYNAMIC_ITEMS, *_FEATURE_ITEMS)
    )


async def answer_unknown_click(interaction: discord.Interaction[Any]) -> None:
    """Answer a click that no button of this bot handles (a forged custom_id, a button of an
    older version of the bot) instead of leaving "This interaction failed"."""
    if interaction.type is not discord.InteractionType.component:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    if (
        isinstance(custom_id, str)
        and matches_any(custom_id)
        and _on_message(interaction, custom_id)
    ):
        return
    with contextlib.suppress(discord.HTTPException):
        if not interaction.response.is_done():
            await interaction.response.send_message(
                render.refusal("dead_button", reader(interaction)), ephemeral=True
            )


def _on_message(interaction: discord.Interaction[Any], custom_id: str) -> bool:
    """Whether the clicked message holds a button with this custom_id: discord.py drops, with
    no answer, a click whose custom_id its message does not hold."""
    message = interaction.message
    if message is None:
        return False
    return any(
        getattr(child, "custom_id", None) == custom_id
        for row in message.components
        for child in getattr(row, "children", ())
    )


def _tables(interaction: discord.Interaction[Any]) -> Tables:
    return interaction.client.tables  # type: ignore[no-any-return]


async def _act(
    interaction: discord.Interaction[Any], table: int, move: Move, version: int | None = None
) -> None:
    """A move clicked: a plain request down the change path (the responder answers it)."""
    await _tables(interaction).responder.act(interaction, table, move, version)


async def _guarded(
    item: discord.ui.Item[Any], interaction: discord.Interaction[Any], action: Awaitable[None]
) -> None:
    """Run a click; if it fails unexpectedly, tell the player privately (rather than leaving
    Discord's "This interaction failed"), then let discord.py log the error.

    A storage failure (the disk is full...) is told in plain words, and its incident is
    logged by the store: no traceback per click. Once the click was answered, a storage
    failure can only come from bookkeeping after the answer (every change is saved before it
    is answered): the answer stands, with no second message."""
    try:
        await action
    except Exception as error:
        tr = reader(interaction)
        text = not_saved(error, tr)
        if text is None:
            await tell(interaction, render.notice("click_failed", tr))
            raise
        if not is_expected(error):
            log.warning("a click failed: %s: %s", type(error).__name__, error)
        if not _answered(interaction):
            await tell(interaction, text)
    finally:
        _unlink(item, interaction)


def _answered(interaction: discord.Interaction[Any]) -> bool:
    """Whether the click got its answer (not only a deferral, still waiting for one)."""
    kind = interaction.response.type
    return kind is not None and kind not in _DEFERRED


_DEFERRED = (
    discord.InteractionResponseType.deferred_channel_message,
    discord.InteractionResponseType.deferred_message_update,
)


def _unlink(item: discord.ui.Item[Any], interaction: discord.Interaction[Any]) -> None:
    """Undo the reference cycles a click leaves, so that its objects (the interaction, the
    clicked message with every button, discord.py's view of it: about a hundred) are freed
    as soon as the click is done instead of piling up for a full garbage collection, which
    pauses every table at once."""
    # discord.py rebuilt the clicked message as a View to hand us this item; nothing uses it
    # afterwards. Emptying it undoes the view <-> item cycles.
    view = item.view
    if view is not None:
        view.clear_items()
    # Interaction <-> InteractionResponse (cached once the bot answers). The bot only edits
    # its answer later (edit_original_response), which does not use the response object.
    with contextlib.suppress(AttributeError):
        del interaction._cs_response  # type: ignore[attr-defined]


def _button(action: tuple[str | int | bool, ...], **kwargs: Any) -> discord.ui.Button[Any]:
    return discord.ui.Button(custom_id=custom_id(action), **kwargs)


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:l:(?P<act>join|leave|cpu|start):(?P<table>{NUMBER}):(?P<ver>{NUMBER})",
):
    """Join · Leave · Add computer player · Start, on the public lobby message."""

    def __init__(self, act: str, table: int, version: int, **button: Any) -> None:
        super().__init__(_button((act, table, version), **button))
        self.act, self.table, self.version = act, table, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyButton:
        return cls(match["act"], number(match["table"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).lobby.click(interaction, self.table, self.version, self.act),
        )


class LevelButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:c:(?P<table>{NUMBER}):(?P<ver>{NUMBER}):(?P<level>[a-z]{{1,16}})",
):
    """A computer level offered after "Add computer player" (a private message)."""

    def __init__(self, table: int, version: int, level: str, **button: Any) -> None:
        super().__init__(_button(("level", table, version, level), **button))
        self.table, self.version, self.level = table, version, level

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LevelButton:
        return cls(number(match["table"]), number(match["ver"]), match["level"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).lobby.add_computer(
                interaction, self.table, self.version, self.level
            ),
        )


class LengthButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:n:(?P<table>{NUMBER}):(?P<length>[a-z]{{1,16}})",
):
    """Quick game · Classic game · Full game on the lobby: the host chooses the length. The
    name is checked by the lobby (a forged one is refused); no move counter, since a length
    means the same whatever the lobby showed."""

    def __init__(self, table: int, length: str, **button: Any) -> None:
        super().__init__(_button(("length", table, length), **button))
        self.table, self.length = table, length

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LengthButton:
        return cls(number(match["table"]), match["length"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).lobby.choose_length(interaction, self.table, self.length),
        )


class AgainButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"kf:again:(?P<table>{NUMBER})"
):
    """ "Play again" on the final standings: a new lobby with the same options and players."""

    def __init__(self, table: int, **button: Any) -> None:
        super().__init__(_button(("again", table), **button))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> AgainButton:
        return cls(number(match["table"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self, interaction, _tables(interaction).lobby.play_again(interaction, self.table)
        )


class HandButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"kf:h:(?P<table>{NUMBER})"
):
    """ "Your hand" on public messages: answers with a new private hand message."""

    def __init__(self, table: int, **button: Any) -> None:
        super().__init__(_button(("hand", table), **button))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HandButton:
        return cls(number(match["table"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).play.show_hand(interaction, self.table, edit=False),
        )


class RefreshButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"kf:r:(?P<table>{NUMBER})"
):
    """Refresh on the private hand message: redraws it in place."""

    def __init__(self, table: int, **button: Any) -> None:
        super().__init__(_button(("refresh", table), **button))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RefreshButton:
        return cls(number(match["table"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).play.show_hand(interaction, self.table, edit=True),
        )


class BidButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:b:(?P<table>{NUMBER}):(?P<ver>{NUMBER}):(?P<n>{NUMBER}):(?P<blind>[01])",
):
    def __init__(self, table: int, version: int, n: int, blind: bool, **button: Any) -> None:
        super().__init__(_button(("bid", table, version, n, blind), **button))
        self.table, self.version, self.n, self.blind = table, version, n, blind

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BidButton:
        return cls(
            number(match["table"]), number(match["ver"]), number(match["n"]), match["blind"] == "1"
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _act(interaction, self.table, Bid(self.n, self.blind), self.version),
        )


class PlayButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:p:(?P<table>{NUMBER}):(?P<ver>{NUMBER}):(?P<card>{NUMBER})",
):
    """A card of the player's own hand: only ever on that player's private message."""

    def __init__(self, table: int, version: int, card: int, **button: Any) -> None:
        super().__init__(_button(("play", table, version, card), **button))
        self.table, self.version, self.card = table, version, card

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PlayButton:
        return cls(number(match["table"]), number(match["ver"]), number(match["card"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _act(interaction, self.table, PlayCard(self.card), self.version),
        )


class UnseenButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:u:(?P<table>{NUMBER}):(?P<ver>{NUMBER})",
):
    """Forehead deal: play your one card without seeing it."""

    def __init__(self, table: int, version: int, **button: Any) -> None:
        super().__init__(_button(("unseen", table, version), **button))
        self.table, self.version = table, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> UnseenButton:
        return cls(number(match["table"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(
            self,
            interaction,
            _act(interaction, self.table, PlayCard(None), self.version),
        )


class LookButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:k:(?P<table>{NUMBER}):(?P<ver>{NUMBER})",
):
    """Blind bids: look at your hand (after which you can no longer bid blind)."""

    def __init__(self, table: int, version: int, **button: Any) -> None:
        super().__init__(_button(("look", table, version), **button))
        self.table, self.version = table, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LookButton:
        return cls(number(match["table"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(self, interaction, _act(interaction, self.table, Look(), self.version))


class BackButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:back:(?P<table>{NUMBER}):(?P<seat>{NUMBER})",
):
    """ "I'm back": the owner of an away seat takes it back from the computer."""

    def __init__(self, table: int, seat: int, **button: Any) -> None:
        super().__init__(_button(("back", table, seat), **button))
        self.table, self.seat = table, seat

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BackButton:
        return cls(number(match["table"]), number(match["seat"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(self, interaction, _act(interaction, self.table, Back(self.seat)))


class ClaimButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:m:(?P<table>{NUMBER}):(?P<ver>{NUMBER})",
):
    """ "Claim the rest": the seat to play says it takes every remaining trick of the deal."""

    def __init__(self, table: int, version: int, **button: Any) -> None:
        super().__init__(_button(("claim", table, version), **button))
        self.table, self.version = table, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ClaimButton:
        return cls(number(match["table"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(self, interaction, _act(interaction, self.table, Claim(), self.version))


class ChoiceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:s:(?P<table>{NUMBER}):(?P<choice>single_card|confirm_cards):(?P<on>[01])",
):
    """A player's choice kept on their seat (bot/table/choices.py); ``on``: what the click
    sets, so a second click of the same button changes nothing."""

    def __init__(self, table: int, choice: Choice, on: bool, **button: Any) -> None:
        super().__init__(_button(("choice", table, choice, on), **button))
        self.table, self.choice, self.on = table, choice, on

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChoiceButton:
        choice: Choice = "single_card" if match["choice"] == "single_card" else "confirm_cards"
        return cls(number(match["table"]), choice, match["on"] == "1")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        setting = _act(interaction, self.table, SetChoice(self.choice, self.on))
        await _guarded(self, interaction, setting)


class ChooseButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:q:(?P<table>{NUMBER}):(?P<ver>{NUMBER}):(?P<card>{NUMBER})",
):
    """A card of a player who confirms each card: chosen, not yet played."""

    def __init__(self, table: int, version: int, card: int, **button: Any) -> None:
        super().__init__(_button(("choose", table, version, card), **button))
        self.table, self.version, self.card = table, version, card

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChooseButton:
        return cls(number(match["table"]), number(match["ver"]), number(match["card"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        choosing = _act(interaction, self.table, Choose(self.card), self.version)
        await _guarded(self, interaction, choosing)


class TakeBackButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:z:(?P<table>{NUMBER}):(?P<ver>{NUMBER})",
):
    """Take back the player's own last bid or card, at the move counter it left."""

    def __init__(self, table: int, version: int, **button: Any) -> None:
        super().__init__(_button(("undo", table, version), **button))
        self.table, self.version = table, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TakeBackButton:
        return cls(number(match["table"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _guarded(self, interaction, _act(interaction, self.table, TakeBack(), self.version))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ActivityButton,
    LobbyButton,
    LevelButton,
    LengthButton,
    AgainButton,
    HandButton,
    RefreshButton,
    BidButton,
    PlayButton,
    UnseenButton,
    LookButton,
    BackButton,
    ClaimButton,
    ChoiceButton,
    ChooseButton,
    TakeBackButton,
)


def register(client: discord.Client) -> None:
    """Make every button ever posted answerable again (call from setup_hook)."""
    client.add_dynamic_items(*DYNAMIC_ITEMS)
