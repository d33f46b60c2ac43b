"""Read-only commands about the table here (bot/places.py): /kachuful score and /kachuful
rules. They never take a table's lock."""

from __future__ import annotations

import io
import logging
from typing import Any

import discord

from bot import render
from bot.i18n import reader
from bot.places import place_of
from bot.render.open_table import web_table_answer, web_table_off
from bot.render.table import CHART_FILE
from bot.results import chart_data
from bot.web.links import table_link

from .open_tables import OpenTables
from .responder import Responder

log = logging.getLogger(__name__)


class ReadOnly:
    def __init__(self, tables: OpenTables, responder: Responder) -> None:
        self.tables = tables
        self.responder = responder

    async def score(self, interaction: discord.Interaction[Any]) -> None:
        place = place_of(interaction)
        session = self.tables.session_at(place)
        if session is None:
            await self.responder.refuse(interaction, self.tables.missing(place=place))
            return
        if session.game is None:
            await self.responder.refuse(interaction, "not_running")
            return
        spec = render.scoreboard(session.row, session.game, reader(interaction))
        if not session.game.deal_scores:
            await self.responder.reply(interaction, spec)
            return
        # With the chart so far, drawn off the event loop (from a copy taken now).
        # matplotlib, only when a chart is drawn
        from bot.render.chart import chart_labels, score_chart

        names, cumulative = chart_data(session.row, session.game)
        await self.responder.thinking(interaction)
        try:
            png = await score_chart(names, cumulative, labels=chart_labels(reader(interaction)))
        except Exception as error:
            log.warning("no score chart (%s)", type(error).__name__)
            await self.responder.reply(interaction, spec)
            return
        embed = spec.embeds[0].copy().set_image(url=f"attachment://{CHART_FILE}")
        file = discord.File(io.BytesIO(png), filename=CHART_FILE)
        await self.responder.answer_with_file(interaction, embed, file)

    async def web_table(self, interaction: discord.Interaction[Any]) -> None:
        """/kachuful table: the link to the web table of the game here (the web table on)."""
        place = place_of(interaction)
        session = self.tables.session_at(place)
        if session is None:
            await self.responder.refuse(interaction, self.tables.missing(place=place))
            return
        link = table_link(self.responder.answers.timing.settings, session.row.id)
        tr = reader(interaction)
        if link is None:  # the command is not offered then; an old client may still send it
            await self.responder.say(interaction, web_table_off(tr))
            return
        spec = web_table_answer(link, tr)
        await self.responder.reply(interaction, spec)

    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        session = self.tables.session_at(place_of(interaction))
        if session is not None and session.game is not None:
            spec = render.game_rules(session.game, reader(interaction))
        elif session is not None:
            spec = render.lobby_rules(session.row.options, reader(interaction))
        else:
            spec = render.general_rules(reader(interaction))
        await self.responder.reply(interaction, spec)
