"""Every slash command, as the bot syncs it, keeps Discord's limits, is described and
translated in every language the bot speaks and is named in ``/kachuful help``
(tests/bot/command_rules.py); a command added to the wrong place is caught here before Discord
refuses the sync. The cogs are found by walking ``cogs/`` (bot/extensions.py)."""

from __future__ import annotations

import ast
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import extensions
from bot.command_translator import CommandTranslator
from bot.i18n import LANGUAGE_NAMES, translation
from bot.render import help_message
from cogs.group import KachufulFeature

from .catalogue import TRANSLATED, read_catalogue
from .command_rules import (
    COMMAND_CHARACTERS_BUDGET,
    OPTIONS_MAX,
    in_help,
    problems,
    room_problem,
    size_problem,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["web off", "web on"])
async def tree(request: pytest.FixtureRequest) -> AsyncIterator[app_commands.CommandTree[Any]]:
    """The bot's commands as it builds them at start: every cog found in cogs/, with the
    translator (no Discord, no database: loading a cog only declares its commands); with the
    web table off, then on (it adds /kachuful table)."""
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none(), help_command=None)
    if request.param == "web on":
        bot.settings = SimpleNamespace(  # type: ignore[attr-defined]
            web_port=8080, web_base_url="https://cards.example.org"
        )
    await bot.tree.set_translator(CommandTranslator())
    for name in extensions.walk():
        await bot.load_extension(name)
    yield bot.tree
    await bot.close()


