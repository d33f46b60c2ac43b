"""Slash commands appear without any setting: the first start syncs them globally, a restart
with the same commands sends no sync request, a changed command tree is synced again, and a
failed sync is tried again at the next start."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands
from simcord.backend.errors import BackendError
from simcord.backend.ops import commands as commands_ops
from simcord.http.routes import commands as commands_routes

from bot.client import KachufulBot
from bot.command_sync import DIGEST_KEY, commands_digest
from bot.config import Settings

from .conftest import FAKE_TOKEN, SETTLE_SECONDS


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The bot as an operator configures it: no sync setting at all."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FAKE_TOKEN,
        db_path=tmp_path / "data" / "kachuful.sqlite3",
        bot_delay_seconds=0,
        computer_workers=0,
    )


def global_syncs(env: simcord.Env) -> list[Any]:
    """The bodies of the bulk-overwrite requests to the application's global commands."""
    path = f"/applications/{env.bot.application_id}/commands"
    return [r.json for r in env.http_requests if r.method == "PUT" and r.path == path]


def with_extra_command(bot: KachufulBot, description: str = "A command added by the test") -> Any:
    @app_commands.command(name="extra", description=description)
    async def extra(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("extra", ephemeral=True)

    bot.tree.add_command(extra)
    return bot


def names(body: Any) -> set[str]:
    return {command["name"] for command in body}


async def test_first_start_syncs_globally_and_an_unchanged_restart_sends_nothing(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], caplog: pytest.LogCaptureFixture
) -> None:
    guild = env.create_guild("Club")
    channel = guild.create_text_channel("cards")
    asha = guild.add_member(env.create_user("asha"))
    [first] = global_syncs(env)
    assert "kachuful" in names(first)
    assert env.bot.synced == ["global"]
    assert await env.bot.store.bot_state(DIGEST_KEY) is not None
    # SimCord is strict: a command that was never synced cannot be used.
    assert (await asha.slash(channel, "kachuful help")).response.ephemeral

    caplog.set_level(logging.INFO, logger="bot.command_sync")
    await env.restart_bot(make_bot())
    assert len(global_syncs(env)) == 1  # no second request
    assert env.bot.synced == []
    assert "slash commands unchanged since the last global sync" in caplog.text
    # The commands synced by the first start still answer.
    assert (await asha.slash(channel, "kachuful help")).response.ephemeral


async def test_a_changed_command_tree_is_synced_again_once(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], caplog: pytest.LogCaptureFixture
) -> None:
    guild = env.create_guild("Club")
    channel = guild.create_text_channel("cards")
    asha = guild.add_member(env.create_user("asha"))
    before = await env.bot.store.bot_state(DIGEST_KEY)
    caplog.set_level(logging.INFO, logger="bot.command_sync")

    await env.restart_bot(with_extra_command(make_bot()))
    syncs = global_syncs(env)
    assert len(syncs) == 2
    assert names(syncs[1]) == names(syncs[0]) | {"extra"}
    assert env.bot.synced == ["global"]
    assert "slash commands synced globally" in caplog.text
    assert await env.bot.store.bot_state(DIGEST_KEY) != before
    assert (await asha.slash(channel, "extra")).response.content == "extra"

    await env.restart_bot(with_extra_command(make_bot()))
    assert len(global_syncs(env)) == 2  # the same tree again: nothing sent

    # A changed description is a change too.
    await env.restart_bot(with_extra_command(make_bot(), "Another description"))
    assert len(global_syncs(env)) == 3
    assert {c["name"]: c["description"] for c in global_syncs(env)[2]}["extra"] == (
        "Another description"
    )


async def test_a_failed_sync_keeps_no_digest_and_the_next_start_syncs(
    make_bot: Callable[[], KachufulBot], caplog: pytest.LogCaptureFixture
) -> None:
    bot = make_bot()
    env = simcord.Env(bot, settle_timeout=SETTLE_SECONDS)
    guild = env.create_guild("Club")
    channel = guild.create_text_channel("cards")
    asha = guild.add_member(env.create_user("asha"))
    env.inject_error("PUT", "/applications/*/commands", status=403, code=50001, message="no")
    caplog.set_level(logging.INFO, logger="bot.command_sync")
    await env.start()
    try:
        # The bot started all the same (buttons of open tables keep working); it says why
        # the commands are missing, and keeps no digest.
        assert bot.is_ready()
        assert bot.synced == []
        assert "global sync of the slash commands failed" in caplog.text
        assert await bot.store.bot_state(DIGEST_KEY) is None
        with pytest.raises(simcord.SetupError, match="never synced"):
            await asha.slash(channel, "kachuful help")

        await env.restart_bot(make_bot())
        assert env.bot.synced == ["global"]
        assert len(global_syncs(env)) == 2  # the failed one and this one
        assert await env.bot.store.bot_state(DIGEST_KEY) is not None
        assert (await asha.slash(channel, "kachuful help")).response.ephemeral
    finally:
        await env.shutdown()
        for made in make_bot.made:  # type: ignore[attr-defined]
            await made.store.close()


