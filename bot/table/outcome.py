"""What a change did, as plain values: the ground floor of the table code.

A feature's step returns a :class:`Step` (what to commit, the engine's events, the private
answer); the change path commits it and the responder answers with its :class:`Reply`."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot import render
from bot.i18n import Translations
from bot.render.specs import MessageSpec
from bot.store import StoreError, StoreUnavailable
from kachuful_core.events import Event


@dataclass
class Reply:
    """The private answer to a click or command.

    ``edit`` edits the message holding the clicked button: only ever a private message, or the
    lobby when ``public_edit`` (a lobby click redraws the lobby as its answer)."""

    spec: MessageSpec
    edit: bool = False
    ephemeral: bool = True
    hand_of: int | None = None  # the reply is this user's hand message: remember its token
    public_edit: bool = False


@dataclass
class Step:
    """What a checked action did, under the lock: ``commit`` the row (and game), with the
    engine's ``events``; ``bump`` the move counter (every button drawn before is stale)."""

    reply: Reply | None = None
    commit: bool = False
    events: list[Event] = field(default_factory=list)
    bump: bool = True
    close: bool = False  # the table is over once published
    failed: StoreError | None = None  # the database refused the change: nothing was saved


# After a change the database refused: a lock is usually gone in moments; a full disk waits
# for the operator, and every table retrying every few seconds would only add to the load.
BUSY_RETRY_SECONDS = 2.0
UNAVAILABLE_RETRY_SECONDS = 10.0


def retry_delay(error: StoreError) -> float:
    """How long a background change (a computer seat, a clock) waits before trying again."""
    if isinstance(error, StoreUnavailable):
        return UNAVAILABLE_RETRY_SECONDS
    return BUSY_RETRY_SECONDS


def refusal(code: str, tr: Translations) -> Step:
    """A refusal for the one who clicked, in their language."""
    return Step(reply=Reply(MessageSpec(content=render.refusal(code, tr))))


def private(text: str) -> Step:
    return Step(reply=Reply(MessageSpec(content=text)))
