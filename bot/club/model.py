"""An event as plain typed data, apart from the SQL (bot/store/club.py) and from Discord."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from bot.model import TableOptions

EventStatus = Literal["registering", "running", "paused", "finished", "closed"]
OPEN_EVENT_STATUSES: tuple[EventStatus, ...] = ("registering", "running", "paused")
ALL_EVENT_STATUSES: tuple[EventStatus, ...] = (*OPEN_EVENT_STATUSES, "finished", "closed")
EntrantStatus = Literal["registered", "withdrawn", "dropped"]

# An event seats at least this many players (computers fill the rest of the tables).
MIN_PLAYERS = 2


@dataclass
class Event:
    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: str  # kachuful_core.club.FORMATS
    table_size: int
    rounds: int
    level: str  # the level of the computer players who fill seats
    options: TableOptions
    status: EventStatus
    round: int  # rounds seated so far
    created_at: datetime
    updated_at: datetime
    starts_at: datetime | None = None
    scheduled_event_id: int | None = None
    message_id: int | None = None
    reminded: bool = False
    # Its message shows its end: until then a finished or closed event is looked at again at
    # every start, so a crash right after its end cannot leave the message showing a round.
    settled: bool = False
    version: int = 0


@dataclass(frozen=True)
class Entrant:
    user_id: int
    name: str
    status: EntrantStatus
    remind_by_dm: bool = False


@dataclass(frozen=True)
class EventSeat:
    user_id: int | None  # None: a computer player
    name: str


@dataclass(frozen=True)
class EventTable:
    event_id: int
    round: int  # 1-based
    table_no: int  # 1-based
    seats: tuple[EventSeat, ...]
    seed: str
    thread_id: int | None = None
    game_id: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        return (self.round, self.table_no)


@dataclass(frozen=True)
class SeasonSettings:
    """A server's seasons: their kind, where champions are announced, the champions' role."""

    guild_id: int
    kind: str  # kachuful_core.club.KINDS
    channel_id: int
    since: date  # seasons that ended before this day are not crowned
    first_day: date | None = None  # a season between dates
    last_day: date | None = None
    role_id: int | None = None


@dataclass(frozen=True)
class SeasonPlayer:
    user_id: int
    name: str
    rank: int
    points: float
    wins: int
    games: int


@dataclass(frozen=True)
class Crown:
    """A season that ended, its final standings (champions: rank 1), and what of its
    announcement is done."""

    guild_id: int
    season: str
    first_day: date
    end_day: date
    standings: tuple[SeasonPlayer, ...]
    channel_id: int
    role_id: int | None = None
    message_id: int | None = None
    roles_done: bool = False

    @property
    def champions(self) -> tuple[SeasonPlayer, ...]:
        return tuple(p for p in self.standings if p.rank == 1)
