"""The Discord front's drawing of answers: a :class:`~bot.table.outcome.Reply`, described by
the change path, drawn as the message spec the responder sends (a private hand message, a
refusal, the lobby redrawn, the computer levels on offer). Drawn under the table's lock, from
the state the change left (``Changes.apply``'s ``draw``)."""

from __future__ import annotations

from bot import render
from bot.i18n import Translations, for_table
from bot.model import Table
from bot.render.open_table import TableLink
from bot.render.specs import MessageSpec
from bot.web.links import table_link
from kachuful_core.views import view as seat_view

from .outcome import Reply
from .session import TableSession
from .timing import Timing


def hand_spec(
    session: TableSession,
    user_id: int,
    tr: Translations,
    notice: str | None = None,
    *,
    chosen: int | None = None,
    table_link: TableLink | None = None,
) -> MessageSpec | None:
    """A player's hand message as the table stands (its buttons drawn at its move counter);
    ``chosen``: a card to confirm. None when the user has no seat at a running game."""
    row, game = session.row, session.game
    seat = row.seat_of(user_id)
    if seat is None or game is None:
        return None
    return render.hand_message(
        row,
        seat_view(game, seat),
        tr,
        version=row.version,
        notice=notice,
        deadline=session.deadline,
        undo=session.undo_for(user_id, row.version),
        chosen=chosen,
        table_link=table_link,
    )


class Answers:
    def __init__(self, timing: Timing) -> None:
        self.timing = timing

    def lobby_spec(self, row: Table) -> MessageSpec:
        return render.lobby(
            row,
            for_table(row.options),
            timeout_minutes=self.timing.lobby_minutes(),
            pace=self.timing.pace(row),
            table_link=table_link(self.timing.settings, row.id),
        )

    def draw(self, session: TableSession, reply: Reply, tr: Translations) -> MessageSpec:
        row = session.row
        if reply.hand_of is not None:
            spec = hand_spec(
                session,
                reply.hand_of,
                tr,
                reply.text,
                chosen=reply.chosen,
                table_link=table_link(self.timing.settings, row.id),
            )
            if spec is not None:
                return spec
            return MessageSpec(content=reply.text or render.refusal("not_seated", tr))
        if reply.lobby:
            return self.lobby_spec(row)
        if reply.levels:
            return render.level_chooser(row, list(reply.levels), tr)
        return MessageSpec(content=reply.text or "")
