"""Club play: events of several rounds over several tables (docs/events.md).

Pure rules, like the rest of the engine: how players are seated each round (rotation, or the
same seating for duplicate play, where every table of a round plays the same deals) and how
finished tables are scored into an event's standings. No Discord, no storage, no clock.
"""

from .scoring import (
    FORMATS,
    MIN_EVENT_PLAYERS,
    Standing,
    TableResult,
    deal_matchpoints,
    duplicate_points,
    event_standings,
    round_points,
    table_points,
    table_seeds,
)
from .seasons import KINDS, Season, SeasonStanding, last_ended, season_of, season_standings
from .seating import computer_seats, meetings, seat_round, table_count

__all__ = [
    "FORMATS",
    "KINDS",
    "MIN_EVENT_PLAYERS",
    "Season",
    "SeasonStanding",
    "Standing",
    "TableResult",
    "computer_seats",
    "deal_matchpoints",
    "duplicate_points",
    "event_standings",
    "last_ended",
    "meetings",
    "round_points",
    "season_of",
    "season_standings",
    "seat_round",
    "table_count",
    "table_points",
    "table_seeds",
]
