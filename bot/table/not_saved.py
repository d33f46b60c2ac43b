"""What a player is told when the database refused a change (nothing was changed).

Kept out of bot/render, which reads the table model and never the store; used by every front
(the table code, the buttons, the commands)."""

from __future__ import annotations

from bot import render
from bot.i18n import Translations
from bot.store.failures import StoreError, StoreUnavailable


def not_saved(error: BaseException, tr: Translations) -> str | None:
    """The answer to a change the database refused, or None when ``error`` is not a storage
    failure."""
    if isinstance(error, StoreUnavailable):
        return render.notice("cannot_save", tr)
    if isinstance(error, StoreError):
        return render.notice("busy_db", tr)
    return None
