"""Settings from the environment and `.env`, checked once at start-up.

Anything wrong gives :class:`SettingsError` with one line a server admin can act on; the bot
token's value is never part of any message.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.registry import TURN_SECONDS

TOKEN_HELP = (
    "get one at the Discord Developer Portal → Applications → your app → Bot → Reset Token, "
    "and put it in .env as DISCORD_TOKEN=..."
)

# Three dot-separated base64url parts (user id, timestamp, HMAC). Only the shape is checked
# here; Discord itself decides at login whether the token is valid.
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class SettingsError(Exception):
    """A setting is missing or invalid; ``str(error)`` is one line for the operator."""


class Settings(BaseSettings):
    """Every setting of the bot. Environment variables win over `.env`."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    discord_token: SecretStr = Field(
        validation_alias=AliasChoices("DISCORD_TOKEN", "discord_token")
    )
    db_path: Path = Field(
        default=Path("data/kachuful.sqlite3"),
        validation_alias=AliasChoices("KACHUFUL_DB_PATH", "db_path"),
    )
    # postgresql://user:password@host/database: the store on PostgreSQL (unset: the SQLite
    # file at db_path). Secret: its password is never shown.
    database_url: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("KACHUFUL_DATABASE_URL", "database_url"),
    )
    dev_guild_id: int | None = Field(
        default=None,
        gt=0,
        validation_alias=AliasChoices("KACHUFUL_DEV_GUILD_ID", "dev_guild_id"),
    )
    sync_global: bool = Field(
        default=False, validation_alias=AliasChoices("KACHUFUL_SYNC_GLOBAL", "sync_global")
    )
    log_level: LogLevel = Field(
        default="INFO", validation_alias=AliasChoices("LOG_LEVEL", "log_level")
    )
    # The same range as /kachuful-settings turn_seconds (bot.registry.TURN_SECONDS).
    turn_seconds: float = Field(
        default=90.0,
        ge=TURN_SECONDS[0],
        le=TURN_SECONDS[1],
        validation_alias=AliasChoices("KACHUFUL_TURN_SECONDS", "turn_seconds"),
    )
    lobby_timeout_seconds: float = Field(
        default=900.0,
        ge=10,
        le=7 * 24 * 3600,
        validation_alias=AliasChoices("KACHUFUL_LOBBY_TIMEOUT_SECONDS", "lobby_timeout_seconds"),
    )
    bot_delay_seconds: float = Field(
        default=1.5,
        ge=0,
        le=30,
        validation_alias=AliasChoices("KACHUFUL_BOT_DELAY_SECONDS", "bot_delay_seconds"),
    )
    # A running table where every seat is played by the computer (everyone away) is paused;
    # after this many hours paused with nothing happening it is closed like /kachuful stop.
    idle_hours: float = Field(
        default=24.0,
        ge=1,
        le=30 * 24,
        validation_alias=AliasChoices("KACHUFUL_IDLE_HOURS", "idle_hours"),
    )
    # Worker processes for the slow computer level (search): its decisions run there, off the
    # event loop. 0 decides in the bot's own process (for tests and tiny hosts).
    computer_workers: int = Field(
        default=1,
        ge=0,
        le=8,
        validation_alias=AliasChoices("KACHUFUL_COMPUTER_WORKERS", "computer_workers"),
    )

    # Review each finished game as it ends (off the event loop, in the computer players'
    # workers; not with computer_workers 0), so that its Review button answers at once; off: a
    # review is computed the first time someone asks for it.
    review_games: bool = Field(
        default=True,
        validation_alias=AliasChoices("KACHUFUL_REVIEW_GAMES", "review_games"),
    )

    # Discord's gateway shards across every process of the bot, and those this process holds
    # (None: all of them). Without shard_count the bot connects unsharded, as before.
    shard_count: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        validation_alias=AliasChoices("KACHUFUL_SHARD_COUNT", "shard_count"),
    )
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        default=None,
        validation_alias=AliasChoices("KACHUFUL_SHARD_IDS", "shard_ids"),
    )

    # The web table (bot/web, docs/web.md): off unless a port is set. The public base URL is
    # where players' browsers (and Discord's Activity proxy) reach it; the client secret is the
    # application's, for Discord's OAuth2 login; Discord's address can be set for a stand-in.
    web_port: int | None = Field(
        default=None, ge=0, le=65535, validation_alias=AliasChoices("KACHUFUL_WEB_PORT", "web_port")
    )
    web_host: str = Field(
        default="127.0.0.1", validation_alias=AliasChoices("KACHUFUL_WEB_HOST", "web_host")
    )
    web_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("KACHUFUL_WEB_BASE_URL", "web_base_url")
    )
    discord_client_id: int | None = Field(
        default=None,
        gt=0,
        validation_alias=AliasChoices("KACHUFUL_DISCORD_CLIENT_ID", "discord_client_id"),
    )
    discord_client_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("KACHUFUL_DISCORD_CLIENT_SECRET", "discord_client_secret"),
    )
    discord_url: str = Field(
        default="https://discord.com",
        validation_alias=AliasChoices("KACHUFUL_DISCORD_URL", "discord_url"),
    )
    # Open the table launches the application's Activity inside Discord (where the operator
    # has enabled Activities for the application) instead of linking to the browser table.
    activity: bool = Field(
        default=False, validation_alias=AliasChoices("KACHUFUL_ACTIVITY", "activity")
    )

    @field_validator("web_base_url", "discord_url", mode="after")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not re.match(r"^https?://[^/\s]+(/[^\s]*)?$", value):
            raise ValueError("expected an address such as https://cards.example.org")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        # "0,1" in the environment; a list or tuple when given in code.
        if not isinstance(value, str):
            return value
        parts = [part.strip() for part in value.split(",")]
        if not all(part.isdigit() for part in parts):
            raise ValueError("shard_ids_format")
        return tuple(int(part) for part in parts)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("database_url", mode="after")
    @classmethod
    def _database_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        from bot.store.drivers import check_url
        from bot.store.failures import StoreError

        url = value.get_secret_value().strip()
        try:
            check_url(url)
        except StoreError as error:
            raise ValueError(str(error)) from None
        return SecretStr(url)

    @property
    def database(self) -> str | Path:
        """Where the store is: the database URL when set (PostgreSQL), else the SQLite file
        (the one place the backend is chosen: the engine's driver is the one that claims it,
        bot/store/drivers.py; bot.store.store.Store.open takes either)."""
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        return self.db_path

    @field_validator("discord_token", mode="after")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        token = value.get_secret_value().strip()
        # docker run --env-file (unlike a shell, python-dotenv or Compose's env_file) keeps
        # quotes: DISCORD_TOKEN="abc" arrives with its quotes. A token never contains one.
        if len(token) >= 2 and token[0] == token[-1] and token[0] in "\"'":
            token = token[1:-1].strip()
        if token.lower().startswith("bot "):
            token = token[4:].strip()
        if not _TOKEN_SHAPE.match(token):
            # The message must not contain the token itself.
            raise ValueError("token_shape")
        return SecretStr(token)


