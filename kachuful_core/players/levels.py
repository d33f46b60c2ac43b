"""Levels a table can choose for a computer seat, weakest first."""

from __future__ import annotations

from collections.abc import Callable

from .base import Player
from .heuristic import HeuristicPlayer
from .random_player import RandomPlayer

LEVELS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "heuristic": HeuristicPlayer,
}
