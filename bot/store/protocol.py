"""What the rest of the bot may ask of the store: the operations bot/ and cogs/ call.

One implementation, :class:`bot.store.store.Store`, serves both engines (SQLite, PostgreSQL) through
SQLAlchemy Core and the engine-specific module (:mod:`bot.store.drivers`); which one is chosen
in one place, from the settings (``Settings.database``, given to ``Store.open``). Callers
type their store as :class:`GameStore` and never see which engine is under it; mypy checks
that ``Store`` has every operation named here (see the end of ``bot/store/store.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from bot.model import GameStatus, Seat, Table, TableOptions
from bot.shards import Shards

from .failures import FailureLog
from .values import Delivered, GameRef, ResultRow

if TYPE_CHECKING:
    from .club import Club
    from .learning import Practices, Reviews
    from .reads import Reads
    from .scorepads import ScorePads
    from .seasons import Seasons


class GameStore(Protocol):
    """The store's operations (see :class:`bot.store.store.Store` for what each one promises).
    Awaitables rather than coroutines: the store's methods are wrapped (lock, failures)."""

    failures: FailureLog

    def busy(self) -> bool: ...

    @property
    def reads(self) -> Reads: ...

    @property
    def club(self) -> Club: ...

    @property
    def seasons(self) -> Seasons: ...

    @property
    def reviews(self) -> Reviews: ...

    @property
    def practice(self) -> Practices: ...

    @property
    def scorepads(self) -> ScorePads: ...

    def describe(self) -> str: ...

    def close(self) -> Awaitable[None]: ...

    def check_writable(self) -> Awaitable[None]: ...

    # ---- games: every write checks the stored version (StaleWrite when it moved on)

    def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: TableOptions,
        max_seats: int,
        seats: Sequence[Seat],
        lobby_token: str | None = None,
    ) -> Awaitable[Table]: ...

    def save_game(
        self,
        game: Table,
        *,
        record: str | None = None,
        previous_version: int | None = None,
        results: Iterable[ResultRow] = (),
    ) -> Awaitable[None]: ...

    def set_message_id(self, game_id: int, message_id: int | None) -> Awaitable[None]: ...

    def lobby_token(self, game_id: int) -> Awaitable[str | None]: ...

    def load_game(self, game_id: int) -> Awaitable[Table | None]: ...

    def open_game_in_channel(self, channel_id: int) -> Awaitable[Table | None]: ...

    def latest_game_in_channel(
        self, channel_id: int, statuses: Sequence[GameStatus] = ("finished",)
    ) -> Awaitable[Table | None]: ...

    def games_with_status(self, *statuses: GameStatus) -> Awaitable[list[Table]]: ...

    def open_games(self, shards: Shards = ...) -> Awaitable[tuple[list[Table], list[GameRef]]]: ...

    def unsettled_games(self, shards: Shards = ...) -> Awaitable[list[Table]]: ...

    def settle(self, game_id: int) -> Awaitable[None]: ...

    def stop_open_game(self, game_id: int) -> Awaitable[bool]: ...

    def results_for_game(self, game_id: int) -> Awaitable[list[ResultRow]]: ...

    # ---- what was delivered to Discord (the publisher's bookkeeping)

    def delivered(self, game_id: int) -> Awaitable[dict[str, Delivered]]: ...

    def mark_delivered(self, game_id: int, key: str, delivered: Delivered) -> Awaitable[None]: ...

    def forget_delivered(self, game_id: int, key: str) -> Awaitable[None]: ...

    def save_hand(
        self,
        game_id: int,
        user_id: int,
        token: str,
        opened_at: datetime,
        message_id: int | None = None,
        language: str | None = None,
    ) -> Awaitable[None]: ...

    def drop_hand(self, game_id: int, user_id: int) -> Awaitable[None]: ...

    def open_hands(
        self, game_id: int
    ) -> Awaitable[dict[int, tuple[str, datetime, int | None, str | None]]]: ...

    # ---- settings and the bot's own state

    def channel_settings(self, channel_id: int) -> Awaitable[dict[str, Any]]: ...

    def set_channel_settings(
        self, *, guild_id: int, channel_id: int, settings: dict[str, Any], updated_by: int
    ) -> Awaitable[None]: ...

    def bot_state(self, key: str) -> Awaitable[str | None]: ...

    def set_bot_state(self, key: str, value: str) -> Awaitable[None]: ...

    def claim_interval(self, key: str, now_ms: int, spacing_ms: int) -> Awaitable[int]: ...