# Environment variable names by field, for messages.
_ENV_NAMES = {
    "discord_token": "DISCORD_TOKEN",
    "db_path": "KACHUFUL_DB_PATH",
    "database_url": "KACHUFUL_DATABASE_URL",
    "dev_guild_id": "KACHUFUL_DEV_GUILD_ID",
    "sync_global": "KACHUFUL_SYNC_GLOBAL",
    "log_level": "LOG_LEVEL",
    "turn_seconds": "KACHUFUL_TURN_SECONDS",
    "lobby_timeout_seconds": "KACHUFUL_LOBBY_TIMEOUT_SECONDS",
    "bot_delay_seconds": "KACHUFUL_BOT_DELAY_SECONDS",
    "idle_hours": "KACHUFUL_IDLE_HOURS",
    "computer_workers": "KACHUFUL_COMPUTER_WORKERS",
    "review_games": "KACHUFUL_REVIEW_GAMES",
    "shard_count": "KACHUFUL_SHARD_COUNT",
    "shard_ids": "KACHUFUL_SHARD_IDS",
    "web_port": "KACHUFUL_WEB_PORT",
    "web_host": "KACHUFUL_WEB_HOST",
    "web_base_url": "KACHUFUL_WEB_BASE_URL",
    "discord_client_id": "KACHUFUL_DISCORD_CLIENT_ID",
    "discord_client_secret": "KACHUFUL_DISCORD_CLIENT_SECRET",
    "discord_url": "KACHUFUL_DISCORD_URL",
    "activity": "KACHUFUL_ACTIVITY",
}
_ALIAS_TO_FIELD = {alias.lower(): field for field, alias in _ENV_NAMES.items()}


