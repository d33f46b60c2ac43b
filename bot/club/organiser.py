"""What an organiser and a player may do to an event (docs/events.md), each answered
privately in the reader's language; a refusal changes nothing.

Changes are written with the event's version (a change that finds the event moved on is
tried again from what is stored), then the conductor is poked to act on them: starting an
event only marks it running, and the conductor seats the round, so a start clicked twice
seats it once.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import discord

from bot.i18n import Translations, reader
from bot.model import TableOptions
from bot.places import place_of
from bot.render import club as words
from bot.render.words import missing_permissions, plain
from bot.store.failures import StoreError
from bot.store.protocol import GameStore
from bot.table import permissions as table_permissions
from bot.table.outcome import Step
from bot.table.seats import leave_running
from bot.table.session import TableSession
from kachuful_core.club import FORMATS, MIN_EVENT_PLAYERS
from kachuful_core.players import LEVELS

from . import permissions
from .conductor import Conductor
from .model import ALL_EVENT_STATUSES, OPEN_EVENT_STATUSES, EntrantStatus, Event

log = logging.getLogger(__name__)

ROLE_KEY = "event_role:{guild}"
_STAMP = re.compile(r"<t:([0-9]{1,12})(:[a-zA-Z])?>")
SCHEDULED_LENGTH = timedelta(hours=2)


class Refused(Exception):
    """An answer for the reader instead of a change (the words are already theirs)."""


@dataclass(frozen=True)
class Plan:
    """A new event as the organiser typed it, checked."""

    name: str
    format: str
    rounds: int
    level: str
    table_size: int
    options: TableOptions
    starts_at: datetime | None


def parse_start(text: str | None, now: datetime) -> datetime | None:
    """A start time typed as "YYYY-MM-DD HH:MM" (UTC) or a Discord timestamp ``<t:…>``;
    ValueError if it is neither or not in the future."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    stamp = _STAMP.fullmatch(text)
    if stamp:
        moment = datetime.fromtimestamp(int(stamp.group(1)), UTC)
    else:
        moment = datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    if moment <= now:
        raise ValueError("in the past")
    return moment


