"""The bot's extensions are found, not listed: every module of the ``cogs`` package that has an
async ``setup(bot)`` is one (python-discord/bot walks its ``exts`` package the same way), so a
new command is a new module in ``cogs/`` and nothing else to register.

A module whose cog is a ``GroupCog`` (``cogs/kachuful.py``: the ``/kachuful`` group) is
loaded before the others: the feature cogs add their subcommands to that group when they load
(``cogs/group.py``). Helpers without ``setup`` (``cogs/group.py``, ``cogs/slash_options.py``)
and private modules (a leading underscore) are not extensions.

Modules are imported by name (as ``load_extension`` does), so the bot's package does not
import the cogs that import it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

from discord.ext import commands

PACKAGE = "cogs"


def walk(package: str = PACKAGE) -> list[str]:
    """The extensions of ``package``, each group's own cog first, then by name."""
    root = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(root.__path__, f"{package}."):
        if info.ispkg or info.name.rpartition(".")[2].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        if inspect.iscoroutinefunction(getattr(module, "setup", None)):
            found.append(module)
    found.sort(key=lambda module: (not holds_group(module), module.__name__))
    return [module.__name__ for module in found]


def holds_group(module: ModuleType) -> bool:
    """Whether ``module`` defines a ``GroupCog``: a slash command group other cogs join."""
    return any(
        inspect.isclass(value)
        and issubclass(value, commands.GroupCog)
        and value.__module__ == module.__name__
        for value in vars(module).values()
    )
