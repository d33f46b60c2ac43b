"""Every word a player reads: pure functions from state and events to message specs.

The names below are loaded when first used (PEP 562's module ``__getattr__``): importing
``bot.render`` loads none of its modules, so the change path, which needs only the words of
``words`` and ``cards``, never loads the modules that build Discord messages (``specs``,
``hand``, ``table``...) nor the ``discord`` package they import."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each name of the package: (its module, its name there).
_NAMES = {
    "ButtonSpec": ("specs", "ButtonSpec"),
    "MessageSpec": ("specs", "MessageSpec"),
    "card_label": ("cards", "label"),
    "check_limits": ("specs", "check_limits"),
    "computer_name": ("words", "computer_name"),
    "engine_error": ("words", "engine_error"),
    "final_standings": ("table", "final_standings"),
    "game_rules": ("table", "game_rules"),
    "general_rules": ("info", "general_rules"),
    "hand_expired": ("hand", "hand_expired"),
    "hand_message": ("hand", "hand_message"),
    "help_message": ("info", "help_message"),
    "level_chooser": ("table", "level_chooser"),
    "lobby": ("table", "lobby"),
    "lobby_rules": ("table", "lobby_rules"),
    "lobby_started": ("table", "lobby_started"),
    "missing_permissions": ("words", "missing_permissions"),
    "notice": ("words", "notice"),
    "refusal": ("words", "refusal"),
    "refused_move": ("words", "refused_move"),
    "scoreboard": ("table", "scoreboard"),
    "start_message": ("table", "start_message"),
    "thread_fallback": ("words", "thread_fallback"),
    "thread_in_thread": ("words", "thread_in_thread"),
}

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    """A name of the package, or one of its modules (``render.words``), loaded at first use."""
    if name in _NAMES:
        module, attribute = _NAMES[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    elif not name.startswith("_"):
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as missing:
            raise AttributeError(name) from missing
    else:
        raise AttributeError(name)
    globals()[name] = value
    return value


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