class Organiser:
    def __init__(
        self, store: GameStore, conductor: Conductor, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.conductor = conductor
        self.clock = clock

    # ---- who may organise

    async def may_organise(
        self, interaction: discord.Interaction[Any], event: Event | None
    ) -> bool:
        user = interaction.user
        if event is not None and user.id == event.organiser_id:
            return True
        if not isinstance(user, discord.Member):
            return False
        if user.guild_permissions.manage_guild:
            return True
        role = await self.store.bot_state(ROLE_KEY.format(guild=interaction.guild_id))
        return role is not None and any(str(r.id) == role for r in user.roles)

    async def set_role(
        self, interaction: discord.Interaction[Any], role: discord.Role | None
    ) -> str:
        tr = reader(interaction)
        user = interaction.user
        if not (isinstance(user, discord.Member) and user.guild_permissions.manage_guild):
            raise Refused(words.refusal("not_organiser", tr))
        await self.store.set_bot_state(
            ROLE_KEY.format(guild=interaction.guild_id), "" if role is None else str(role.id)
        )
        if role is None:
            return words.notice("role_cleared", tr)
        return words.notice("role_set", tr, role=role.mention)

    # ---- finding the event a command is about

    async def find(self, interaction: discord.Interaction[Any], event_id: int | None) -> Event:
        """The event named, in this server; without a number, the newest open event of this
        channel (of a thread's channel too: its tables' threads are in it, bot/places.py)."""
        tr = reader(interaction)
        club = self.store.club
        place = place_of(interaction)
        here = () if place is None else (place.id, place.parent_id)
        if event_id is None:
            # The newest open event of the channel, else its newest event (its standings).
            for statuses in (OPEN_EVENT_STATUSES, ALL_EVENT_STATUSES):
                found = [
                    e
                    for e in await club.events_in(interaction.guild_id or 0, statuses)
                    if e.channel_id in here
                ]
                if found:
                    return found[0]
            raise Refused(words.refusal("no_event", tr))
        event = await club.load_event(event_id) if 0 < event_id < 2**63 else None
        if event is None or event.guild_id != interaction.guild_id:
            raise Refused(words.refusal("no_event", tr))
        return event

    # ---- the organiser's commands

    async def open(self, interaction: discord.Interaction[Any], plan: Plan) -> str:
        tr = reader(interaction)
        if not await self.may_organise(interaction, None):
            raise Refused(words.refusal("not_organiser", tr))
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise Refused(words.refusal("thread_channel", tr))
        # Told now, while the organiser is here: the event's message and its tables' posts
        # need the table's permissions, its tables threads (or a channel each).
        have = interaction.app_permissions
        lacking = table_permissions.lacking(have, thread=False)
        if lacking:
            raise Refused("⚠️ " + missing_permissions(lacking, tr))
        lacking = permissions.event_threads_lacking(have)
        if lacking:
            raise Refused(words.no_threads(lacking, tr))
        event = await self.store.club.open_event(
            guild_id=channel.guild.id,
            channel_id=channel.id,
            organiser_id=interaction.user.id,
            name=plan.name,
            format=plan.format,
            table_size=plan.table_size,
            rounds=plan.rounds,
            level=plan.level,
            options=plan.options,
            starts_at=plan.starts_at,
        )
        unscheduled = await self._schedule(interaction, event)
        self.conductor.poke(event.id)
        opened = words.notice("opened", tr, name=plain(event.name))
        if unscheduled is None:
            return opened
        return f"{opened}\n{words.schedule_note(unscheduled, tr)}"

    async def _schedule(self, interaction: discord.Interaction[Any], event: Event) -> str | None:
        """A Discord scheduled event for a start time, when the bot may create one; else why
        there is none, for the organiser (the event is open all the same)."""
        guild = interaction.guild
        if event.starts_at is None or guild is None:
            return None
        if permissions.scheduled_lacking(guild.me.guild_permissions):
            return "no_permission"
        try:
            scheduled = await guild.create_scheduled_event(
                name=event.name[:100],
                start_time=event.starts_at,
                end_time=event.starts_at + SCHEDULED_LENGTH,
                entity_type=discord.EntityType.external,
                privacy_level=discord.PrivacyLevel.guild_only,
                location=f"https://discord.com/channels/{event.guild_id}/{event.channel_id}",
            )
        except discord.HTTPException as error:
            log.warning("event %s: no scheduled event (%s)", event.id, error.status)
            return "refused" if isinstance(error, discord.Forbidden) else "failed"
        await self.store.club.update_event(event, scheduled_event_id=scheduled.id)
        return None

    async def _change(
        self,
        interaction: discord.Interaction[Any],
        event_id: int | None,
        check: Callable[[Event, Translations], str | None],
        changes: Callable[[Event], dict[str, Any]],
    ) -> Event:
        """Write ``changes`` to the event if ``check`` finds nothing to refuse; tried again
        from what is stored if the event moved on meanwhile."""
        tr = reader(interaction)
        for _attempt in range(5):
            event = await self.find(interaction, event_id)
            if not await self.may_organise(interaction, event):
                raise Refused(words.refusal("not_organiser", tr))
            refused = check(event, tr)
            if refused is not None:
                raise Refused(refused)
            if await self.store.club.update_event(event, **changes(event)):
                self.conductor.poke(event.id)
                return event
        raise StoreError("the event kept changing")

    async def start(self, interaction: discord.Interaction[Any], event_id: int | None) -> str:
        players: list[int] = []

        def check(event: Event, tr: Translations) -> str | None:
            if event.status != "registering":
                return words.refusal(
                    "over" if event.status in ("finished", "closed") else "already_started", tr
                )
            if len(players) < MIN_EVENT_PLAYERS:
                return words.refusal("too_few", tr, n=MIN_EVENT_PLAYERS, count=len(players))
            return None

        event = await self.find(interaction, event_id)
        players[:] = [
            e.user_id for e in await self.store.club.entrants(event.id) if e.status == "registered"
        ]
        event = await self._change(interaction, event.id, check, lambda e: {"status": "running"})
        return words.notice("started", reader(interaction), name=plain(event.name))

    async def pause(self, interaction: discord.Interaction[Any], event_id: int | None) -> str:
        def check(event: Event, tr: Translations) -> str | None:
            return None if event.status == "running" else words.refusal("not_running", tr)

        event = await self._change(interaction, event_id, check, lambda e: {"status": "paused"})
        return words.notice("paused", reader(interaction), name=plain(event.name))

    async def resume(self, interaction: discord.Interaction[Any], event_id: int | None) -> str:
        def check(event: Event, tr: Translations) -> str | None:
            return None if event.status == "paused" else words.refusal("not_paused", tr)

        event = await self._change(interaction, event_id, check, lambda e: {"status": "running"})
        return words.notice("resumed", reader(interaction), name=plain(event.name))

    async def close(self, interaction: discord.Interaction[Any], event_id: int | None) -> str:
        """End the event now: its tables still playing are stopped (they count for nobody)."""

        def check(event: Event, tr: Translations) -> str | None:
            return None if event.status in OPEN_EVENT_STATUSES else words.refusal("over", tr)

        event = await self._change(interaction, event_id, check, lambda e: {"status": "closed"})
        await self._stop_tables(event, interaction.user.id)
        return words.notice("closed", reader(interaction), name=plain(event.name))

    async def _stop_tables(self, event: Event, by: int) -> None:
        for table in await self.store.club.tables(event.id):
            session = self.conductor.tables.open.by_id.get(table.game_id or 0)
            if session is None:
                continue

            def step(session: TableSession) -> Step | None:
                if session.row.status not in ("lobby", "running"):
                    return None
                session.row.status = "stopped"
                session.row.ended = f"stop:{by}"
                return Step(commit=True)

            await self.conductor.tables.changes.run(session, step)

    async def drop(
        self, interaction: discord.Interaction[Any], event_id: int | None, player: discord.abc.User
    ) -> str:
        tr = reader(interaction)
        event = await self.find(interaction, event_id)
        if not await self.may_organise(interaction, event):
            raise Refused(words.refusal("not_organiser", tr))
        if event.status not in OPEN_EVENT_STATUSES:
            raise Refused(words.refusal("over", tr))
        entrants = {e.user_id: e for e in await self.store.club.entrants(event.id)}
        entrant = entrants.get(player.id)
        if entrant is None or entrant.status != "registered":
            raise Refused(words.refusal("not_registered", tr))
        await self.store.club.set_entrant(event.id, player.id, entrant.name, "dropped")
        for table in await self.store.club.tables(event.id):
            session = self.conductor.tables.open.by_id.get(table.game_id or 0)
            if session is None or session.row.seat_of(player.id) is None:
                continue
            await self.conductor.tables.changes.run(
                session,
                lambda s: leave_running(s, player.id, tr) if s.row.status == "running" else None,
            )
        self.conductor.poke(event.id)
        return words.notice("dropped", tr, player=plain(entrant.name), name=plain(event.name))

    async def standings(
        self, interaction: discord.Interaction[Any], event_id: int | None
    ) -> dict[str, Any]:
        event = await self.find(interaction, event_id)
        spec = words.event_message(await self.conductor.view(event), reader(interaction))
        return {"embeds": list(spec.embeds)}

    # ---- the players' buttons

    async def entry(self, interaction: discord.Interaction[Any], event_id: int, act: str) -> str:
        """Register · Withdraw · Remind me by DM, clicked on the event's message."""
        tr = reader(interaction)
        event = await self.store.club.load_event(event_id)
        if event is None or event.guild_id != interaction.guild_id:
            raise Refused(words.refusal("no_event", tr))
        if event.status != "registering":
            raise Refused(words.refusal("registration_closed", tr))
        user = interaction.user
        entrants = {e.user_id: e for e in await self.store.club.entrants(event.id)}
        entrant = entrants.get(user.id)
        registered = entrant is not None and entrant.status == "registered"
        name = user.display_name
        status: EntrantStatus
        if act == "register":
            if registered:
                raise Refused(words.refusal("already_registered", tr))
            status, code, remind = "registered", "registered", None
        elif not registered or entrant is None:
            raise Refused(words.refusal("not_registered", tr))
        elif act == "withdraw":
            status, code, remind = "withdrawn", "withdrawn", None
        else:
            status, remind = "registered", not entrant.remind_by_dm
            code = "remind_on" if remind else "remind_off"
        written = await self.store.club.set_entrant(
            event.id, user.id, name, status, only_while="registering", remind_by_dm=remind
        )
        if not written:
            raise Refused(words.refusal("registration_closed", tr))
        self.conductor.poke(event.id)
        return words.notice(code, tr, name=plain(event.name))


def check_plan(
    tr: Translations,
    *,
    name: str,
    format: str,
    rounds: int,
    level: str,
    table_size: int,
    options: TableOptions,
    starts: str | None,
    now: datetime,
) -> Plan:
    """The organiser's choices, checked (a modified client can send anything)."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= 60:
        raise Refused(words.refusal("bad_name", tr))
    if not 1 <= rounds <= 20:
        raise Refused(words.refusal("bad_rounds", tr))
    if format not in FORMATS or level not in LEVELS:
        raise Refused(words.refusal("bad_choice", tr))
    try:
        starts_at = parse_start(starts, now)
    except ValueError:
        raise Refused(words.refusal("bad_start_time", tr)) from None
    return Plan(name, format, rounds, level, table_size, options, starts_at)


__all__ = ["Organiser", "Plan", "Refused", "check_plan", "parse_start"]
