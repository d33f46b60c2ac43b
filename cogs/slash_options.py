"""Slash command options generated from the option registry (bot/registry.py): a command
callback written as ``async def command(self, interaction, ..., **values)`` gets one optional
parameter per registry option, with its type, its bounds, its choices and its description, so
that no command names an option itself. discord.py reads a callback's parameters from its
signature (``inspect.signature``), which honours ``__signature__``; the callback is then called
with the options by keyword, as always."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from discord import app_commands
from discord.app_commands import locale_str

from bot import registry
from bot.command_translator import choice_str

F = TypeVar("F", bound=Callable[..., Awaitable[None]])


def slash_type(option: registry.Option) -> Any:
    """The parameter's annotation: its kind (a number within bounds, when it has some), or
    None when not given."""
    if option.low is not None and option.high is not None and not option.choices:
        return app_commands.Range[int, option.low, option.high] | None
    return option.kind | None


def slash_choices(name: str) -> list[app_commands.Choice[Any]]:
    """An option's choices as the slash command shows them, from the registry (translated by
    bot.command_translator)."""
    option = registry.option(name)
    return [app_commands.Choice(name=choice_str(name, c), value=c.value) for c in option.choices]


def registry_options(names: Iterable[str]) -> Callable[[F], Any]:
    """Give a command callback one keyword parameter per option ``names`` (their names as the
    command shows them: a setting's name, e.g. ``presentation``), before the callback's own
    optional parameters, with their choices and descriptions."""
    names = tuple(names)

    # Typed Any: app_commands.command reads the generated parameters, which no static type has.
    def decorate(func: F) -> Any:
        signature = inspect.signature(func)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        required = [p for p in own if p.default is p.empty]
        optional = [p for p in own if p.default is not p.empty]
        generated = [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=None,
                annotation=slash_type(registry.option(name)),
            )
            for name in names
        ]
        func.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*required, *generated, *optional]
        )
        described = app_commands.describe(
            **{name: locale_str(registry.option(name).describe) for name in names}
        )
        chosen = app_commands.choices(
            **{name: slash_choices(name) for name in names if registry.option(name).choices}
        )
        return chosen(described(func))

    return decorate
