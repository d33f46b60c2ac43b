"""A score pad as stored: its players, rules and record, and where its results count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.model import TableOptions

PadStatus = Literal["open", "running", "finished", "stopped"]
Board = Literal["together", "apart"]
BOARD_KEY = "scorepad_boards:{guild}"  # bot_state: a server's choice for its pads' results


@dataclass
class PadSeat:
    user_id: int
    name: str


@dataclass
class Pad:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: PadStatus
    seats: list[PadSeat]
    options: TableOptions  # as chosen; the record holds the rules once the pad starts
    record: dict[str, Any] | None = None
    message_id: int | None = None
    version: int = 1
    board: Board | None = None
    shown: int = 0  # the version its public message shows


def board_guild(guild_id: int, board: Board) -> int:
    """Where a pad's results are counted: with the server's online games, or apart, on the
    server's own boards of real-card games (kept under the server's id negated, so that every
    board, rating and statistic of the bot serves them unchanged)."""
    return guild_id if board == "together" else -guild_id


def pad_game_id(pad_id: int) -> int:
    """A pad's number where a game's is expected (rating history): negative, apart from games."""
    return -pad_id
