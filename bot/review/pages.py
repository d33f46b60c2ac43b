"""The review and the replay of a finished game, answered privately: from a command or a
button on a public message, a new private message; from a button on that private message, the
same message edited (Previous, Next).

Only a finished game of the reader's server is reviewed or replayed: every hand has been
played out by then, so showing each seat's cards reveals nothing.
"""

from __future__ import annotations

from typing import Any

import discord

from bot import render
from bot.i18n import reader
from bot.model import Table
from bot.places import place_of
from bot.render import review as words
from bot.store.protocol import GameStore
from bot.ui.payloads import send_kwargs, tell
from kachuful_core import Game, RecordError, load_game

from .reviewer import Reviewer, ReviewFailed


async def finished_game(
    store: GameStore, interaction: discord.Interaction[Any], game_id: int | None
) -> Table | str:
    """The finished game asked for (default: the last one finished here, bot/places.py), or
    the refusal to give instead."""
    tr = reader(interaction)
    reads = store.reads
    if game_id is None:
        place = place_of(interaction)
        assert place is not None
        row = await reads.latest_closed_game(place.id, place.parent_id)
        if row is None:
            return words.refusal("nothing_finished", tr)
    else:
        row = await reads.game(game_id) if 0 < game_id < 2**63 else None
        if row is None or row.guild_id != interaction.guild_id or row.record is None:
            return render.refusal("no_game", tr, game=game_id)
    if row.status != "finished" or row.record is None:
        return words.refusal("not_finished", tr, game=row.id)
    return row


async def show_review(
    store: GameStore,
    reviewer: Reviewer,
    interaction: discord.Interaction[Any],
    game_id: int | None,
    page: int,
) -> None:
    tr = reader(interaction)
    found = await finished_game(store, interaction, game_id)
    if isinstance(found, str):
        await tell(interaction, found)
        return
    row = found
    assert row.record is not None
    review = await reviewer.stored(row.id)
    if review is None:
        if _played(row) is None:
            await tell(interaction, words.refusal("no_played_deal", tr, game=row.id))
            return
        await _wait(interaction, words.notice("computing", tr, game=row.id))
        try:
            review = await reviewer.review(row.id, row.record)
        except ReviewFailed:
            await interaction.edit_original_response(
                content=words.refusal("review_failed", tr, game=row.id), embeds=[], view=None
            )
            return
    await _answer(interaction, words.review_page(row.id, review, page, tr))


async def show_replay(
    store: GameStore, interaction: discord.Interaction[Any], game_id: int, step: int
) -> None:
    tr = reader(interaction)
    found = await finished_game(store, interaction, game_id)
    if isinstance(found, str):
        await tell(interaction, found)
        return
    row = found
    game = _played(row)
    if game is None:
        await tell(interaction, words.refusal("no_played_deal", tr, game=row.id))
        return
    names = [seat.name for seat in row.seats]
    await _answer(interaction, words.replay_page(row.id, game, step, names, tr))


def _played(row: Table) -> Game | None:
    """The game, if it has a deal played out to show (and its record can be read)."""
    try:
        game = load_game(row.record or {})
    except RecordError:
        return None
    return game if any(deal.scores is not None for deal in game.deals) else None


def _private(interaction: discord.Interaction[Any]) -> bool:
    """Whether the click is on this reader's own private message (edited in place)."""
    message = interaction.message
    return (
        interaction.type is discord.InteractionType.component
        and message is not None
        and message.flags.ephemeral
    )


async def _wait(interaction: discord.Interaction[Any], text: str) -> None:
    if _private(interaction):
        await interaction.response.edit_message(content=text, embeds=[], view=None)
    else:
        await interaction.response.send_message(text, ephemeral=True)


async def _answer(interaction: discord.Interaction[Any], spec: render.MessageSpec) -> None:
    if interaction.response.is_done():
        await interaction.edit_original_response(**send_kwargs(spec, edit=True))
    elif _private(interaction):
        await interaction.response.edit_message(**send_kwargs(spec, edit=True))
    else:
        await interaction.response.send_message(**send_kwargs(spec), ephemeral=True)