def _explain(error: ValidationError) -> str:
    parts: list[str] = []
    for item in error.errors(include_url=False, include_input=False):
        loc = str(item["loc"][0]) if item["loc"] else ""
        field = _ALIAS_TO_FIELD.get(loc.lower(), loc)
        name = _ENV_NAMES.get(field, loc.upper())
        if field == "discord_token":
            if item["type"] == "missing":
                parts.append(f"DISCORD_TOKEN is not set: {TOKEN_HELP}")
            else:
                parts.append(
                    "DISCORD_TOKEN does not look like a bot token (three parts separated by dots): "
                    + TOKEN_HELP
                )
        elif field == "shard_ids" and "shard_ids_format" in item["msg"]:
            parts.append("KACHUFUL_SHARD_IDS: expected shard numbers separated by commas, e.g. 0,1")
        else:
            parts.append(f"{name}: {item['msg']}")
    return "; ".join(parts)


def load_settings(env_file: str | Path | None = ".env", **overrides: Any) -> Settings:
    """Read the settings; raise :class:`SettingsError` with one line on any problem."""
    try:
        settings = Settings(_env_file=env_file, **overrides)
    except ValidationError as error:
        raise SettingsError(_explain(error)) from None
    problem = shard_problem(settings) or web_problem(settings)
    if problem is not None:
        raise SettingsError(problem)
    return settings


def web_problem(settings: Settings) -> str | None:
    """One line saying what the web table still needs, when its port is set, or None."""
    if settings.web_port is None:
        return None
    if settings.web_base_url is None:
        return (
            "KACHUFUL_WEB_PORT is set but KACHUFUL_WEB_BASE_URL is not: the public address "
            "where players reach the web table, e.g. https://cards.example.org"
        )
    if settings.discord_client_secret is None:
        return (
            "KACHUFUL_WEB_PORT is set but KACHUFUL_DISCORD_CLIENT_SECRET is not: the "
            "application's client secret (Developer Portal → your app → OAuth2), for the "
            "Discord login of the web table"
        )
    return None


def shared_store(settings: Settings) -> bool:
    """Whether the store is a database server every process can reach (PostgreSQL), rather
    than the SQLite file, which only processes of one machine could open, and which this bot
    gives to one process: the engine's driver says."""
    from bot.store.drivers import driver_for

    return driver_for(settings.database).shared


def shard_problem(settings: Settings) -> str | None:
    """One line saying what is wrong with the shard settings, or None."""
    count, ids = settings.shard_count, settings.shard_ids
    if ids is None:
        return None
    if count is None:
        return (
            "KACHUFUL_SHARD_IDS needs KACHUFUL_SHARD_COUNT, the number of shards of every "
            "process together"
        )
    if not ids:
        return "KACHUFUL_SHARD_IDS: no shard given"
    outside = sorted({i for i in ids if not 0 <= i < count})
    if outside:
        return (
            f"KACHUFUL_SHARD_IDS: shard {outside[0]} is outside 0..{count - 1} "
            f"(KACHUFUL_SHARD_COUNT={count})"
        )
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        return f"KACHUFUL_SHARD_IDS: shard {repeated[0]} is given twice"
    if len(ids) < count and not shared_store(settings):
        held = ",".join(str(i) for i in ids)
        return (
            f"KACHUFUL_SHARD_IDS={held} holds only some of the {count} shards, but the store "
            "is the SQLite file KACHUFUL_DB_PATH, which the other shards' process cannot "
            "share: set KACHUFUL_DATABASE_URL=postgresql://... or hold every shard in this "
            "process (leave KACHUFUL_SHARD_IDS unset)"
        )
    return None


_PREFIX = "KACHUFUL_"


def unknown_setting_warnings(
    env_file: str | Path | None = ".env", environ: Mapping[str, str] | None = None
) -> list[str]:
    """One warning for each ``KACHUFUL_*`` name in the environment or in ``env_file`` that is
    no setting of the bot (a typo would otherwise be ignored without a word)."""
    known = [name for name in _ENV_NAMES.values() if name.startswith(_PREFIX)]
    names = {name for name in (os.environ if environ is None else environ)}
    if env_file is not None:
        names |= _dotenv_names(Path(env_file))
    warnings = []
    for name in sorted(names):
        if not name.upper().startswith(_PREFIX) or name.upper() in known:
            continue
        # Compared without the shared prefix, which would make every name look close.
        close = difflib.get_close_matches(
            name.upper().removeprefix(_PREFIX),
            [k.removeprefix(_PREFIX) for k in known],
            n=1,
            cutoff=0.6,
        )
        hint = f" (did you mean {_PREFIX}{close[0]}?)" if close else ""
        warnings.append(f"unknown setting {name}{hint}: it is ignored")
    return warnings


def _dotenv_names(path: Path) -> set[str]:
    from dotenv import dotenv_values

    if not path.is_file():
        return set()
    try:
        return set(dotenv_values(path, encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return set()


def login_failure_message() -> str:
    return f"Discord refused the bot token (login failed): {TOKEN_HELP}"
