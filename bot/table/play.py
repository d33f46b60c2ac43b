"""A player's hand shown on request ("Your hand", Refresh, /kachuful hand) and /kachuful stop.
A seat's moves (bid, play, look, claim, take back...) are plain requests of the change path
(``requests.py``, ``moves.py``), which the buttons send through the responder."""

from __future__ import annotations

from typing import Any

import discord

from bot import render
from bot.i18n import language_of, reader, translation
from bot.places import place_of
from bot.render.specs import MessageSpec
from bot.store.protocol import GameStore
from bot.web.links import table_link

from .answers import hand_spec
from .open_tables import OpenTables
from .outcome import Reply, Step, refusal
from .responder import Responder
from .session import TableSession


class Play:
    def __init__(self, tables: OpenTables, responder: Responder, store: GameStore) -> None:
        self.tables = tables
        self.responder = responder
        self.store = store

    async def show_hand(
        self, interaction: discord.Interaction[Any], table: int | None, *, edit: bool
    ) -> None:
        """ "Your hand" (a new private message), Refresh (in place), or /kachuful hand."""
        tables, responder = self.tables, self.responder
        place = place_of(interaction)
        session = (
            tables.find(table, interaction.channel_id)
            if table is not None
            else tables.session_at(place)
        )
        if session is None:
            await responder.refuse(interaction, tables.missing(table=table, place=place))
            return
        if session.game is None:
            await responder.refuse(interaction, "not_running")
            return
        user_id = interaction.user.id
        url = table_link(responder.answers.timing.settings, session.row.id)
        spec = hand_spec(session, user_id, reader(interaction), table_link=url)
        if spec is None:
            await responder.refuse(interaction, "not_seated")
            return
        await responder.show(session, interaction, spec, edit=edit, user_id=user_id)

    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """/kachuful stop: the host or someone with Manage Server; no leaderboard change."""
        tables = self.tables
        user = interaction.user
        manager = isinstance(user, discord.Member) and user.guild_permissions.manage_guild
        session = tables.session_at(place_of(interaction))
        if session is None:
            await self._stop_damaged(interaction, manager=manager)
            return
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            row = session.row
            if user.id != row.host_id and not manager:
                return refusal("not_host_or_manager", tr)
            if row.status not in ("lobby", "running"):
                return refusal("not_running", tr)
            row.status = "stopped"
            row.ended = f"stop:{user.id}"
            return Step(reply=Reply(render.notice("you_stopped", tr)), commit=True)

        await self.responder.change(session, interaction, step)

    async def _stop_damaged(self, interaction: discord.Interaction[Any], *, manager: bool) -> None:
        """/kachuful stop in a channel whose open game could not be restored: close it in the
        store without reading it, so that the channel is free again."""
        tables = self.tables
        ref = tables.damaged_at(place_of(interaction))
        if ref is None:
            await self.responder.refuse(interaction, "no_game_here")
            return
        if interaction.user.id != ref.host_id and not manager:
            await self.responder.refuse(interaction, "not_host_or_manager")
            return
        await self.store.stop_open_game(ref.id)
        tables.damaged.pop(ref.id, None)
        # A public notice in the channel: the channel's language (the table is unreadable).
        tr = translation(language_of(interaction.guild_locale))
        text = render.notice("damaged_stopped", tr, by=f"<@{interaction.user.id}>")
        await self.responder.post(interaction, MessageSpec(content=text))


__all__ = ["Play"]
