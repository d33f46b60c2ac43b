"""Start the bot: ``kachuful-bot`` or ``python -m bot``.

Configuration problems (settings, the database file) end the process with one line on standard
error and exit status 2, before the bot logs in; no traceback, and never the token. SIGTERM and
SIGINT stop the bot cleanly (exit status 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from bot.config import (
    Settings,
    SettingsError,
    load_settings,
    login_failure_message,
    unknown_setting_warnings,
)

if TYPE_CHECKING:
    from bot.client import KachufulBot

EXIT_CONFIG = 2
EXIT_RUNTIME = 1
OWN_LOGGERS = ("bot", "cogs", "kachuful_core")
# docker stop waits 10 s before SIGKILL: the shutdown (flushing posts, closing the database)
# must be done well before.
SHUTDOWN_DEADLINE_SECONDS = 8.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

log = logging.getLogger("bot.main")


class RedactFilter(logging.Filter):
    """Last line of defence: replace the bot token if it ever reaches a log record."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secret and self._secret in record.getMessage():
            record.msg = record.getMessage().replace(self._secret, "[redacted]")
            record.args = None
        return True


def configure_logging(settings: Settings) -> None:
    level = logging.getLevelName(settings.log_level)
    handler = logging.StreamHandler()
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    handler.addFilter(RedactFilter(settings.discord_token.get_secret_value()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # LOG_LEVEL=DEBUG is for the bot's own loggers only. Libraries stay at INFO or above: at
    # DEBUG discord.http and discord.webhook log request bodies and interaction tokens, the
    # gateway logs clicks on private hand messages (which carry the hand), and the database
    # libraries (each engine's driver names its own) and SQLAlchemy log every statement with
    # its parameters (the game record: every hand, and the secret seed).
    root.setLevel(max(level, logging.INFO))
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(level)
    from bot.store.drivers import ENGINES  # the store's modules load after the settings

    engine_loggers = tuple(name for driver in ENGINES for name in driver.loggers)
    for name in ("discord", "discord.http", "discord.webhook", *engine_loggers):
        logging.getLogger(name).setLevel(max(level, logging.INFO))
    # SQLAlchemy logs statements with their parameters at INFO (never wanted), and Alembic its
    # plugins and each revision (the store logs the migrations it applies, once each).
    for name in ("sqlalchemy", "alembic"):
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    # discord.client: the unsharded connection; discord.shard: each shard's (sharded bot).
    for name in ("discord.client", "discord.shard"):
        connection_log = logging.getLogger(name)
        if not any(isinstance(f, OneLineReconnects) for f in connection_log.filters):
            connection_log.addFilter(OneLineReconnects())


class GatewayUnreachable(ConnectionError):
    """Logged in, but the first connection to Discord's gateway failed."""


class OneLineReconnects(logging.Filter):
    """discord.py logs each failed gateway connection with a traceback ("Attempting a
    reconnect in ...", or for a shard "Failed to connect for shard_id: 0. Retrying..."): a
    network problem, which one line describes."""

    MESSAGES = ("Attempting a reconnect", "Failed to connect for shard_id")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith(self.MESSAGES):
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def fail(message: str, status: int = EXIT_CONFIG) -> NoReturn:
    print(f"kachuful-bot: {message}", file=sys.stderr)
    raise SystemExit(status)


def install_stop_handlers(
    loop: asyncio.AbstractEventLoop, stop: asyncio.Event
) -> tuple[signal.Signals, ...]:
    """SIGTERM (docker stop, systemd) and SIGINT (Ctrl-C) set ``stop``; returns the signals
    handled. Python as PID 1 in a container gets SIGTERM only because a handler is installed."""
    installed = []
    for sig in STOP_SIGNALS:
        try:
            loop.add_signal_handler(sig, _on_signal, sig, stop)
        except (NotImplementedError, RuntimeError):  # not the main thread, or not Unix
            continue
        installed.append(sig)
    return tuple(installed)


def remove_stop_handlers(
    loop: asyncio.AbstractEventLoop, signals: tuple[signal.Signals, ...]
) -> None:
    for sig in signals:
        loop.remove_signal_handler(sig)


def _on_signal(sig: signal.Signals, stop: asyncio.Event) -> None:
    if not stop.is_set():
        log.info("%s received: shutting down", sig.name)
    stop.set()


async def run_until_stopped(
    bot: KachufulBot,
    starting: asyncio.Future[None],
    stop: asyncio.Event,
    deadline: float = SHUTDOWN_DEADLINE_SECONDS,
) -> None:
    """Wait until the bot's ``starting`` task ends (its errors are raised) or ``stop`` is set;
    then run the bot's own shutdown, giving up after ``deadline`` seconds."""
    stopping = asyncio.ensure_future(stop.wait())
    waiting: set[asyncio.Future[Any]] = {starting, stopping}
    try:
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if starting.done():
        error = starting.exception()
        if isinstance(error, AttributeError) and bot.ws is None:
            # discord.py 2.7 retries a failed first gateway connection by reading the
            # sequence number of a websocket it never had.
            raise GatewayUnreachable("cannot reach Discord's gateway") from error
        starting.result()  # a failed login or connection: raised to main()
        return
    try:
        await asyncio.wait_for(bot.close(), deadline)
    except TimeoutError:
        log.error("shutdown did not finish within %.0f s; stopping anyway", deadline)
    if not starting.done():
        starting.cancel()
    await asyncio.gather(starting, return_exceptions=True)


async def _run(settings: Settings) -> None:
    import discord

    from bot.client import create_bot
    from bot.health import heartbeat_path
    from bot.store.store import Store

    # Before logging in: a database that cannot be used is a configuration problem, and it is
    # checked (and refused) without writing to it.
    store = await Store.open(settings.database, clock=discord.utils.utcnow)
    bot = create_bot(settings, store=store)
    bot.freeze_gc_after_setup = True
    bot.heartbeat_file = heartbeat_path(settings.db_path, settings.shard_ids)
    # On PostgreSQL no database file makes the heartbeat's folder (data/ by default); if it
    # cannot be made, the health check says so (bot.client.beat logs it).
    with contextlib.suppress(OSError):
        bot.heartbeat_file.parent.mkdir(parents=True, exist_ok=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    handled = install_stop_handlers(loop, stop)
    try:
        async with bot:
            starting = asyncio.ensure_future(bot.start(settings.discord_token.get_secret_value()))
            await run_until_stopped(bot, starting, stop)
    finally:
        remove_stop_handlers(loop, handled)
        await bot.close()  # also when the login failed: the database is closed and checkpointed


def main() -> None:
    # A crash of the interpreter itself (a C extension's fault) leaves the Python stack of each
    # thread on standard error, beside the log, instead of a bare exit status. Stacks only:
    # file, line and function names, never a value (no card, seed or token). Not where
    # standard error is no file (a caller that captures it in memory).
    with contextlib.suppress(OSError, ValueError, AttributeError):
        faulthandler.enable()
    if sys.argv[1:2] == ["migrate-to"]:
        raise SystemExit(_migrate_to(sys.argv[2:]))
    try:
        settings = load_settings()
    except SettingsError as error:
        fail(str(error))
    configure_logging(settings)
    from bot.store.drivers import describe  # the store's modules load after the settings

    for warning in unknown_setting_warnings():
        log.warning("%s", warning)
    log.debug(
        "settings: database %s, turn %ss, lobby timeout %ss, computer delay %ss, sync %s",
        describe(settings.database),
        settings.turn_seconds,
        settings.lobby_timeout_seconds,
        settings.bot_delay_seconds,
        "global" if settings.sync_global else (settings.dev_guild_id or "off"),
    )

    import aiohttp
    import discord

    from bot.client import StartupError
    from bot.store.failures import StoreError

    try:
        asyncio.run(_run(settings))
    except StoreError as error:
        fail(str(error))
    except discord.LoginFailure:
        fail(login_failure_message())
    except discord.PrivilegedIntentsRequired:
        fail("Discord refused a privileged intent; this bot needs none, please report this.")
    except StartupError as error:
        fail(str(error))
    except discord.HTTPException as error:
        # Discord answered the login with an error other than "bad token" (an outage, a ban
        # of the application, Cloudflare): not a configuration problem, but one line.
        fail(
            f"Discord answered HTTP {error.status} while the bot was logging in or starting; "
            "try again later",
            EXIT_RUNTIME,
        )
    except GatewayUnreachable as error:
        fail(str(error), EXIT_RUNTIME)
    except (discord.GatewayNotFound, aiohttp.ClientError, OSError) as error:
        # Not a configuration problem: status 1, but still one line.
        fail(f"cannot reach Discord ({type(error).__name__})", EXIT_RUNTIME)
    except KeyboardInterrupt:
        pass


def _migrate_to(argv: list[str]) -> int:
    """``kachuful-bot migrate-to URL [--from FILE]`` (bot/store/copy.py): needs no token."""
    import os
    from pathlib import Path

    from dotenv import dotenv_values

    from bot.store.copy import main as copy_main

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    configured = os.environ.get("KACHUFUL_DB_PATH") or dotenv_values(".env").get("KACHUFUL_DB_PATH")
    default = Settings.model_fields["db_path"].default
    return copy_main(argv, Path(configured) if configured else Path(default))


if __name__ == "__main__":
    main()
