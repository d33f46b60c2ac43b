"""/kachuful history (the recent games here, paginated) and /kachuful export [game]; "here"
is a channel, or a thread with the game its lobby opened it for (bot/places.py).

Read only, on the store's read-only connection: a running game is read as last committed,
never through its table's lock. Export of a finished game gives its record with every deal's
seed; of a running game, only to its players, the public part (kachuful_core.public_record:
deals played out, and the deal in progress up to its last completed trick, no card still
held by anyone).
"""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import render
from bot.i18n import reader
from bot.model import Table
from bot.places import place_of
from bot.render import club, results_commands
from bot.render import scorepad as scorepad_words
from bot.render.results_commands import export_file_name
from bot.render.words import plain
from bot.ui.items import add_feature_items, remove_feature_items
from bot.ui.payloads import page_buttons
from bot.web.club.links import club_base, club_url
from kachuful_core import deal_in_progress, public_record
from kachuful_core.dealing import (
    commitment,
    deal_seed,
    draw_seed,
    game_commitment,
    normalize_seed,
)

from .group import KachufulFeature, channel_translations

if TYPE_CHECKING:
    from bot.client import KachufulBot


def history_custom_id(direction: str, page: int) -> str:
    return f"kf:hi:{direction}:{page}"


async def history_message(
    bot: KachufulBot, interaction: discord.Interaction[Any], page: int
) -> dict[str, Any]:
    place = place_of(interaction)
    assert interaction.guild_id is not None and place is not None
    found = await bot.store.reads.history(channel_id=place.id, page=page, parent_id=place.parent_id)
    tr = await channel_translations(bot, interaction)
    base = club_base(bot.settings)
    club = None if base is None else club_url(base, interaction.guild_id)
    spec = results_commands.history(found, interaction.guild_id, place.id, tr, club=club)
    view = page_buttons(found.page, found.pages, history_custom_id, tr)
    message: dict[str, Any] = {
        "embeds": list(spec.embeds),
        "allowed_mentions": spec.allowed_mentions,
    }
    if view is not None:
        message["view"] = view
    return message


class HistoryPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"kf:hi:(?P<dir>[pn]):(?P<page>\d{1,9})",
):
    def __init__(self, direction: str, page: int) -> None:
        super().__init__(discord.ui.Button(custom_id=history_custom_id(direction, page)))
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HistoryPageButton:
        return cls(match["dir"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        message = await history_message(interaction.client, interaction, self.page)
        await interaction.response.edit_message(**{"view": None, **message})


def seeds_document(row: Table) -> dict[str, Any]:
    """Every deal's seed of a finished game, with its commitment, and the game's commitment to
    them all (shown at the start of the game, before the first deal): anyone can check it
    with kachuful_core.dealing.game_commitment, and the hands with deal_hands."""
    assert row.record is not None and row.seed is not None
    game_seed = normalize_seed(row.seed)
    first = int(row.record.get("start_deal", 0))
    materials = [
        deal_seed(game_seed, first + number) for number in range(len(row.record.get("deals", [])))
    ]
    deals = [
        {"deal": first + number, "seed": material.hex(), "commitment": commitment(material)}
        for number, material in enumerate(materials)
    ]
    # A finished game's record holds every deal of its schedule, from the first.
    document: dict[str, Any] = {
        "game": row.id,
        "game_commitment": game_commitment([commitment(material) for material in materials]),
        "check": CHECK,
        "deals": deals,
    }
    if row.record.get("draw"):
        document["draw"] = [
            draw_seed(game_seed, number).hex() for number in range(len(row.record["draw"]))
        ]
    return document


CHECK = (
    "sha256(bytes.fromhex(seed)) is each deal's commitment; sha256 of the deals' commitments "
    "(32 bytes each, in order) is game_commitment, shown before the first deal; "
    "kachuful_core.dealing.deal_hands(bytes.fromhex(seed), players, dealer, hand size) deals "
    "the recorded hands."
)


def _file(name: str, value: Any) -> discord.File:
    data = json.dumps(value, indent=2, ensure_ascii=False).encode()
    return discord.File(io.BytesIO(data), filename=name)


def is_player(row: Table, user_id: int) -> bool:
    return any(user_id in (seat.user_id, seat.left_user_id) for seat in row.seats)


class HistoryCog(KachufulFeature):
    async def cog_load(self) -> None:
        await super().cog_load()
        add_feature_items(self.bot, HistoryPageButton)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, HistoryPageButton)
        await super().cog_unload()

    @app_commands.command(name="history", description=locale_str("This channel's recent games"))
    async def history(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        await interaction.response.send_message(**await history_message(self.bot, interaction, 0))

    @app_commands.command(
        name="export", description=locale_str("A game's record (default: the last here)")
    )
    @app_commands.describe(
        game=locale_str("The game's number (see /kachuful history)"),
        event=locale_str("An event's number: its pairings, seeds and every game's record"),
        scorepad=locale_str("A score pad's number: its record (kachuful-scorepad/1)"),
    )
    async def export(
        self,
        interaction: discord.Interaction[Any],
        game: int | None = None,
        event: int | None = None,
        scorepad: int | None = None,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        if event is not None:
            await self._export_event(interaction, event)
            return
        if scorepad is not None:
            await self._export_scorepad(interaction, scorepad)
            return
        reads = self.bot.store.reads
        if game is None:
            place = place_of(interaction)
            assert place is not None
            row = await reads.latest_closed_game(place.id, place.parent_id)
            if row is None:
                await interaction.response.send_message(
                    render.refusal("no_finished_game", reader(interaction)), ephemeral=True
                )
                return
        else:
            row = await reads.game(game) if 0 < game < 2**63 else None
            # Games of this server only; a game number of another server is "no game".
            if row is None or row.guild_id != interaction.guild_id or row.record is None:
                await interaction.response.send_message(
                    render.refusal("no_game", reader(interaction), game=game), ephemeral=True
                )
                return
        assert row.record is not None
        tr = reader(interaction)

        def named(kind: str, number: int) -> str:
            return export_file_name(kind, number, tr)

        if row.status == "finished" and row.seed is not None:
            files = [
                _file(named("game", row.id), row.record),
                _file(named("seeds", row.id), seeds_document(row)),
            ]
            content = results_commands.export_notice(row.id, reader(interaction), partial=False)
        elif row.status == "running":
            if not is_player(row, interaction.user.id):
                await interaction.response.send_message(
                    render.refusal("not_your_game", reader(interaction), game=row.id),
                    ephemeral=True,
                )
                return
            files = [_file(named("so_far", row.id), public_record(row.record))]
            progress = deal_in_progress(row.record)
            if progress is not None:
                files.append(_file(named("current_deal", row.id), progress))
            content = results_commands.export_notice(row.id, reader(interaction), partial=True)
        else:
            # A stopped game's hands were never all played: only its played-out deals.
            files = [_file(named("game", row.id), public_record(row.record))]
            content = results_commands.export_notice(row.id, reader(interaction), partial=True)
        await interaction.response.send_message(content=content, files=files, ephemeral=True)

    async def _export_scorepad(self, interaction: discord.Interaction[Any], pad_id: int) -> None:
        """A score pad's record: bids and tricks, no card (the bot dealt none)."""
        pad = await self.bot.store.scorepads.load(pad_id) if 0 < pad_id < 2**63 else None
        if pad is None or pad.guild_id != interaction.guild_id or pad.record is None:
            await interaction.response.send_message(
                scorepad_words.refusal("no_pad", reader(interaction)), ephemeral=True
            )
            return
        await interaction.response.send_message(
            files=[_file(export_file_name("scorepad", pad.id, reader(interaction)), pad.record)],
            ephemeral=True,
        )

    async def _export_event(self, interaction: discord.Interaction[Any], event_id: int) -> None:
        """An event's pairings, and for each finished table its seed, its deals' seeds and
        its record: duplicate tables of a round show the same deal seeds."""
        store = self.bot.store
        event = await store.club.load_event(event_id) if 0 < event_id < 2**63 else None
        if event is None or event.guild_id != interaction.guild_id:
            await interaction.response.send_message(
                club.refusal("no_event", reader(interaction)), ephemeral=True
            )
            return
        tables = await store.club.tables(event.id)
        records: dict[int, Any] = {}
        seeds: dict[int, Any] = {}
        for table in tables:
            row = await store.reads.game(table.game_id) if table.game_id else None
            if row is not None and row.status == "finished" and row.seed and row.record:
                records[row.id] = row.record
                seeds[row.id] = seeds_document(row)
        document = club.export_summary(event, tables, records)
        for entry in document["tables"]:
            entry["deal_seeds"] = seeds.get(entry["game_id"])
        await interaction.response.send_message(
            content=club.notice("exported", reader(interaction), name=plain(event.name)),
            files=[_file(export_file_name("event", event.id, reader(interaction)), document)],
            ephemeral=True,
        )


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(HistoryCog(bot))
