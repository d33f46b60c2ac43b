"""The table options of docs/rules.md §2 as one validated model, and what follows from them."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .cards import Suit

ScheduleName = Literal["down-up", "down", "double"]
TrumpName = Literal["cycle", "cycle-notrump", "turned"]
ScoringName = Literal["exact", "penalty", "per-trick", "judgement"]
# A game's length (RULES.md §2): a preset over the largest hand; the schedule is chosen apart.
LengthName = Literal["quick", "classic", "full"]

MIN_PLAYERS = 3
MAX_PLAYERS = 7
# Trump cycle of docs/rules.md §1: spades, diamonds, clubs, hearts (suit ids S=0 H=1 D=2 C=3).
TRUMP_CYCLE: tuple[Suit | None, ...] = (0, 2, 3, 1)
TRUMP_CYCLE_NOTRUMP: tuple[Suit | None, ...] = (0, 2, 3, 1, None)
CLASSIC_MAX_HAND = {3: 10, 4: 10, 5: 10, 6: 8, 7: 7}
# The quick game's largest hand: 5 cards fit every table (52 ÷ 7 = 7), so down and up is
# 5 4 3 2 1 2 3 4 5, nine deals whatever the number of players.
QUICK_MAX_HAND = 5
LENGTHS: tuple[LengthName, ...] = ("quick", "classic", "full")
DEFAULT_LENGTH: LengthName = "full"


def largest_hand(players: int) -> int:
    return 52 // players


def length_max_hand(length: LengthName, players: int) -> int:
    """The largest hand of a game of this ``length`` for ``players``: quick 5, classic the
    guides' 10 / 8 / 7, full the whole deck (52 ÷ players, the rules' default)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"{players} players: a table has {MIN_PLAYERS} to {MAX_PLAYERS}")
    if length == "quick":
        return QUICK_MAX_HAND
    if length == "classic":
        return CLASSIC_MAX_HAND[players]
    if length == "full":
        return largest_hand(players)
    raise ValueError(f"unknown length {length!r}: one of {', '.join(LENGTHS)}")


def schedule_sizes(schedule: ScheduleName, top: int) -> tuple[int, ...]:
    down = tuple(range(top, 0, -1))
    up = tuple(range(2, top + 1))
    if schedule == "down":
        return down
    if schedule == "down-up":
        return down + up
    # "double": the down-and-up run twice, sharing the middle top hand.
    return down + up + down[1:] + up


def made_bid(bid: int, tricks: int) -> bool:
    """Whether a seat made its bid: it took exactly the tricks it bid (an exact bid)."""
    return bid == tricks


class Rules(BaseModel):
    """Every table option, with its default; invalid combinations are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    max_hand: int | None = Field(default=None, ge=1)
    schedule: ScheduleName = "down-up"
    trump: TrumpName = "cycle"
    hook: bool = True
    scoring: ScoringName = "exact"
    blind_bids: bool = False
    forehead: bool = False

    @model_validator(mode="before")
    @classmethod
    def _fill_max_hand(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("max_hand") is None:
            players = data.get("players")
            if isinstance(players, int) and MIN_PLAYERS <= players <= MAX_PLAYERS:
                data = {**data, "max_hand": largest_hand(players)}
        return data

    @model_validator(mode="after")
    def _check_max_hand(self) -> Rules:
        limit = largest_hand(self.players)
        if self.max_hand is not None and self.max_hand > limit:
            raise ValueError(
                f"max_hand {self.max_hand} is too large for {self.players} players "
                f"(52 cards allow at most {limit} each)"
            )
        return self

    @classmethod
    def classic(cls, players: int, **options: Any) -> Rules:
        """The guides' "classic" preset: 10 cards for 3-5 players, 8 for 6, 7 for 7."""
        return cls(players=players, max_hand=CLASSIC_MAX_HAND.get(players), **options)

    @classmethod
    def of_length(cls, players: int, length: LengthName, **options: Any) -> Rules:
        """A game of this length (quick, classic or full) with the other options given; its
        record keeps the hand sizes as ``max_hand`` (there is no length in a record)."""
        return cls(players=players, max_hand=length_max_hand(length, players), **options)

    @property
    def top(self) -> int:
        assert self.max_hand is not None  # filled by the validator
        return self.max_hand

    @cached_property
    def hand_sizes(self) -> tuple[int, ...]:
        return schedule_sizes(self.schedule, self.top)

    @property
    def num_deals(self) -> int:
        return len(self.hand_sizes)

    def trump_for(self, deal_index: int) -> Suit | None:
        """Trump of a deal by the cycle; None for no-trump and for turned trump (known later)."""
        if self.trump == "cycle":
            return TRUMP_CYCLE[deal_index % 4]
        if self.trump == "cycle-notrump":
            return TRUMP_CYCLE_NOTRUMP[deal_index % 5]
        return None

    def score(self, bid: int, tricks: int, blind: bool = False) -> int:
        exact = made_bid(bid, tricks)
        if self.scoring == "exact":
            points = 10 + bid if exact else 0
        elif self.scoring == "penalty":
            points = 10 + bid if exact else -abs(tricks - bid)
        elif self.scoring == "per-trick":
            points = tricks + 10 if exact else tricks
        else:  # judgement
            points = 10 if exact else -10
        return points * 2 if exact and blind else points

    def forbidden_bid(self, hand_size: int, others_total: int) -> int | None:
        """The dealer's forbidden bid under the hook rule, or None when none is in range."""
        if not self.hook:
            return None
        forbidden = hand_size - others_total
        return forbidden if 0 <= forbidden <= hand_size else None

    def is_forehead_deal(self, hand_size: int) -> bool:
        return self.forehead and hand_size == 1

    def options(self) -> dict[str, Any]:
        """All options by their record names (docs/record-format.md `rules`)."""
        return self.model_dump()
