"""Practice deals (docs/review.md#practice): one deal played alone against computer players,
privately and unrated. A deal of a finished game is played again with the real cards of every
seat; with no game, a fresh deal is dealt. Nothing of it reaches a board, a rating or a
statistic: it lives only in ``practice_deals``.

Each click is checked (the owner, the version of the message clicked, the rules), applied with
the computer players' answers, and written over the version it was read at, before the
message is edited: a click lost to a crash is simply clicked again, and a click applied once
is never applied twice.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

import discord

from bot.i18n import Translations, reader
from bot.render import practice as words
from bot.render.review import replay_steps
from bot.store.protocol import GameStore
from bot.table.driver import seed_of
from bot.table.thinking import Thinker, thinks_in_worker
from bot.ui.payloads import drawn, send_kwargs, tell
from kachuful_core import Game, KachufulError, RecordError, Rules, load_game, record_document
from kachuful_core.game import Phase
from kachuful_core.players import LEVELS, act, apply_decision
from kachuful_core.record import deal_record
from kachuful_core.review import hint
from kachuful_core.views import view as seat_view

from .model import PracticeDeal
from .pages import finished_game

DEFAULT_LEVEL = "search"
FRESH_PLAYERS = 4
COMPUTER_NAMES = ("🤖 1", "🤖 2", "🤖 3", "🤖 4", "🤖 5", "🤖 6")


def fresh_record(name: str, rng: secrets.SystemRandom | None = None) -> tuple[dict[str, Any], int]:
    """A new deal of the default game for a practice, and the player's seat in it: a random
    deal of two cards or more, a random seat, computer players' names at the others."""
    rng = rng or secrets.SystemRandom()
    rules = Rules(players=FRESH_PLAYERS)
    index = rng.choice([i for i, size in enumerate(rules.hand_sizes) if size >= 2])
    seat = rng.randrange(FRESH_PLAYERS)
    names = [name if s == seat else COMPUTER_NAMES[s - (s > seat)] for s in range(FRESH_PLAYERS)]
    game = Game(
        rules,
        names,
        seed=secrets.token_bytes(32),
        first_dealer=rng.randrange(FRESH_PLAYERS),
        start_deal=index,
    )
    return deal_record(record_document(game), 0), seat