async def test_sync_global_forces_a_sync_of_unchanged_commands(
    env: simcord.Env, settings: Settings
) -> None:
    assert len(global_syncs(env)) == 1
    forced = KachufulBot(settings.model_copy(update={"sync_global": True}))
    try:
        await env.restart_bot(forced)
        assert forced.synced == ["global"]
        assert len(global_syncs(env)) == 2
    finally:
        await forced.store.close()


async def test_the_dev_server_is_synced_at_every_start_and_global_commands_are_left(
    tmp_path: Path,
) -> None:
    guild_id = 123456789012345678
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, discord_token=FAKE_TOKEN, db_path=tmp_path / "b.db", dev_guild_id=guild_id
    )
    bots = [KachufulBot(settings), KachufulBot(settings)]
    env = simcord.Env(bots[0], settle_timeout=SETTLE_SECONDS)
    guild = env.create_guild(id=guild_id)
    channel = guild.create_text_channel("dev")
    tester = guild.add_member(env.create_user("tester"))
    await env.start()
    try:
        guild_path = f"/applications/{env.bot.application_id}/guilds/{guild_id}/commands"
        assert bots[0].synced == [f"guild:{guild_id}"]
        assert [r.path for r in env.http_requests if r.method == "PUT"] == [guild_path]
        assert (await tester.slash(channel, "kachuful help")).response.ephemeral
        await env.restart_bot(bots[1])
        assert bots[1].synced == [f"guild:{guild_id}"]
        puts = [r.path for r in env.http_requests if r.method == "PUT"]
        assert puts == [guild_path, guild_path]
    finally:
        await env.shutdown()
        for bot in bots:
            await bot.store.close()


async def test_the_digest_covers_the_translations() -> None:
    """A translation change counts as a change, though the commands' own text stays."""

    class Hindi(app_commands.Translator):
        def __init__(self, word: str) -> None:
            self.word = word

        async def translate(
            self,
            string: app_commands.locale_str,
            locale: discord.Locale,
            context: app_commands.TranslationContextTypes,
        ) -> str | None:
            return self.word if locale is discord.Locale.hindi else None

    client = discord.Client(intents=discord.Intents.none())
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(client)

    @tree.command(name="deal", description="Deal the cards")
    async def deal(interaction: discord.Interaction[Any]) -> None:
        pass

    plain = await commands_digest(tree, 1)
    assert await commands_digest(tree, 1) == plain  # stable
    assert await commands_digest(tree, 2) != plain  # another application
    await tree.set_translator(Hindi("baanto"))
    first = await commands_digest(tree, 1)
    await tree.set_translator(Hindi("baantiye"))
    second = await commands_digest(tree, 1)
    assert len({plain, first, second}) == 3


def discord_keeps_entry_points(env: simcord.Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Teach the stand-in Discord's rule for Activities: a bulk update of the global commands
    may carry an Entry Point command (its ``handler``, its ``id``), and one that leaves out the
    application's Entry Point is refused (400, as Discord answers)."""
    fields = (*commands_ops.COMMAND_FIELDS, "handler", "id")
    monkeypatch.setattr(commands_ops, "COMMAND_FIELDS", fields)
    monkeypatch.setattr(commands_routes, "COMMAND_FIELDS", fields)
    register = env.backend.register_commands

    def checked(guild_id: int | None, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = {(p["name"], p.get("type")) for p in payloads}
        for key in env.backend.commands.get(guild_id, {}):
            if key[1] == 4 and key not in kept:
                raise BackendError(400, 50035, "Invalid Form Body: the Entry Point is missing")
        return register(guild_id, payloads)

    monkeypatch.setattr(env.backend, "register_commands", checked)


async def test_the_activitys_entry_point_command_survives_a_global_sync(
    env: simcord.Env, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An application with Activities enabled has Discord's "Launch" Entry Point command
    (type 4); Discord refuses a bulk update that leaves it out, so the bot sends it back as it
    found it, beside its own commands."""
    entry_point = {
        "id": "1450000000000000001",
        "application_id": str(env.bot.application_id),
        "type": 4,
        "name": "launch",
        "description": "Launch an activity",
        "handler": 2,  # DISCORD_LAUNCH_ACTIVITY
        "integration_types": [0, 1],
        "contexts": [0, 1, 2],
        "version": "1450000000000000002",
    }
    env.backend.commands.setdefault(None, {})[("launch", 4)] = dict(entry_point)
    discord_keeps_entry_points(env, monkeypatch)
    forced = KachufulBot(settings.model_copy(update={"sync_global": True}))
    try:
        await env.restart_bot(forced)
        assert forced.synced == ["global"]
        body = global_syncs(env)[-1]
        [sent] = [command for command in body if command.get("type") == 4]
        kept = {
            key: value
            for key, value in entry_point.items()
            if key not in {"application_id", "version"}
        }
        assert sent == kept
        # The bot's own commands are all there beside it.
        assert {"kachuful", "kachuful-event"} <= names(body)
    finally:
        await forced.store.close()
