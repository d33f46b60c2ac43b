"""What a change did, as plain values: the ground floor of the table code.

A feature's step returns a :class:`Step` (what to commit, the engine's events, the answer to
the one who acted); the change path commits it, and a front (the Discord responder, the web
table's socket) answers with its :class:`Reply`, drawn its own way. Nothing here knows Discord.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot import render
from bot.i18n import Translations
from bot.store.failures import StoreError, StoreUnavailable
from kachuful_core.events import Event


@dataclass
class Reply:
    """The answer to the one who acted, described, not drawn: each front draws it its own way
    (the Discord responder as a private message, under the table's lock, from the state the
    change left).

    ``text``: words for them (a refusal, a notice), in their language. ``hand_of``: their hand
    is the answer, with ``text`` as its notice (``chosen``: a card offered to confirm).
    ``lobby``: the lobby redrawn, as the answer to a click on it. ``levels``: the computer
    levels offered after "Add computer player". ``edit``: the answer replaces the message
    whose button was clicked (only ever a private one, or the lobby)."""

    text: str | None = None
    hand_of: int | None = None
    chosen: int | None = None
    lobby: bool = False
    levels: tuple[str, ...] = ()
    edit: bool = False
    ephemeral: bool = True


@dataclass
class Step:
    """What a checked action did, under the lock: ``commit`` the row (and game), with the
    engine's ``events``; ``bump`` the move counter (every button drawn before is stale).

    After the change path: ``version``, the table's move counter once the change is done (the
    state the answer is drawn from), and ``drawn``, the answer as the front drew it."""

    reply: Reply | None = None
    commit: bool = False
    events: list[Event] = field(default_factory=list)
    bump: bool = True
    close: bool = False  # the table is over once published
    failed: StoreError | None = None  # the database refused the change: nothing was saved
    version: int | None = None
    drawn: object | None = None

    @property
    def counted(self) -> bool:
        """The change was committed: the actor's move stands."""
        return self.commit and self.failed is None


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
    return Step(reply=Reply(render.refusal(code, tr)))


def private(text: str) -> Step:
    return Step(reply=Reply(text))
