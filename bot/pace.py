"""How long a game takes at a table's pace: the estimate the lobby shows.

A game is its moves (each seat bids once a deal and plays one card a trick) at the pace of the
seat that makes each: a human's move takes :data:`HUMAN_MOVE_SECONDS` on average (a bid is
slower and a forced card faster; never more than the table's turn clock), a computer's the
bot's pause before it acts (KACHUFUL_BOT_DELAY_SECONDS). Each deal adds
:data:`DEAL_SECONDS` for reading the new hand and the scores.
"""

from __future__ import annotations

from dataclasses import dataclass

from kachuful_core import Rules

# A human's bid or card, on average, from being asked to the click (the hand message open,
# its buttons read): 8 s makes a 4-player full game about two hours, as a table plays it.
HUMAN_MOVE_SECONDS = 8.0
DEAL_SECONDS = 5.0


@dataclass(frozen=True)
class Pace:
    human_move: float  # seconds a human takes for one bid or card
    computer_move: float  # seconds the computer waits before each of its moves


def table_pace(turn_seconds: float, computer_delay: float) -> Pace:
    return Pace(human_move=min(HUMAN_MOVE_SECONDS, turn_seconds), computer_move=computer_delay)


DEFAULT_PACE = table_pace(90.0, 1.5)


def game_seconds(rules: Rules, humans: int, pace: Pace) -> float:
    """The estimated length of a game of ``rules`` with ``humans`` of its seats played by
    people (the others by the computer)."""
    humans = max(0, min(humans, rules.players))
    # Per deal of h cards every seat makes h + 1 moves: its bid and a card a trick.
    seat_moves = sum(size + 1 for size in rules.hand_sizes)
    per_round = humans * pace.human_move + (rules.players - humans) * pace.computer_move
    return seat_moves * per_round + rules.num_deals * DEAL_SECONDS


def rounded_minutes(seconds: float) -> int:
    """A duration as a person estimates it, in minutes: 0 under a minute, to the minute under
    ten minutes, else to five (the words are bot/render/words.py: duration_text)."""
    minutes = seconds / 60
    if minutes < 1:
        return 0
    return round(minutes) if minutes < 10 else 5 * round(minutes / 5)
