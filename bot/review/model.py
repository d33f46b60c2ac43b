"""The stored state of a practice deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PracticeDeal:
    """One practice deal: ``record`` is the deal so far (``kachuful-record/1``, one deal);
    the player holds ``seat``, computer players of ``level`` hold the others. ``version``
    counts its moves: a click on an older message is refused, not applied twice."""

    id: int
    user_id: int
    seat: int
    level: str
    source_game: int | None
    record: dict[str, Any]
    hints: int
    version: int
