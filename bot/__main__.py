"""Start the bot: ``kachuful-bot`` or ``python -m bot``.

Configuration problems end the process with one line on standard error and exit status 2;
no traceback, and never the token.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import NoReturn

from bot.settings import Settings, SettingsError, load_settings, login_failure_message

EXIT_CONFIG = 2
OWN_LOGGERS = ("bot", "cogs", "kachuful_core")


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
    # gateway logs clicks on private hand messages (which carry the hand), and aiosqlite logs
    # every statement with its parameters (the game record: every hand, and the secret seed).
    root.setLevel(max(level, logging.INFO))
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(level)
    for name in ("discord", "discord.http", "discord.webhook", "aiosqlite"):
        logging.getLogger(name).setLevel(max(level, logging.INFO))


def fail(message: str) -> NoReturn:
    print(f"kachuful-bot: {message}", file=sys.stderr)
    raise SystemExit(EXIT_CONFIG)


async def _run(settings: Settings) -> None:
    from bot.client import KachufulBot

    bot = KachufulBot(settings)
    bot.freeze_gc_after_setup = True
    async with bot:
        await bot.start(settings.discord_token.get_secret_value())


def main() -> None:
    try:
        settings = load_settings()
    except SettingsError as error:
        fail(str(error))
    configure_logging(settings)

    import aiohttp
    import discord

    from bot.client import StartupError

    try:
        asyncio.run(_run(settings))
    except discord.LoginFailure:
        fail(login_failure_message())
    except discord.PrivilegedIntentsRequired:
        fail("Discord refused a privileged intent; this bot needs none, please report this.")
    except StartupError as error:
        fail(str(error))
    except (discord.GatewayNotFound, aiohttp.ClientError, OSError) as error:
        # Not a configuration problem: status 1, but still one line.
        print(f"kachuful-bot: cannot reach Discord ({type(error).__name__})", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
