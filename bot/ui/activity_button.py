"""**Open the table** as an Activity (``KACHUFUL_ACTIVITY``): the click is answered with
Discord's launch-activity response, and Discord opens the application's Activity in the
channel, where the page finds the table itself (bot/web/activity.py). Where Discord will not
launch it (Activities not enabled for the application, a client or channel that cannot, an
unverified application outside its testers), the player gets the table's address instead,
privately: the click always leads to the table."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.i18n import reader
from bot.render.open_table import TableLink, activity_refused, web_table_off
from bot.web.links import table_link

from .custom_ids import NUMBER, custom_id, number
from .payloads import build_view

log = logging.getLogger(__name__)


class ActivityButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"kf:act:(?P<table>{NUMBER})"
):
    def __init__(self, table: int, **button: Any) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("activity", table)), **button))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ActivityButton:
        return cls(number(match["table"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        settings = getattr(interaction.client, "settings", None)
        if getattr(settings, "activity", False):
            try:
                await interaction.response.launch_activity()
                return
            except discord.HTTPException as refused:
                # Not consumed: the interaction can still be answered, with the address.
                log.info("Discord did not launch the Activity: %s", refused.status)
        await _answer_with_link(interaction, table_link(settings, self.table))


async def _answer_with_link(interaction: discord.Interaction[Any], link: TableLink | None) -> None:
    tr = reader(interaction)
    if link is None:
        await interaction.response.send_message(web_table_off(tr), ephemeral=True)
        return
    spec = activity_refused(link, tr)
    view = build_view(spec.buttons)
    if view is None:
        await interaction.response.send_message(spec.content, ephemeral=True)
    else:
        await interaction.response.send_message(spec.content, view=view, ephemeral=True)
