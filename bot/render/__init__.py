"""Every word a player reads: pure functions from state and events to message specs."""

from __future__ import annotations

from .hand import hand_message
from .info import general_rules, help_message
from .specs import ButtonSpec, MessageSpec, check_limits
from .table import (
    action_posts,
    deal_table,
    draw,
    final_standings,
    game_rules,
    idle_stopped,
    leaderboard,
    lobby,
    lobby_rules,
    lobby_started,
    restored_table,
    scoreboard,
    stopped,
    timed_out,
)
from .words import (
    computer_name,
    engine_error,
    missing_permissions,
    notice,
    refusal,
    refused_move,
)

__all__ = [
    "ButtonSpec",
    "MessageSpec",
    "action_posts",
    "check_limits",
    "computer_name",
    "deal_table",
    "draw",
    "engine_error",
    "final_standings",
    "game_rules",
    "general_rules",
    "hand_message",
    "help_message",
    "idle_stopped",
    "leaderboard",
    "lobby",
    "lobby_rules",
    "lobby_started",
    "missing_permissions",
    "notice",
    "refusal",
    "refused_move",
    "restored_table",
    "scoreboard",
    "stopped",
    "timed_out",
]