async def payloads(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """What a sync sends: each command with its localisations."""
    translator = tree.translator
    assert translator is not None
    return [
        await command.get_translated_payload(tree, translator) for command in tree.get_commands()
    ]


def same_words() -> dict[str, set[str]]:
    """By language, the English its catalogue keeps as it is ("Expert" in French), and the
    languages' own names (each language is offered by the name its speakers give it)."""
    same: dict[str, set[str]] = {}
    for language in TRANSLATED:
        kept = {
            m.id
            for m in read_catalogue(language)
            if isinstance(m.id, str) and m.id and m.string == m.id
        }
        same[language] = kept | set(LANGUAGE_NAMES.values())
    return same


def help_text(web: bool = True) -> str:
    """The help's words, each of its fields a paragraph of its own (with the web table's)."""
    (embed,) = help_message(translation("en"), web=web).embeds
    return "\n\n".join([embed.description or "", *(field.value or "" for field in embed.fields)])


async def test_every_command_keeps_discords_limits_its_words_and_its_help_line(
    tree: app_commands.CommandTree[Any],
) -> None:
    synced = await payloads(tree)
    assert {c["name"] for c in synced} >= {
        "kachuful",
        "kachuful-event",
        "kachuful-season",
        "kachuful-scorepad",
        "kachuful-scorepad-boards",
        "kachuful-settings",
        "kachuful-permissions",
    }
    assert problems(synced, help_text(), same_words()) == []


async def test_every_command_fits_discords_size_limit_with_room_to_grow(
    tree: app_commands.CommandTree[Any],
) -> None:
    synced = await payloads(tree)
    assert [problem for c in synced if (problem := size_problem(c))] == []
    assert [problem for c in synced if (problem := room_problem(c))] == []


async def test_every_command_is_for_servers_and_only_the_managers_are_hidden(
    tree: app_commands.CommandTree[Any],
) -> None:
    synced = await payloads(tree)
    assert [c["name"] for c in synced if c.get("contexts") != [0]] == []
    # Hidden from members without Manage Server: the managers' own commands. Events and
    # seasons are not (their standings are anyone's, the event role's members organise).
    hidden = {c["name"] for c in synced if c.get("default_member_permissions") is not None}
    assert hidden == {
        "kachuful-settings",
        "kachuful-permissions",
        "kachuful-scorepad-boards",
        "kachuful-club",
    }
    manage_guild = discord.Permissions(manage_guild=True).value
    assert {int(c["default_member_permissions"]) for c in synced if c["name"] in hidden} == {
        manage_guild
    }


async def test_a_26th_subcommand_fails_the_check_before_discord_would(
    tree: app_commands.CommandTree[Any],
) -> None:
    (group,) = [c for c in await payloads(tree) if c["name"] == "kachuful"]
    free = OPTIONS_MAX - len(group["options"])
    assert free >= 1, "the /kachuful group is full"
    # A newcomer's feature cog with one command more than /kachuful has room for.
    cog = throwaway_cog(free + 1)(tree.client)  # type: ignore[arg-type]
    translator = tree.translator
    assert translator is not None
    group["options"] += [
        await command.get_translated_payload(tree, translator)
        for command in cog.__cog_app_commands__
    ]
    found = problems([group], help_text(), same_words())
    assert f"/kachuful: {OPTIONS_MAX + 1} subcommands, Discord allows {OPTIONS_MAX}" in found
    # Each of its commands is also missing from the help, and its words from the catalogues.
    assert "/kachuful extra-0: not named in /kachuful help" in found
    assert any("/kachuful extra-0: its description" in p and "in hi" in p for p in found)


def throwaway_cog(count: int) -> type[KachufulFeature]:
    """A cog adding ``count`` subcommands to /kachuful, as a new feature would."""

    def command(index: int) -> app_commands.Command[Any, Any, None]:
        async def callback(self: Any, interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("…")

        callback.__qualname__ = f"Throwaway.extra_{index}"  # a method, as if written in a class

        return app_commands.command(
            name=f"extra-{index}", description=locale_str("A command no catalogue knows")
        )(callback)

    return type("Throwaway", (KachufulFeature,), {f"extra_{i}": command(i) for i in range(count)})


def test_the_extensions_are_every_cog_module_the_groups_first() -> None:
    found = extensions.walk()
    with_setup = sorted(
        f"cogs.{path.stem}"
        for path in (ROOT / "cogs").glob("*.py")
        if any(
            isinstance(node, ast.AsyncFunctionDef) and node.name == "setup"
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    )
    assert sorted(found) == with_setup
    assert found[0] == "cogs.kachuful"  # the /kachuful group the feature cogs join
    assert "cogs.group" not in found and "cogs.slash_options" not in found


def test_a_new_module_in_the_package_is_found(tmp_path: Path, monkeypatch: Any) -> None:
    package = tmp_path / "newcogs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("VALUE = 1\n")
    (package / "_private.py").write_text("async def setup(bot):\n    pass\n")
    (package / "feature.py").write_text("async def setup(bot):\n    pass\n")
    (package / "agroup.py").write_text(
        "from discord.ext import commands\n\n\n"
        "class Group(commands.GroupCog, group_name='g', group_description='g'):\n"
        "    pass\n\n\n"
        "async def setup(bot):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert extensions.walk("newcogs") == ["newcogs.agroup", "newcogs.feature"]


def test_each_limit_is_checked() -> None:
    long = "x" * 101
    command = {
        "name": "Bad Name",
        "description": long,
        "options": [
            {"type": 3, "name": "a", "description": "d", "required": False},
            {
                "type": 3,
                "name": "b",
                "description": "d",
                "required": True,
                "choices": [{"name": long, "value": "v"}] * 26,
            },
        ],
    }
    found = "\n".join(problems([command], "", {}))
    for expected in (
        "/Bad Name: the name must be 1 to 32 lowercase",
        "/Bad Name: its description has 101 characters",
        "/Bad Name: a required option after an optional one",
        "/Bad Name b: 26 choices, Discord allows 25",
        "/Bad Name b=v: its choice name has 101 characters",
        "/Bad Name b: its description 'd' is not translated in fr",
        "/Bad Name: not named in /kachuful help",
    ):
        assert expected in found
    # The size: every name, description and choice, each at its longest localisation.
    option = {
        "type": 3,
        "name": "o",
        "description": "d",
        "description_localizations": {"hi": "é" * 100},
    }
    big = {"name": "big", "description": "d", "options": [option] * 79}
    assert size_problem(big) is None  # 3 + 1 + 79 × (1 + 100) = 7,983
    assert size_problem({**big, "options": [option] * 80}) == (
        "/big: 8084 characters, Discord allows 8000"
    )
    # Our budget: 15 % of that kept free.
    assert COMMAND_CHARACTERS_BUDGET == 6800
    assert room_problem({**big, "options": [option] * 67}) is None  # 4 + 67 × 101 = 6,771
    assert room_problem({**big, "options": [option] * 68}) == (
        "/big: 6872 characters, over our budget of 6800 (Discord allows 8000)"
    )


def test_a_subcommand_is_named_in_the_help_in_full_or_after_its_group() -> None:
    help_text = (
        "`/kachuful-event open` opens an event; also `/kachuful-event standings`, `pause`.\n\n"
        "`/kachuful-scorepad-boards` · where pads count\n\n"
        "`close` is not listed here."
    )
    assert in_help("kachuful-event open", help_text)
    assert in_help("kachuful-event pause", help_text)
    # After its group, in another paragraph: not named.
    assert not in_help("kachuful-event close", help_text)
    # A longer command's name does not name a shorter one.
    assert not in_help("kachuful-scorepad", help_text)
    assert in_help("kachuful-scorepad-boards", help_text)
    assert not in_help("kachuful-season standings", help_text)


async def test_kachuful_table_is_offered_only_with_the_web_table(
    tree: app_commands.CommandTree[Any],
) -> None:
    (group,) = [c for c in await payloads(tree) if c["name"] == "kachuful"]
    names = {option["name"] for option in group["options"]}
    web = getattr(tree.client, "settings", None) is not None
    assert ("table" in names) is web
    assert ("/kachuful table" in help_text(web)) is web