class Practice:
    def __init__(self, store: GameStore, thinker: Thinker) -> None:
        self.store = store
        self.thinker = thinker

    # ---- starting -------------------------------------------------------------------------

    async def start(
        self,
        interaction: discord.Interaction[Any],
        game_id: int | None,
        deal: int | None,
        level: str,
    ) -> None:
        """/kachuful practice [game] [deal] [level], and Practise this deal (a replay)."""
        tr = reader(interaction)
        if game_id is None:
            record, seat = fresh_record(interaction.user.display_name)
            source = None
        else:
            found = await finished_game(self.store, interaction, game_id)
            if isinstance(found, str):
                await tell(interaction, found)
                return
            assert found.record is not None
            position = _position(load_game(found.record), deal)
            if position is None:
                await tell(interaction, words.refusal("no_deal", tr, game=found.id, deal=deal or 1))
                return
            record = deal_record(found.record, position)
            if load_game(record).is_forehead_deal:
                await tell(interaction, words.refusal("forehead", tr))
                return
            mine = [s for s, e in enumerate(found.seats) if interaction.user.id == e.user_id]
            seat = mine[0] if mine else 0
            source = found.id
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._begin(interaction, record, seat, level, source, tr)

    async def again(
        self, interaction: discord.Interaction[Any], practice_id: int, fresh: bool
    ) -> None:
        """Play it again (the same cards) or New deal, at the end of a practice deal."""
        tr = reader(interaction)
        owned = await self._owned(interaction, practice_id, None, tr)
        if owned is None:
            return
        found = owned[0]
        if fresh:
            record, seat = fresh_record(interaction.user.display_name)
        else:
            record, seat = deal_record(found.record, 0), found.seat
        await interaction.response.defer()
        await self._begin(interaction, record, seat, found.level, found.source_game, tr)

    async def _begin(
        self,
        interaction: discord.Interaction[Any],
        record: dict[str, Any],
        seat: int,
        level: str,
        source: int | None,
        tr: Translations,
    ) -> None:
        """A new practice deal: the computer seats before the player's turn, then stored."""
        game = load_game(record)
        await self._computers(game, seat, level)
        created = await self.store.practice.create(
            interaction.user.id, seat, level, record_document(game), source
        )
        await self._show(interaction, created, game, tr)

    # ---- playing --------------------------------------------------------------------------

    async def move(
        self,
        interaction: discord.Interaction[Any],
        practice_id: int,
        version: int,
        kind: str,
        value: int,
    ) -> None:
        """A bid or a card of the player's, then the computer players' answers."""
        tr = reader(interaction)
        owned = await self._owned(interaction, practice_id, version, tr)
        if owned is None:
            return
        found, game = owned
        try:
            if game.turn != found.seat:
                raise KachufulError("not the player's turn")
            if kind == "bid":
                game.bid(found.seat, value)
            else:
                game.play(found.seat, value)
        except KachufulError:
            await tell(interaction, words.refusal("illegal", tr))
            return
        await interaction.response.defer()
        await self._computers(game, found.seat, found.level)
        await self._save(interaction, found, game, found.hints, tr)

    async def hint(
        self, interaction: discord.Interaction[Any], practice_id: int, version: int
    ) -> None:
        """The Expert's bid or card for the player's turn, with what it expects."""
        tr = reader(interaction)
        owned = await self._owned(interaction, practice_id, version, tr)
        if owned is None:
            return
        found, game = owned
        if game.turn != found.seat or game.phase not in (Phase.BIDDING, Phase.PLAYING):
            await tell(interaction, words.refusal("no_hint", tr))
            return
        await interaction.response.defer()
        advice = await self.thinker.compute(hint, seat_view(game, found.seat))
        if advice.kind == "bid":
            text = words.bid_hint(advice, advice.tricks or 0.0, tr)
        else:
            text = words.card_hint(advice, tr)
        await self._save(interaction, found, game, found.hints + 1, tr, text)

    # ---- steps ----------------------------------------------------------------------------

    async def _owned(
        self,
        interaction: discord.Interaction[Any],
        practice_id: int,
        version: int | None,
        tr: Translations,
    ) -> tuple[PracticeDeal, Game] | None:
        """The practice deal clicked and its game, if the click may act on it; else the
        click is answered here."""
        found = await self.store.practice.load(practice_id)
        if found is None:
            await tell(interaction, words.refusal("no_practice", tr))
            return None
        if found.user_id != interaction.user.id:
            await tell(interaction, words.refusal("not_yours", tr))
            return None
        try:
            game = load_game(found.record)
        except RecordError:
            await tell(interaction, words.refusal("no_practice", tr))
            return None
        if version is not None and version != found.version:
            # An older message (a second click, or one whose edit a crash lost): it is
            # brought up to date, so that the player can go on from it.
            spec = words.practice_page(found.id, found.version, game, found.seat, found.level, tr)
            spec = await drawn(replace(spec, content=words.refusal("moved_on", tr)))
            await interaction.response.edit_message(**send_kwargs(spec, edit=True))
            return None
        return found, game

    async def _computers(self, game: Game, me: int, level: str) -> None:
        """The computer seats' turns, until the player's turn or the end of the deal."""
        index = game.deal_index
        thinker = self.thinker
        while game.deal_index == index and game.turn is not None and game.turn != me:
            if game.phase not in (Phase.BIDDING, Phase.PLAYING):
                break
            seat = game.turn
            view = seat_view(game, seat)
            seed = seed_of(index, seat)
            if thinks_in_worker(level, view):
                apply_decision(game, seat, await thinker.decide(level, seed, view))
            else:
                act(game, seat, LEVELS[level](seed))

    async def _save(
        self,
        interaction: discord.Interaction[Any],
        found: PracticeDeal,
        game: Game,
        hints: int,
        tr: Translations,
        hint_text: str | None = None,
    ) -> None:
        record = record_document(game)
        if not await self.store.practice.save(found, record, hints):
            # Another click wrote first: show what it left, and apply nothing more.
            current = await self.store.practice.load(found.id)
            if current is not None:
                await self._show(
                    interaction, current, load_game(current.record), tr, notice="moved_on"
                )
            return
        saved = replace(found, record=record, hints=hints, version=found.version + 1)
        await self._show(interaction, saved, game, tr, hint_text)

    async def _show(
        self,
        interaction: discord.Interaction[Any],
        deal: PracticeDeal,
        game: Game,
        tr: Translations,
        hint_text: str | None = None,
        notice: str | None = None,
    ) -> None:
        spec = words.practice_page(
            deal.id, deal.version, game, deal.seat, deal.level, tr, hint=hint_text
        )
        if notice is not None:
            spec = replace(spec, content=words.refusal(notice, tr))
        spec = await drawn(spec)
        await interaction.edit_original_response(**send_kwargs(spec, edit=True))


def _position(game: Game, deal: int | None) -> int | None:
    """The position in the game's deals of deal number ``deal`` (1-based, as the deal titles
    count; default the first deal), if it was played out."""
    played = {game.deals[step.deal].index: step.deal for step in replay_steps(game)}
    wanted = (deal or 1) - 1 if deal is not None else min(played, default=0)
    return played.get(wanted)
