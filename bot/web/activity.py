"""Which table an Activity shows: the page inside Discord knows only its instance (the Embedded
App SDK's ``instanceId``); Discord tells the bot, by its own token, where that instance runs and
who is in it (``GET /applications/{app}/activity-instances/{instance}``). The table is the one
of that channel, by the rule every command uses (bot/places.py); only a user Discord lists in
the instance is answered, so a forged instance id or a stranger learns nothing.

    GET /api/activity/table?instance=<id>   → {"table": <id>}
                                              or {"table": null, "moved": "/p1"} (below)

With shards over several processes (bot/web/routes.py), an instance in a server another
process serves is answered with that process's path under the public address: the page asks
again there, and opens its socket there.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import discord
from aiohttp import web

from bot.i18n import language_of, translation
from bot.places import Place
from bot.table.open_tables import OpenTables

from .sessions import Identity

log = logging.getLogger(__name__)

# Discord's instance ids are short printable tokens ("i-1234-gc-5678-9012"); anything else is
# refused before it reaches Discord.
INSTANCE = re.compile(r"[A-Za-z0-9_:.-]{1,128}")
ROUTE = "/applications/{application_id}/activity-instances/{instance_id}"


class ActivityTables:
    """The ``/api/activity/table`` answer, for the web server (``WebServer.pages``)."""

    def __init__(
        self,
        client: discord.Client,
        tables: OpenTables,
        owner: Callable[[int], Awaitable[str | None]] | None = None,
    ) -> None:
        self.client = client
        self.tables = tables
        self.owner = owner  # the address of the process serving a server, if another one

    async def __call__(self, request: web.Request, who: Identity | None) -> web.StreamResponse:
        tr = translation(language_of(who.locale if who else None))
        if who is None:
            raise web.HTTPUnauthorized(text=tr.gettext("Open the table from Discord again."))
        instance_id = request.query.get("instance", "")
        if INSTANCE.fullmatch(instance_id) is None or self.client.application_id is None:
            raise web.HTTPBadRequest(text=tr.gettext("This Activity is not one of Kachuful's."))
        instance = await self._instance(instance_id, tr.gettext)
        if who.user_id not in _users(instance):
            raise web.HTTPForbidden(text=tr.gettext("Only players in this Activity can open it."))
        moved = await self._moved(instance)
        if moved is not None:
            return web.json_response({"table": None, "moved": moved})
        place = self._place(instance)
        session = self.tables.session_at(place)
        if session is None:
            text = tr.gettext("No table is open in this channel: start one with /kachuful start.")
            return web.json_response({"table": None, "text": text})
        return web.json_response({"table": session.row.id})

    async def _instance(self, instance_id: str, gettext: Any) -> dict[str, Any]:
        route = discord.http.Route(
            "GET", ROUTE, application_id=self.client.application_id, instance_id=instance_id
        )
        try:
            found = await self.client.http.request(route)
        except discord.NotFound:
            raise web.HTTPNotFound(text=gettext("This Activity has ended.")) from None
        except discord.HTTPException as error:
            log.warning("Discord did not describe an Activity instance: %s", error.status)
            raise web.HTTPBadGateway(text=gettext("Discord did not answer: try again.")) from None
        return found if isinstance(found, dict) else {}

    async def _moved(self, instance: dict[str, Any]) -> str | None:
        """The path of the process that serves the instance's server, if it is another one."""
        location = instance.get("location")
        raw = location.get("guild_id") if isinstance(location, dict) else None
        if self.owner is None or not isinstance(raw, (str, int)) or not str(raw).isdigit():
            return None
        owner = await self.owner(int(raw))
        return urlsplit(owner).path.rstrip("/") if owner is not None else None

    def _place(self, instance: dict[str, Any]) -> Place | None:
        """The channel the instance runs in, and its parent when it is a thread."""
        location = instance.get("location")
        raw = location.get("channel_id") if isinstance(location, dict) else None
        if not isinstance(raw, (str, int)) or not str(raw).isdigit():
            return None
        channel = self.client.get_channel(int(raw))
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return Place(int(raw), parent)


def _users(instance: dict[str, Any]) -> set[int]:
    users = instance.get("users")
    if not isinstance(users, list):
        return set()
    return {int(user) for user in users if isinstance(user, (str, int)) and str(user).isdigit()}
