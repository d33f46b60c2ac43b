"""The club pages (docs/web.md#club-pages): read-only pages of one server, under
``/club/<server id>/…``, served by the bot's web server (``WebServer.pages["club"]``).

    /club/<server>                        the leaderboard (?period=all|30d|7d &sort=… &page=n)
    /club/<server>/seasons                the current season's standings, the hall of champions
    /club/<server>/events                 the server's events
    /club/<server>/event/<id>             an event: standings, rounds and tables
    /club/<server>/event/<id>/round/<r>   a duplicate round's travellers
    /club/<server>/player/<user>          a player: figures, rating over time, last games
    /club/<server>/game/<id>              a finished game: scores deal by deal, its review
    /club/<server>/game/<id>/replay       its replay, a step a page (?step=n)

Who may read them is decided first (access.py): members of the server after a Discord login,
or anyone where the server chose public pages. Every figure comes from the same reads and
engine functions as the commands in Discord (the store's reads, the conductor's standings,
the reviewer's stored review); every word from the catalogue, in the reader's language.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

import discord
from aiohttp import web

from bot.club.conductor import CLOSED_STATUSES, Conductor
from bot.club.model import ALL_EVENT_STATUSES, Event
from bot.club.seasons import SeasonKeeper
from bot.i18n import LANGUAGE_NAMES, Translations, language_of, translation
from bot.model import Table
from bot.render import club as club_words
from bot.render import refusal as render_refusal
from bot.render import results_commands as board_words
from bot.render import review as review_words
from bot.render.deal import deal_title
from bot.render.words import pair
from bot.result_pages import PERIOD_LABELS
from bot.review.reviewer import Reviewer
from bot.store.failures import StoreError
from bot.store.protocol import GameStore
from bot.store.reads import PERIODS, SORTS
from bot.web.sessions import Identity
from kachuful_core import Game, RecordError, load_game

from . import replay, words
from .access import PUBLIC, Access, Verdict, visibility
from .chart import rating_chart
from .html import render
from .travellers import RoundTable, round_travellers

log = logging.getLogger(__name__)

STYLE = "club/club.css"  # under bot/web/static/, served by bot/web/assets.py
_ID = r"(\d{1,19})"
ROUTES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), name)
    for pattern, name in (
        (rf"{_ID}/?", "board"),
        (rf"{_ID}/seasons", "seasons"),
        (rf"{_ID}/events", "events"),
        (rf"{_ID}/event/{_ID}", "event"),
        (rf"{_ID}/event/{_ID}/round/(\d{{1,3}})", "round"),
        (rf"{_ID}/player/{_ID}", "player"),
        (rf"{_ID}/game/{_ID}", "game"),
        (rf"{_ID}/game/{_ID}/replay", "replay"),
    )
)


@dataclass(frozen=True)
class Reader:
    """One request's reader and server, and what every page's frame shows."""

    request: web.Request
    guild: discord.Guild
    who: Identity | None
    tr: Translations
    language: str
    public: bool
    root: str = ""  # this process's path under the public address (docs/web.md, processes)

    @property
    def base(self) -> str:
        return f"{self.root}/club/{self.guild.id}"

    def frame(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "lang": self.language,
            "base": self.base,
            "guild_name": self.guild.name,
            "who": self.who,
            "public": self.public,
            "here": self.request.path_qs,
        }


class NotShown(Exception):
    """A page that cannot be shown: its status and the words that say why."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class ClubSite:
    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        *,
        conductor: Conductor,
        seasons: SeasonKeeper,
        reviewer: Reviewer,
        style_url: Callable[[], str],
        access: Access | None = None,
        root: str = "",
    ) -> None:
        self.client = client
        self.store = store
        self.conductor = conductor
        self.seasons = seasons
        self.reviewer = reviewer
        self.style_url = style_url
        self.access = access or Access(store)
        self.root = root
        self._pages: dict[str, Callable[..., Awaitable[str]]] = {
            "board": self.board,
            "seasons": self.season_page,
            "events": self.events,
            "event": self.event,
            "round": self.round,
            "player": self.player,
            "game": self.game,
            "replay": self.replay,
        }

    # ---- the one handler ---------------------------------------------------------------------

    async def __call__(self, request: web.Request, who: Identity | None) -> web.StreamResponse:
        path = request.match_info.get("path", "")
        found = next(
            ((name, match) for pattern, name in ROUTES if (match := pattern.fullmatch(path))),
            None,
        )
        tr, language = self._language(request, who, None)
        guild = self.client.get_guild(int(found[1].group(1))) if found else None
        if found is None or guild is None:
            return self._message(request, tr, language, 404, tr.gettext("There is no such page."))
        tr, language = self._language(request, who, guild)
        try:
            verdict = await self.access.verdict(guild, who.user_id if who else None)
            if verdict is Verdict.LOG_IN:
                login = f"{self.root}/login?next={quote(request.path_qs, safe='/')}"
                raise web.HTTPFound(login)
            if verdict is Verdict.REFUSED:
                text = tr.gettext(
                    "These pages are for the members of {server}, and your Discord account is "
                    "not one of them."
                ).format(server=guild.name)
                return self._message(request, tr, language, 403, text)
            public = await visibility(self.store, guild.id) == PUBLIC
            reader = Reader(request, guild, who, tr, language, public, self.root)
            name, match = found
            ids = [int(group) for group in match.groups()[1:]]
            body = await self._pages[name](reader, *ids)
        except NotShown as refused:
            return self._message(request, tr, language, refused.status, refused.text)
        except (StoreError, discord.HTTPException) as error:
            log.warning("a club page could not be read: %s", type(error).__name__)
            text = tr.gettext("This page cannot be read just now: try again in a moment.")
            return self._message(request, tr, language, 503, text)
        return _html(body)

    def _language(
        self, request: web.Request, who: Identity | None, guild: discord.Guild | None
    ) -> tuple[Translations, str]:
        """The reader's language: their Discord language when logged in, else the first
        language their browser asks for that the bot speaks, else the server's."""
        language = None
        if who is not None:
            language = language_of(who.locale)
        else:
            for part in request.headers.get("Accept-Language", "").split(","):
                asked = language_of(part.split(";")[0], fallback="")
                if asked:
                    language = asked
                    break
        if language is None and guild is not None:
            language = language_of(guild.preferred_locale)
        language = language if language in LANGUAGE_NAMES else "en"
        return translation(language), language

    def _message(
        self, request: web.Request, tr: Translations, language: str, status: int, text: str
    ) -> web.Response:
        body = render(
            "message.html",
            tr,
            lang=language,
            root=self.root,
            base=None,
            guild_name=None,
            who=None,
            public=False,
            here=request.path_qs,
            style=self.style_url(),
            text=text,
        )
        return _html(body, status)

    def _page(self, name: str, reader: Reader, **context: Any) -> str:
        return render(name, reader.tr, style=self.style_url(), **reader.frame(), **context)

    # ---- leaderboard, seasons, events ----------------------------------------------------------

    async def board(self, reader: Reader) -> str:
        query = reader.request.query
        period = query.get("period", "all")
        sort = query.get("sort", "rating")
        period = period if period in PERIODS else "all"
        sort = sort if sort in SORTS else "rating"
        page = _number(query.get("page"), 1) - 1
        board = await self.store.reads.leaderboard(
            guild_id=reader.guild.id,
            channel_id=0,
            scope="server",
            period=period,  # checked above
            sort=sort,
            page=page,
            viewer_id=reader.who.user_id if reader.who else None,
        )
        return self._page(
            "board.html",
            reader,
            board=board,
            periods=PERIOD_LABELS,
            sorts=board_words.SORT_HEADINGS,
            title=reader.tr.gettext("Kachuful leaderboard — {scope}, {period}").format(
                scope=reader.tr.gettext(board_words.SCOPE_WORDS["server"]),
                period=reader.tr.gettext(board_words.PERIOD_WORDS[period]),
            ),
            empty=board_words.EMPTY_BOARD[period],
            figure=lambda row, key: board_words.sorted_figure(row, key, reader.tr),
        )

    async def season_page(self, reader: Reader) -> str:
        settings = await self.store.seasons.settings(reader.guild.id)
        season = self.seasons.current(settings) if settings is not None else None
        standings = await self.seasons.standings(reader.guild.id, season) if season else []
        last_day = date.fromordinal(season.end.toordinal() - 1) if season else None
        return self._page(
            "seasons.html",
            reader,
            season=season,
            last_day=last_day,
            standings=standings,
            crowns=await self.store.seasons.crowns(reader.guild.id),
            no_seasons=club_words.SEASON_NOTICES["no_seasons"],
            no_champions=club_words.SEASON_NOTICES["no_champions"],
        )

    async def events(self, reader: Reader) -> str:
        found = await self.store.club.events_in(reader.guild.id, ALL_EVENT_STATUSES)
        return self._page("events.html", reader, events=found, status_words=club_words.STATUS_WORDS)

    # ---- an event ------------------------------------------------------------------------------

    async def _event(self, reader: Reader, event_id: int) -> Event:
        event = await self.store.club.load_event(event_id)
        if event is None or event.guild_id != reader.guild.id:
            raise NotShown(404, _bare(club_words.refusal("no_event", reader.tr)))
        return event

    async def event(self, reader: Reader, event_id: int) -> str:
        event = await self._event(reader, event_id)
        view = await self.conductor.view(event)
        tables_per_round = max((t.table_no for t in view.tables if t.round == 1), default=0)
        return self._page(
            "event.html",
            reader,
            event=event,
            view=view,
            names={e.user_id: e.name for e in view.entrants},
            rounds=sorted({t.round for t in view.tables}),
            status_words=club_words.STATUS_WORDS,
            format_words=club_words.FORMAT_WORDS,
            single_table=(
                club_words.SINGLE_TABLE
                if event.format == "duplicate" and tables_per_round == 1
                else None
            ),
            round_title=lambda number, table: club_words.table_title(
                event, number, table, reader.tr
            ),
        )

    async def round(self, reader: Reader, event_id: int, round_number: int) -> str:
        event = await self._event(reader, event_id)
        tables = [t for t in await self.store.club.tables(event.id) if t.round == round_number]
        if event.format != "duplicate" or not tables:
            raise NotShown(404, reader.tr.gettext("There is no such page."))
        entries = []
        for table in sorted(tables, key=lambda t: t.table_no):
            row = await self.store.reads.game(table.game_id) if table.game_id else None
            status = row.status if row is not None else None
            game = _game(row) if row is not None and row.status == "finished" else None
            entries.append(RoundTable(table, status, game, table.game_id))
        return self._page(
            "round.html",
            reader,
            event=event,
            travellers=round_travellers(round_number, entries),
        )

    # ---- a player ------------------------------------------------------------------------------

    async def player(self, reader: Reader, user_id: int) -> str:
        reads = self.store.reads
        stats = await reads.player_stats(guild_id=reader.guild.id, user_id=user_id)
        if stats is None:
            raise NotShown(404, reader.tr.gettext("There is no such page."))
        history = await reads.rating_history(guild_id=reader.guild.id, user_id=user_id)
        return self._page(
            "player.html",
            reader,
            stats=stats,
            chart=rating_chart(history, reader.tr),
            games=await reads.player_games(guild_id=reader.guild.id, user_id=user_id),
            trump_words=lambda key: board_words.trump_words(key, reader.tr),
        )

    # ---- a game --------------------------------------------------------------------------------

    async def _finished(self, reader: Reader, game_id: int) -> tuple[Table, Game, bool]:
        """The finished game, and whether its cards may be shown: not while another table of
        its duplicate round, which holds the same cards, is still playing."""
        row = await self.store.reads.game(game_id)
        tr = reader.tr
        if row is None or row.guild_id != reader.guild.id:
            raise NotShown(404, board_words_no_game(game_id, tr))
        if row.status == "stopped":
            game_name = tr.gettext("Game {game}").format(game=game_id)
            raise NotShown(404, pair(game_name, tr.gettext("stopped, no result"), tr))
        if row.status != "finished" or row.record is None:
            raise NotShown(404, _bare(review_words.refusal("not_finished", tr, game=game_id)))
        game = _game(row)
        if game is None:
            raise NotShown(404, _bare(review_words.refusal("no_played_deal", tr, game=game_id)))
        return row, game, await self._cards_shown(game_id)

    async def _cards_shown(self, game_id: int) -> bool:
        event_id = await self.store.club.event_of_game(game_id)
        if event_id is None:
            return True
        event = await self.store.club.load_event(event_id)
        if event is None or event.format != "duplicate":
            return True
        tables = await self.store.club.tables(event_id)
        mine = next((t for t in tables if t.game_id == game_id), None)
        if mine is None:
            return True
        for table in tables:
            if table.round != mine.round or table.game_id == game_id:
                continue
            other = await self.store.reads.game(table.game_id) if table.game_id else None
            if other is None or other.status not in CLOSED_STATUSES:
                return False
        return True

    async def game(self, reader: Reader, game_id: int) -> str:
        row, game, shown = await self._finished(reader, game_id)
        # The stored review (computed as each game ends where the bot reviews games, or by
        # /kachuful review): a page never starts one, so no reader can set the workers going.
        review = await self.reviewer.stored(game_id) if shown else None
        computing = review is None and self.reviewer.computing(game_id)
        names = [seat.name for seat in row.seats]
        totals = game.totals
        return self._page(
            "game.html",
            reader,
            row=row,
            names=names,
            deals=replay.played_deals(game),
            starts=[i for i, step in enumerate(replay.steps(game)) if step.bids == 0],
            totals=totals,
            order=sorted(range(len(names)), key=lambda seat: -totals[seat]),
            winners=game.winners or (),
            shown=shown,
            hidden_words=round_not_over(reader.tr),
            review=review,
            computing=computing,
            computing_words=review_words.NOTICES["computing"],
            event_id=await self.store.club.event_of_game(game_id),
        )

    async def replay(self, reader: Reader, game_id: int) -> str:
        row, game, shown = await self._finished(reader, game_id)
        if not shown:
            raise NotShown(403, round_not_over(reader.tr))
        step = _number(reader.request.query.get("step"), 1) - 1
        moment = replay.moment(game, [seat.name for seat in row.seats], step)
        if moment is None:
            raise NotShown(404, reader.tr.gettext("There is no such page."))
        return self._page(
            "replay.html",
            reader,
            row=row,
            moment=moment,
            heading=deal_title(game, moment.deal_number - 1, reader.tr),
            action_words=words.action(moment, reader.tr),
        )


def board_words_no_game(game_id: int, tr: Translations) -> str:
    return _bare(render_refusal("no_game", tr, game=game_id))


def _bare(refusal: str) -> str:
    """A refusal of Discord's without its warning sign (a page says it in its own way)."""
    return refusal.removeprefix("⚠️ ")


def round_not_over(tr: Translations) -> str:
    return tr.gettext(
        "Another table of this round is still playing these cards: the hands are shown once "
        "every table of the round has finished."
    )


def _game(row: Table) -> Game | None:
    try:
        game = load_game(row.record or {})
    except RecordError:
        log.warning("game %s: its record cannot be read for a club page", row.id)
        return None
    return game if replay.played_deals(game) else None


def _number(text: str | None, default: int) -> int:
    if text is None or not text.isdigit() or len(text) > 6:
        return default
    return max(int(text), 1)


def _html(body: str, status: int = 200) -> web.Response:
    response = web.Response(text=body, status=status, content_type="text/html")
    response.headers["Cache-Control"] = "no-store"
    return response
