"""The slash commands reach Discord without any setting: at start the bot syncs them globally
when they differ from the ones it last synced (a digest kept in the database), and sends
nothing when they are the same. A global sync is rate-limited and makes every Discord client
fetch the command list again, so a restart with unchanged commands must not make one.

KACHUFUL_DEV_GUILD_ID: the commands are synced to that server at every start instead (they
appear there at once; a global sync beside it would show each command twice in that server).
KACHUFUL_SYNC_GLOBAL=true: sync globally at this start even if nothing changed (e.g. after the
commands were removed from the application by hand).

An application with Activities enabled has an Entry Point command (type 4, "Launch"), made by
Discord, not by this bot: Discord refuses a bulk update of the global commands that leaves it
out. So the global sync reads the application's commands first and sends its Entry Point
commands back unchanged beside the bot's own (docs/web.md, "As a Discord Activity")."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot.config import Settings
from bot.store.protocol import GameStore

log = logging.getLogger(__name__)

DIGEST_KEY = "commands_digest"
ENTRY_POINT = 4  # Discord's PRIMARY_ENTRY_POINT command type (discord.py has no name for it)
# What an Entry Point command is made of, sent back as Discord gave it (its id keeps it).
ENTRY_POINT_FIELDS = (
    "id",
    "type",
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "handler",
    "integration_types",
    "contexts",
    "default_member_permissions",
    "nsfw",
)


async def global_payload(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """Every global command of the bot as discord.py sends it (translated when a translator is
    set)."""
    commands = tree.get_commands()
    translator = tree.translator
    if translator is not None:
        return [await command.get_translated_payload(tree, translator) for command in commands]
    return [command.to_dict(tree) for command in commands]


async def commands_digest(tree: app_commands.CommandTree[Any], application_id: int | None) -> str:
    """sha256 of what a global sync sends: every global command's payload as discord.py builds
    it (names, descriptions, options, permissions, and the localisations when a translator is
    set, so a changed translation counts as a change) and the application it is sent to."""
    payload = await global_payload(tree)
    # Discord keeps a set of commands: the order the cogs were loaded in is no change.
    payload.sort(key=lambda entry: (entry.get("type", 1), entry["name"]))
    text = json.dumps(
        {"application_id": application_id, "commands": payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def sync_commands(
    tree: app_commands.CommandTree[Any],
    store: GameStore,
    settings: Settings,
    application_id: int | None,
) -> list[str]:
    """Sync where needed; returns where the commands were synced ("guild:<id>", "global").

    A failed sync is logged and the bot starts anyway (with the commands Discord already
    has); the digest is stored only after a global sync succeeded, so the next start tries
    again."""
    synced: list[str] = []
    guild_id = settings.dev_guild_id
    if guild_id is not None:
        guild = discord.Object(id=guild_id)
        tree.copy_global_to(guild=guild)
        try:
            done = await tree.sync(guild=guild)
        except (discord.HTTPException, aiohttp.ClientError) as error:
            log.error("syncing the commands to server %s failed: %s", guild_id, error)
        else:
            synced.append(f"guild:{guild_id}")
            log.info("synced %d command(s) to server %s", len(done), guild_id)
        if not settings.sync_global:
            return synced
    digest = await commands_digest(tree, application_id)
    if not settings.sync_global and await store.bot_state(DIGEST_KEY) == digest:
        log.info("slash commands unchanged since the last global sync: not synced")
        return synced
    try:
        done = await sync_global(tree, application_id)
    except (discord.HTTPException, aiohttp.ClientError) as error:
        log.error("global sync of the slash commands failed (tried again at next start): %s", error)
        return synced
    await store.set_bot_state(DIGEST_KEY, digest)
    synced.append("global")
    reason = "KACHUFUL_SYNC_GLOBAL=true" if settings.sync_global else "they changed"
    log.info("slash commands synced globally (%d command(s); %s)", len(done), reason)
    return synced


async def sync_global(tree: app_commands.CommandTree[Any], application_id: int | None) -> list[Any]:
    """The bulk update of the global commands: the bot's own, and the application's Entry
    Point commands as Discord has them (a bulk update without them is refused)."""
    if application_id is None:
        return await tree.sync()
    http = tree.client.http
    current = await http.get_global_commands(application_id)
    kept = [
        {key: command[key] for key in ENTRY_POINT_FIELDS if key in command}
        for command in current
        if command.get("type") == ENTRY_POINT
    ]
    payload = [*await global_payload(tree), *kept]
    done: list[Any] = await http.bulk_upsert_global_commands(application_id, payload=payload)
    return done
