"""Computer players for Kachuful: a :class:`Player` interface, a random baseline, a fast
heuristic, a search player, the :data:`LEVELS` a table can choose from, :func:`act`, which
lets a player take a seat's turn in a game, and :func:`decide`, one decision as a pure
function for a worker process."""

from .base import Player, act
from .heuristic import HeuristicPlayer
from .levels import LEVEL_LABELS, LEVELS, Decision, apply_decision, decide, warm_up
from .random_player import RandomPlayer
from .search import SearchPlayer

__all__ = [
    "LEVELS",
    "LEVEL_LABELS",
    "Decision",
    "HeuristicPlayer",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "act",
    "apply_decision",
    "decide",
    "warm_up",
]
