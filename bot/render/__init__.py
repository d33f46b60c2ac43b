"""Every word a player reads: pure functions from state and events to message specs."""

from __future__ import annotations

from .cards import label as card_label
from .hand import hand_expired, hand_message
from .info import general_rules, help_message
from .specs import ButtonSpec, MessageSpec, check_limits
from .table import (
    final_standings,
    game_rules,
    level_chooser,
    lobby,
    lobby_rules,
    lobby_started,
    scoreboard,
    start_message,
)
from .words import (
    computer_name,
    engine_error,
    missing_permissions,
    notice,
    refusal,
    refused_move,
    thread_fallback,
    thread_in_thread,
)

__all__ = [
    "ButtonSpec",
    "MessageSpec",
    "card_label",
    "check_limits",
    "computer_name",
    "engine_error",
    "final_standings",
    "game_rules",
    "general_rules",
    "hand_expired",
    "hand_message",
    "help_message",
    "level_chooser",
    "lobby",
    "lobby_rules",
    "lobby_started",
    "missing_permissions",
    "notice",
    "refusal",
    "refused_move",
    "scoreboard",
    "start_message",
    "thread_fallback",
    "thread_in_thread",
]
