"""Score pads at work (docs/scorepad.md): ``/kachuful-scorepad`` opens one in a channel, and
every click on its message (Join, Leave, Start, a bid, a trick count, Stop) is checked by the
engine (``kachuful_core.scorepad``), written over the version it read, and only then drawn on
the message. A finished pad's results are counted in the same write.

A click on an older message (a second click, or one whose edit a crash lost) is not applied:
the message is brought up to date instead, so that the players go on from the committed pad.

The pad's message answers ``/kachuful-scorepad``; a crash after that answer and before its id
is stored would leave a pad whose message is out but unknown, and the start would post a
second one. So the answer's token is kept first (``bot_state``, as a table keeps its lobby's),
and the start finds the message through it while the token is valid (15 minutes).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import datetime
from typing import Any

import aiohttp
import discord
from discord.webhook.async_ import async_context

from bot.i18n import Translations, for_table, reader
from bot.model import TableOptions
from bot.options import table_rules
from bot.rating import places
from bot.render import scorepad as words
from bot.render.chart import chart_labels, score_chart
from bot.render.specs import MessageSpec
from bot.results import deal_lines_from_summary, exact_bids
from bot.shards import Shards
from bot.store.failures import StoreError
from bot.store.protocol import GameStore
from bot.store.results import FinishedSeat
from bot.table.hands import HAND_TOKEN_SECONDS, webhook_session
from bot.ui.payloads import send_kwargs
from kachuful_core import KachufulError
from kachuful_core.scorepad import ScorePad, TricksDoNotAddUp

from .model import BOARD_KEY, Board, Pad, PadSeat

MAX_PLAYERS = 7
ANSWER_KEY = "scorepad_answer:{pad}"  # bot_state: the token of the answer that posted a pad
log = logging.getLogger(__name__)


class Refused(Exception):
    """A click that changes nothing: its words, told privately."""


class ScorePadKeeper:
    def __init__(self, store: GameStore) -> None:
        self.store = store

    async def open(self, interaction: discord.Interaction[Any], options: TableOptions) -> None:
        """``options``: the table options chosen (checked by the registry), with the language
        of the pad's public message."""
        tr = reader(interaction)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        host = PadSeat(interaction.user.id, interaction.user.display_name)
        try:
            ScorePad.new(table_rules(options, 3)[0], ["", "", ""])
        except ValueError:
            await interaction.response.send_message(words.refusal("bad_rules", tr), ephemeral=True)
            return
        pad = Pad(
            id=0,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            host_id=host.user_id,
            status="open",
            seats=[host],
            options=options,
        )
        opened = await self.store.scorepads.open(pad)
        if opened is None:
            await interaction.response.send_message(words.refusal("busy", tr), ephemeral=True)
            return
        answer = {"token": interaction.token, "at": discord.utils.utcnow().isoformat()}
        await self.store.set_bot_state(ANSWER_KEY.format(pad=opened.id), json.dumps(answer))
        spec = words.pad_message(opened, for_table(opened.options))
        await interaction.response.send_message(**send_kwargs(spec))
        message = await interaction.original_response()
        await self.store.scorepads.shown_on(opened, message.id)

    async def board(self, guild_id: int) -> Board:
        """Where this server's pads count (apart, unless its managers chose together)."""
        value = await self.store.bot_state(BOARD_KEY.format(guild=guild_id))
        return "together" if value == "together" else "apart"

    async def set_board(self, guild_id: int, board: Board) -> None:
        await self.store.set_bot_state(BOARD_KEY.format(guild=guild_id), board)

    # ---- clicks ---------------------------------------------------------------------------

    async def click(
        self,
        interaction: discord.Interaction[Any],
        pad_id: int,
        version: int,
        act: str,
        value: int,
    ) -> None:
        tr = reader(interaction)
        pad = await self.store.scorepads.load(pad_id)
        if pad is None or pad.guild_id != interaction.guild_id:
            await interaction.response.send_message(words.refusal("no_pad", tr), ephemeral=True)
            return
        if version != pad.version:
            await self._show(interaction, pad, notice=words.refusal("moved_on", tr))
            return
        try:
            changed, board = await self._apply(pad, interaction.user, act, value, tr)
        except Refused as refused:
            await interaction.response.send_message(str(refused), ephemeral=True)
            return
        finished = self._finished_seats(changed) if changed.status == "finished" else []
        if not await self.store.scorepads.save(changed, finished=finished, board=board):
            current = await self.store.scorepads.load(pad_id)
            if current is not None:
                await self._show(interaction, current, notice=words.refusal("moved_on", tr))
            return
        await self._show(interaction, changed)

    async def _apply(
        self, pad: Pad, user: Any, act: str, value: int, tr: Translations
    ) -> tuple[Pad, Board | None]:
        seat = next((i for i, s in enumerate(pad.seats) if s.user_id == user.id), None)
        changed = replace(pad, seats=list(pad.seats), version=pad.version + 1)
        if act == "stop":
            if user.id != pad.host_id:
                raise Refused(words.refusal("not_host", tr))
            changed.status = "stopped"
            return changed, None
        if act in ("join", "leave", "start"):
            self._lobby(changed, user, seat, act, tr)
            return changed, None
        if pad.status != "running" or seat is None:
            raise Refused(words.refusal("not_seated", tr))
        engine = ScorePad.from_document(pad.record or {})
        try:
            if act == "bid":
                if engine.turn != seat:
                    name = pad.seats[engine.turn].name if engine.turn is not None else "?"
                    raise Refused(words.refusal("not_your_turn", tr, name=name))
                engine.bid(seat, value)
            else:
                engine.tricks(seat, value)
        except TricksDoNotAddUp as error:
            raise Refused(
                words.refusal("too_many", tr, total=error.total, n=error.hand_size)
            ) from None
        except KachufulError:
            raise Refused(words.refusal("bad_bid", tr)) from None
        changed.record = engine.to_document()
        if engine.stage == "finished":
            changed.status = "finished"
            changed.board = await self.board(pad.guild_id)
            return changed, changed.board
        return changed, None

    def _lobby(self, pad: Pad, user: Any, seat: int | None, act: str, tr: Translations) -> None:
        if pad.status != "open":
            raise Refused(words.refusal("not_open", tr))
        if act == "join":
            if seat is not None:
                raise Refused(words.refusal("seated", tr))
            if len(pad.seats) >= MAX_PLAYERS:
                raise Refused(words.refusal("full", tr))
            pad.seats.append(PadSeat(user.id, user.display_name))
        elif act == "leave":
            if seat is None:
                raise Refused(words.refusal("not_seated", tr))
            if user.id == pad.host_id:
                raise Refused(words.refusal("not_host", tr))
            del pad.seats[seat]
        else:
            if user.id != pad.host_id:
                raise Refused(words.refusal("not_host", tr))
            if len(pad.seats) < 3:
                raise Refused(words.refusal("few", tr, n=len(pad.seats)))
            try:
                rules = table_rules(pad.options, len(pad.seats))[0]
                engine = ScorePad.new(rules, [s.name for s in pad.seats], first_dealer=0)
            except ValueError:
                raise Refused(words.refusal("bad_rules", tr)) from None
            pad.record = engine.to_document()
            pad.status = "running"

    def _finished_seats(self, pad: Pad) -> list[FinishedSeat]:
        """Each seat's result, counted as a game's is (its scored deals, exact bids, place)."""
        summary = ScorePad.from_document(pad.record or {}).summary()
        totals, winners = summary["totals"], set(summary["winners"] or ())
        lines = deal_lines_from_summary(summary, len(pad.seats))
        return [
            FinishedSeat(
                seat=seat,
                user_id=entry.user_id,
                name=entry.name,
                level=None,
                score=totals[seat],
                won=seat in winners,
                place=place,
                bids_exact=exact_bids(lines[seat]),
                bids=len(lines[seat]),
                deals=lines[seat],
            )
            for seat, (entry, place) in enumerate(zip(pad.seats, places(totals), strict=True))
        ]

    # ---- the message ----------------------------------------------------------------------

    async def _show(
        self, interaction: discord.Interaction[Any], pad: Pad, notice: str | None = None
    ) -> None:
        """The clicked message redrawn from the committed pad, then marked shown."""
        await interaction.response.edit_message(**send_kwargs(await self._spec(pad), edit=True))
        if interaction.message is not None:
            await self.store.scorepads.shown_on(pad, interaction.message.id)
        if notice is not None:
            await interaction.followup.send(notice, ephemeral=True)

    async def restore(self, client: discord.Client, shards: Shards) -> None:
        """At start: every pad whose public message is behind it (the process died between
        a write and its post or edit) is drawn again, or posted if it never was."""
        try:
            behind = await self.store.scorepads.unshown(shards)
        except StoreError:
            log.warning("score pads not restored: the database cannot be read")
            return
        for pad in behind:
            try:
                await self.publish(client, pad)
            except discord.HTTPException as error:
                log.warning("score pad %s not redrawn (%s)", pad.id, type(error).__name__)

    async def publish(self, client: discord.Client, pad: Pad) -> None:
        """Bring the pad's public message up to date: edit it, or post it (again, if it was
        never posted or has been deleted)."""
        spec = await self._spec(pad)
        channel = client.get_partial_messageable(pad.channel_id, guild_id=pad.guild_id)
        if pad.message_id is None:
            pad = replace(pad, message_id=await self._answered(client, pad))
        if pad.message_id is not None:
            try:
                await channel.get_partial_message(pad.message_id).edit(
                    **send_kwargs(spec, edit=True)
                )
                await self.store.scorepads.shown_on(pad, pad.message_id)
                return
            except discord.NotFound:
                pass
        message = await channel.send(**send_kwargs(spec))
        await self.store.scorepads.shown_on(pad, message.id)

    async def _answered(self, client: discord.Client, pad: Pad) -> int | None:
        """The message that answered the pad's ``/kachuful-scorepad``, if it was posted and
        its token is still valid; None: never answered (or too long ago to know)."""
        try:
            kept = json.loads(await self.store.bot_state(ANSWER_KEY.format(pad=pad.id)) or "{}")
            token, at = kept["token"], datetime.fromisoformat(kept["at"])
        except (KeyError, TypeError, ValueError):
            return None
        if (discord.utils.utcnow() - at).total_seconds() >= HAND_TOKEN_SECONDS:
            return None
        try:
            message = await async_context.get().get_original_interaction_response(
                client.application_id or 0, token, **webhook_session(client)
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            return None
        return int(message["id"])

    async def _spec(self, pad: Pad) -> MessageSpec:
        tr = for_table(pad.options)
        spec = words.stopped(tr) if pad.status == "stopped" else words.pad_message(pad, tr)
        if pad.status == "finished":
            names, cumulative = words.chart_data(pad)
            png = await score_chart(names, cumulative, labels=chart_labels(tr))
            spec = replace(spec, attachment=(words.CHART_FILE, png), keep_files=False)
        return spec
