"""The table's domain model: a table, its seats and its options, as plain typed data.

The store (bot/store/table_json.py) converts it to and from the stored JSON; the features
(bot/table/), the renderers (bot/render/) and the commands (cogs/) read and change it. No SQL,
no Discord here, and nothing that imports them: the renderers must not reach the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

from bot.registry import OPTIONS, RULE_DEFAULTS, RULE_OPTIONS

GameStatus = Literal["lobby", "running", "finished", "stopped"]
OPEN_STATUSES: tuple[GameStatus, ...] = ("lobby", "running")
Mode = Literal["trick", "compact", "thread"]
MODES: tuple[Mode, ...] = ("trick", "compact", "thread")


# The keys of the public messages a game's history entry links to: a finished game's final
# standings and a stopped game's closing notice (bot/render/channel.py names its posts so);
# their delivery rows are kept once the game is settled, the others are not.
FINAL_POST_KEY = "final"
END_POST_KEY = "end"
HISTORY_POST_KEYS = (FINAL_POST_KEY, END_POST_KEY)


@dataclass(frozen=True)
class TableOptions:
    """What /kachuful start (and the channel's /kachuful-settings) chose for a table.

    ``rules`` are the game's rules by their names (``bot.registry.RULE_OPTIONS``: every
    registry option that is a field of ``kachuful_core.Rules``), each given or at its default;
    the largest hand may be a length's name, resolved for the seats when the game starts.
    ``turn_seconds``, ``pictures``, ``computers`` and ``computer_levels`` are the channel's
    settings when the table opened, None where the channel had none (the bot's turn clock,
    cards drawn as pictures, computers allowed at every level). ``invited`` are the players of
    the last game asked back by "Play again" (None for a new table). ``language`` is the public
    messages' language, kept from the lobby to the final standings.
    """

    rules: Mapping[str, Any] = field(default_factory=dict)  # filled with the defaults below
    mode: Mode = OPTIONS["mode"].default
    turn_seconds: int | None = None
    pictures: bool | None = None
    computers: bool | None = None
    computer_levels: tuple[str, ...] | None = None
    invited: tuple[int, ...] | None = None
    # The language of the table's public messages (bot/i18n.py), fixed when the table opens;
    # None for a table opened before languages existed (English).
    language: str | None = None
    # An event's table (docs/events.md): "<event> · round r · table t", shown at the head of
    # the table's thread; None for a casual table.
    event_title: str | None = None
    # Keys of the stored JSON this version does not know (a later version wrote them): kept and
    # written back, so running an older bot on a newer database loses nothing.
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # Options an older version's row did not state: they take the default here and are not
    # written back while they keep it, so a row read and saved again is unchanged.
    unstated: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = set(self.rules) - set(RULE_OPTIONS)
        if unknown:
            raise TypeError(f"no game rule {sorted(unknown)}")
        # Every rule present, given or at its default; read-only, as the options are frozen.
        object.__setattr__(self, "rules", MappingProxyType({**RULE_DEFAULTS, **self.rules}))

    @classmethod
    def of(cls, **chosen: Any) -> TableOptions:
        """Options from keyword arguments, the game's rules among them by name."""
        rules = {k: v for k, v in chosen.items() if k in RULE_OPTIONS}
        return cls(rules=rules, **{k: v for k, v in chosen.items() if k not in RULE_OPTIONS})

    def with_rules(self, **rules: Any) -> TableOptions:
        """These options with some rules changed."""
        return replace(self, rules={**self.rules, **rules})


@dataclass
class Seat:
    """One seat at a table.

    ``user_id`` is the Discord user sitting there, or None for a computer player.
    ``away`` is set after repeated time-outs: the computer plays the seat until its owner
    clicks "I'm back". ``timeouts`` counts consecutive time-outs. ``left_user_id`` remembers
    a player who left a running game (their seat is then a computer player).
    ``looked_deal`` is the deal in which the seat looked at its hand (blind bids): looking
    is not a move of the game record, so it is kept here to survive a restart.
    ``claimed`` lists the seat's claims as (deal index, first trick claimed): the record holds
    only the cards the claim played, so the channel learns from here to say "as claimed".
    ``single_card``: the player's choice to have a single legal card played for them;
    ``confirm_cards``: to confirm each card before it counts (bot/table/choices.py).
    """

    user_id: int | None
    name: str
    away: bool = False
    timeouts: int = 0
    left_user_id: int | None = None
    looked_deal: int | None = None
    # The level of a computer seat (kachuful_core.players.LEVELS); None: a human's seat, or a
    # computer seat made before levels existed (played at the heuristic level).
    level: str | None = None
    claimed: list[tuple[int, int]] = field(default_factory=list)
    single_card: bool = False
    confirm_cards: bool = False

    @property
    def is_computer(self) -> bool:
        return self.user_id is None

    @property
    def computer_plays(self) -> bool:
        """True when nobody is clicking for this seat: a computer seat or an away player."""
        return self.user_id is None or self.away


@dataclass
class Table:
    """Everything kept about one table."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: GameStatus
    options: TableOptions
    max_seats: int
    seats: list[Seat]
    created_at: datetime
    updated_at: datetime
    version: int = 0
    seed: str | None = None
    record: dict[str, Any] | None = None
    message_id: int | None = None
    # Why the game ended without a result (see migration 0002), for its public notice.
    ended: str | None = None
    # False while the publisher still owes the channel messages of a closed game.
    settled: bool = True

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None


def mode_of(row: Table) -> Mode:
    """How a table is shown (a mode an older or newer release wrote is shown per trick)."""
    mode = row.options.mode
    return mode if mode in MODES else "trick"
