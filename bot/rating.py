"""Player ratings: openskill's Plackett–Luce model, one rating per player per server.

Pure arithmetic, no SQL and no Discord: the store calls :func:`rate_game` inside the
transaction that marks a game finished, with the ratings it read in that same transaction.

- Every seat is a team of one; the final order is by score, and seats with the same score
  share a place (a tie for the model).
- A computer seat plays at a fixed strength per level (:data:`COMPUTER_RATINGS`): the model
  sees it like any opponent, but its rating is never updated and it is never ranked.
- A rating is shown as a conservative number, :func:`shown`: ``1000 + 40 × (μ − 3σ)``. A new
  player (μ 25, σ 25/3) shows 1000; the number grows as games make the model surer (σ falls)
  and as results are good (μ rises), so a few lucky wins do not top the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
START_MU = float(MODEL.mu)
START_SIGMA = float(MODEL.sigma)

# Fixed strengths of the computer levels (μ, σ). A small σ says "this is known": the model
# then moves the human players, not its idea of the computer. The heuristic player is put at
# a new human's μ; the others a little below and above it. An unknown level (say, added after
# this release) is treated as the heuristic one.
DEFAULT_LEVEL = "heuristic"
COMPUTER_RATINGS: dict[str, tuple[float, float]] = {
    "random": (15.0, 1.0),
    "heuristic": (25.0, 1.0),
    "search": (30.0, 1.0),  # kachuful_core.players.SearchPlayer, the strongest level
    "strong": (30.0, 1.0),  # the name the strongest level had in the plans
}

SHOWN_BASE = 1000
SHOWN_SCALE = 40


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate μ − 3σ (what the leaderboard sorts by)."""
        return self.mu - 3 * self.sigma


NEW_PLAYER = Skill(START_MU, START_SIGMA)


def shown(ordinal: float) -> int:
    """The rating as players read it."""
    return round(SHOWN_BASE + SHOWN_SCALE * ordinal)


def computer_skill(level: str | None) -> Skill:
    mu, sigma = COMPUTER_RATINGS.get(level or DEFAULT_LEVEL, COMPUTER_RATINGS[DEFAULT_LEVEL])
    return Skill(mu, sigma)


def places(scores: Sequence[int]) -> list[int]:
    """1 for the best score; equal scores share a place (1, 1, 3, ...)."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a finished game: a player's rating before the game, or a computer."""

    score: int
    skill: Skill | None  # None: a computer seat
    level: str | None = None


def rate_game(seats: Sequence[RatedSeat]) -> list[Skill | None]:
    """The players' ratings after a game, by seat (None for computer seats)."""
    if not any(seat.skill is not None for seat in seats):
        return [None] * len(seats)
    teams = []
    for seat in seats:
        skill = seat.skill if seat.skill is not None else computer_skill(seat.level)
        teams.append([MODEL.rating(mu=skill.mu, sigma=skill.sigma)])
    rated = MODEL.rate(teams, ranks=[float(place) for place in places([s.score for s in seats])])
    return [
        None if seat.skill is None else Skill(float(team[0].mu), float(team[0].sigma))
        for seat, team in zip(seats, rated, strict=True)
    ]
