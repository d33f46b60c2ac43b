"""Computer players for Kachuful: a :class:`Player` interface, a random baseline, a fast
heuristic, and :func:`act`, which lets a player take a seat's turn in a game."""

from .base import Player, act
from .heuristic import HeuristicPlayer
from .levels import LEVELS
from .random_player import RandomPlayer

__all__ = ["LEVELS", "HeuristicPlayer", "Player", "RandomPlayer", "act"]
