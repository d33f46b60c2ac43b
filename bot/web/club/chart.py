"""A player's rating over their games, drawn on the server as an SVG line (no script, no
image to make: the template writes the few numbers this computes; the page scales it).

The rating is the one the leaderboard shows (``bot.rating.shown``: 1000 + 40 × (μ − 3σ)),
after each rated game in the server, oldest first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.i18n import Translations
from bot.rating import shown
from bot.render import numbers

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 32


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: int  # the plot's right edge
    top: int
    bottom: int  # the plot's lower edge
    points: str  # the polyline's "x,y x,y ..."
    dots: tuple[tuple[float, float, int, int], ...]  # x, y, rating, game id
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    first: int
    last: int


def _step(span: float) -> int:
    """A round step giving about four grid lines over ``span`` (10, 20, 25, 50, 100 …)."""
    raw = max(span / 4, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)) or 1


def rating_chart(history: list[tuple[int, float]], tr: Translations) -> Chart | None:
    """The chart of ``history`` ((game id, ordinal) oldest first), None for no rated game."""
    if not history:
        return None
    ratings = [shown(ordinal) for _game, ordinal in history]
    low, high = min(ratings), max(ratings)
    step = _step(high - low)
    low = step * math.floor(low / step)
    high = max(step * math.ceil(high / step), low + step)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    count = len(ratings)

    def x(index: int) -> float:
        return LEFT + (plot_w * index / (count - 1) if count > 1 else plot_w / 2)

    def y(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    dots = tuple(
        (round(x(i), 1), round(y(r), 1), r, game)
        for i, (r, (game, _o)) in enumerate(zip(ratings, history, strict=True))
    )
    y_ticks = tuple(Tick(round(y(v), 1), numbers.whole(v, tr)) for v in range(low, high + 1, step))
    every = max(1, _step(count))
    x_ticks = tuple(
        Tick(round(x(i), 1), numbers.whole(i + 1, tr))
        for i in range(count)
        if (i + 1) % every == 0 or i == 0
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=HEIGHT - BOTTOM,
        points=" ".join(f"{px},{py}" for px, py, _r, _g in dots),
        dots=dots,
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        first=ratings[0],
        last=ratings[-1],
    )
