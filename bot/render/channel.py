"""Which public messages a table should have, and what each shows, derived from its committed
state (docs/architecture.md §7). The publisher compares this with what it delivered and acts.

Every message has a stable key: ``lobby``, ``thread`` (thread mode), ``start`` (the first
dealer's draw and the rules), per deal ``d3.bids``, ``d3.t0`` … (one per trick) or ``d3.live``
(compact mode), and ``d3.score``, then ``final`` (or ``end`` for a stopped game), and one turn
ping at a time, ``ping.<move>``, which is deleted once that move is made.

Catching up. Discord takes 5 new messages in 5 s per channel, and a fast game outruns that. So
that the live table is never stuck behind a backlog, the per-trick modes fold what the channel
missed: a deal none of whose messages was posted before its bidding ended is shown in its
compact form (``d3.live``, one message for bids and tricks), and a deal that falls a trick
behind shows its remaining tricks in one message, ``d3.r5`` (from trick 6 on), live while the
deal is played. Which form a deal has follows from what was delivered (``View.delivered``), so
it never changes once posted: every trick appears exactly once, in order.

The end of the game. The final standings are the last message where the game is played (the
table's channel, or its thread), and carry what that place still owes when the game ends
(``_fold_owed``), so that they come at once: the owed deals in full, as embeds before the
standings, or, when those do not all fit in one message, the earlier ones by their score tables
only (their cards are in the game record). The publisher keeps one slot of that place's five
free for them (``Publisher._reserve``). In thread mode the channel keeps the lobby, which then
names the winner and links the thread.

"Your hand" is on the newest message of the game: the live one once it is posted; until then,
the newest message delivered keeps it, and each message posted while catching up carries it
(the publisher plans again after every new message, and the one before loses it).

A message is *final* when nothing can change it any more: the publisher then compares it with
what it delivered only once, so that a long game does not redraw every old trick at each move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from typing import Literal

import discord

from bot.i18n import Translations, for_table
from bot.model import END_POST_KEY, FINAL_POST_KEY, MODES, Mode, Table, mode_of
from bot.pace import DEFAULT_PACE, Pace
from kachuful_core import Game, Phase

from . import club
from . import deal as deal_render
from .limits import MAX_EMBED_TOTAL, MAX_FIELDS
from .names import clip_name
from .open_table import TableLink
from .specs import ButtonSpec, MessageSpec, embed_size, without_picture
from .table import final_standings, hand_button, lobby, lobby_started, start_message
from .words import notice, seat_name

Where = Literal["channel", "game"]  # the table's channel, or where the game is played


@dataclass(frozen=True)
class Post:
    key: str
    where: Where
    final: bool
    build: Callable[[], MessageSpec]
    ping: bool = False


@dataclass(frozen=True)
class View:
    """What the render needs besides the stored row and game."""

    lobby_minutes: int
    idle_hours: float
    deadline: datetime | None = None  # the turn clock of the human to act
    club: str | None = None  # the server's club pages (bot/web/club), when the web is on
    table_link: TableLink | None = (
        None  # the table's web page (bot/web/links.py), when the web is on
    )
    late: bool = False  # an event's table waits on them past half their clock
    thread_id: int | None = None
    pace: Pace = DEFAULT_PACE  # for the lobby's estimate of the game's length
    delivered: frozenset[str] = frozenset()  # keys of the messages already posted


def _tr(row: Table) -> Translations:
    """Every public message is in the table's language, kept with its options."""
    return for_table(row.options)


def public_posts(row: Table, game: Game | None, view: View) -> list[Post]:
    """Every public message the table should have now, in the order they are posted."""
    posts = [_lobby_post(row, game, view)]
    if game is None:
        return posts
    if mode_of(row) == "thread":
        posts.append(Post("thread", "channel", True, lambda: MessageSpec()))
    posts.append(Post("start", "game", True, lambda: start_message(row, game, _tr(row))))
    posts += _deal_posts(row, game, view)
    end = _end_posts(row, game, view)
    if end and end[0].key == FINAL_POST_KEY:
        posts, end = _fold_owed(row, game, view, posts, end[0])
    posts += end
    posts += _ping(row, game, view)
    return posts


def _lobby_post(row: Table, game: Game | None, view: View) -> Post:
    if row.options.event_title is not None:
        # An event's table has no lobby: its thread opens with whose table it is.
        return Post("lobby", "channel", True, lambda: club.table_head(row, _tr(row)))
    if row.status == "lobby":
        return Post(
            "lobby",
            "channel",
            False,
            lambda: lobby(
                row,
                _tr(row),
                timeout_minutes=view.lobby_minutes,
                pace=view.pace,
                table_link=view.table_link,
            ),
        )
    if game is None:
        closed = _lobby_closed_text(row, view)
        return Post(
            "lobby",
            "channel",
            True,
            lambda: lobby(row, _tr(row), timeout_minutes=0, pace=view.pace, closed=closed),
        )
    final = row.status != "running"
    return Post(
        "lobby",
        "channel",
        final,
        lambda: lobby_started(row, _tr(row), view.thread_id, game, view.table_link),
    )


def _lobby_closed_text(row: Table, view: View) -> str:
    ended = row.ended or ""
    tr = _tr(row)
    if ended.startswith("stop:"):
        return notice("lobby_closed_by", tr, by=f"<@{ended[5:]}>")
    if ended == "lobby_timeout":
        return tr.ngettext(
            "Nobody started the game within {n} minute.",
            "Nobody started the game within {n} minutes.",
            view.lobby_minutes,
        ).format(n=view.lobby_minutes)
    return notice("host_left_lobby_closed", tr)


def _turn(game: Game, deal: int, view: View) -> deal_render.Turn | None:
    if game.deal_index != deal or game.turn is None or game.phase is Phase.FINISHED:
        return None
    return deal_render.Turn(game.turn, view.deadline)


def _deal_posts(row: Table, game: Game, view: View) -> list[Post]:
    posts: list[Post] = []
    for index, log in enumerate(game.deals):
        current = index == game.deal_index and game.phase is not Phase.FINISHED
        turn = _turn(game, index, view) if row.status == "running" else None
        bidding = current and game.phase is Phase.BIDDING
        if _compact(row, index, bidding, view):
            posts.append(
                Post(
                    f"d{index}.live",
                    "game",
                    not current,
                    _bind(deal_render.compact, row, game, index, turn),
                )
            )
        else:
            posts.append(
                Post(
                    f"d{index}.bids",
                    "game",
                    not bidding,
                    _bind(deal_render.bidding, row, game, index, turn if bidding else None),
                )
            )
            posts += _trick_posts(row, game, index, turn, current, view.delivered)
        if log.scores is not None:
            posts.append(Post(f"d{index}.score", "game", True, _scores(row, game, index)))
    _give_buttons(row, posts, view)
    return posts


def _compact(row: Table, index: int, bidding: bool, view: View) -> bool:
    """Whether deal ``index`` is one message: in compact mode, and when catching up (nothing
    of it was posted while it was bid), unless its bidding message is out already."""
    if mode_of(row) == "compact" or f"d{index}.live" in view.delivered:
        return True
    return f"d{index}.bids" not in view.delivered and not bidding


def _scores(row: Table, game: Game, index: int) -> Callable[[], MessageSpec]:
    return lambda: deal_render.deal_scores(row, game, index, _tr(row))


def _bind(
    function: Callable[[Table, Game, int, deal_render.Turn | None, Translations], MessageSpec],
    row: Table,
    game: Game,
    index: int,
    turn: deal_render.Turn | None,
) -> Callable[[], MessageSpec]:
    return lambda: function(row, game, index, turn, _tr(row))


def _trick_posts(
    row: Table,
    game: Game,
    index: int,
    turn: deal_render.Turn | None,
    current: bool,
    delivered: frozenset[str],
) -> list[Post]:
    log = game.deals[index]
    count = len(log.tricks)
    if current and game.phase is Phase.PLAYING and count == len(log.trick_winners):
        count += 1  # the next trick is due: its message says who leads
    posted = next((n for n in range(count) if f"d{index}.t{n}" not in delivered), count)
    rest = next((n for n in range(count) if f"d{index}.r{n}" in delivered), None)
    if rest is None and count - posted >= 2:
        rest = posted  # a trick behind: the rest of the deal goes in one message
    posts = []
    for number in range(count if rest is None else rest):
        done = number < len(log.trick_winners)
        live_turn = None if done else turn
        build = _trick(row, game, index, number, live_turn)
        posts.append(Post(f"d{index}.t{number}", "game", done, build))
    if rest is not None:
        done = not current
        build = _tricks_from(row, game, index, rest, turn)
        posts.append(Post(f"d{index}.r{rest}", "game", done, build))
    return posts


def _tricks_from(
    row: Table, game: Game, index: int, first: int, turn: deal_render.Turn | None
) -> Callable[[], MessageSpec]:
    return lambda: deal_render.tricks_from(row, game, index, first, turn, _tr(row))


def _trick(
    row: Table, game: Game, index: int, number: int, turn: deal_render.Turn | None
) -> Callable[[], MessageSpec]:
    return lambda: deal_render.trick(row, game, index, number, turn, _tr(row))


def _give_buttons(row: Table, posts: list[Post], view: View) -> None:
    """Only the newest message of a running game carries "Your hand" (and "I'm back", and the
    notes about away seats): the live one once it is posted; until then the newest posted one
    keeps them, and each message still to post gets them (it is the newest when it is posted).
    Older ones lose them, and nothing carries them once the game is over."""
    if row.status != "running" or not posts or posts[-1].final:
        return
    carriers = [len(posts) - 1]
    if posts[-1].key not in view.delivered:
        carriers = [i for i, post in enumerate(posts) if post.key not in view.delivered]
        posted = [i for i, post in enumerate(posts) if post.key in view.delivered]
        carriers += posted[-1:]
    for index in carriers:
        post = posts[index]
        posts[index] = Post(post.key, post.where, False, _with_buttons(row, view, post.build))


def _with_buttons(
    row: Table, view: View, build: Callable[[], MessageSpec]
) -> Callable[[], MessageSpec]:
    def with_buttons() -> MessageSpec:
        spec = build()
        tr = _tr(row)
        buttons: list[ButtonSpec] = [hand_button(row, tr)]
        for number, (seat, entry) in enumerate(deal_render.away_seats(row)):
            label = tr.gettext("I'm back ({name})").format(name=clip_name(entry.name, 40))
            buttons.append(
                ButtonSpec(("back", row.id, seat), label, "success", row=1 + number // 5)
            )
        notes = deal_render.seat_notes(row, view.idle_hours, tr)
        content = "\n".join(filter(None, [spec.content, *notes])) or None
        return replace(spec, content=content, buttons=tuple(buttons))

    return with_buttons


def _end_posts(row: Table, game: Game, view: View) -> list[Post]:
    if row.status == "finished" and game.phase is Phase.FINISHED:
        # Where the game was played, after its last deal: in thread mode the thread, whose
        # pacing keeps a slot for them (the channel's lobby names the winner and links it).
        url = None if view.club is None else f"{view.club}/game/{row.id}"
        return [
            Post(FINAL_POST_KEY, "game", True, lambda: final_standings(row, game, _tr(row), url))
        ]
    if row.status == "stopped":
        return [Post(END_POST_KEY, "game", True, lambda: ended_notice(row))]
    return []


# Discord's limit of embeds in one message (with 6000 characters in all, MAX_EMBED_TOTAL):
# the final standings and what they carry of the deals still owed.
MAX_EMBEDS = 10


def _fold_owed(
    row: Table, game: Game, view: View, posts: list[Post], final: Post
) -> tuple[list[Post], list[Post]]:
    """At the end of a fast game the channel may still owe deals' messages (Discord takes 5 new
    messages in 5 s): the final standings carry them, before the standings, in the order they
    happened, so that they come with the next message rather than after a queue. The latest
    owed deals are shown in full (pictures stay with the messages that were posted: a folded
    trick is its text line); those before them, when the full forms do not all fit in one
    message, by their score tables only, in one embed. What fits in neither is posted first,
    as it is.

    This runs at every plan of a finished game (under the table's lock): each owed deal is
    drawn at most once in each form, and full forms only for the latest deals that fit."""
    groups = _owed_deals(posts, view)
    if not groups:
        return posts, [final]
    standings = final.build()
    tr = _tr(row)
    full = cache(lambda g: _owed_embeds(row, game, groups[g][1], tr))
    field = cache(lambda g: _score_field(row, game, _deal(groups[g][1][0]), tr))

    def folded(first: int, cut: int) -> tuple[discord.Embed, ...] | None:
        """Groups ``first``..``cut`` by their scores, the rest in full; None if too much."""
        if cut - first > MAX_FIELDS:
            return None
        summary = _summary([field(g) for g in range(first, cut)], tr)
        embeds = (*summary, *(e for g in range(cut, len(groups)) for e in full(g)))
        embeds += standings.embeds
        if len(embeds) > MAX_EMBEDS or sum(map(embed_size, embeds)) > MAX_EMBED_TOTAL:
            return None
        return embeds

    # The fewest deals left out (posted as they are), then the most of the rest in full: each
    # deal moved from scores to full only grows the message, so the first that fails ends it.
    first = next(f for f in range(len(groups) + 1) if folded(f, len(groups)) is not None)
    if first == len(groups):
        return posts, [final]  # not even the last owed deal's scores fit
    cut = len(groups)
    while cut > first and folded(first, cut - 1) is not None:
        cut -= 1
    embeds = folded(first, cut)
    assert embeds is not None
    spec = replace(standings, embeds=embeds)
    return posts[: groups[first][0]], [Post(final.key, final.where, True, lambda: spec)]


def _owed_deals(posts: list[Post], view: View) -> list[tuple[int, list[str]]]:
    """The deals whose posts at the end of ``posts`` were not delivered: for each, the index of
    its first owed post and the keys of its owed posts, in order."""
    start = len(posts)
    while start > 0 and posts[start - 1].key.startswith("d"):
        if posts[start - 1].key in view.delivered:
            break
        start -= 1
    groups: list[tuple[int, list[str]]] = []
    for index in range(start, len(posts)):
        key = posts[index].key
        if groups and _deal(groups[-1][1][0]) == _deal(key):
            groups[-1][1].append(key)
        else:
            groups.append((index, [key]))
    return groups


def _deal(key: str) -> int:
    """The deal index of a deal's post key ("d3.t4" is deal 3)."""
    return int(key[1 : key.index(".")])


def _score_field(row: Table, game: Game, deal: int, tr: Translations) -> tuple[str, str]:
    """A deal as a field of the summary: its title, and its score table."""
    table = deal_render.deal_scores(row, game, deal, tr).embeds[0].description or ""
    return deal_render.deal_title(game, deal, tr), table


def _summary(fields: list[tuple[str, str]], tr: Translations) -> tuple[discord.Embed, ...]:
    """Owed deals by their score tables only, a field each, in one embed (none: no embed)."""
    if not fields:
        return ()
    embed = discord.Embed(
        title=tr.gettext("Deals played faster than the channel could show them"),
        description=tr.gettext("Every card of them is in the game record: /kachuful export."),
        colour=deal_render.COLOUR_SCORES,
    )
    for name, value in fields:
        embed.add_field(name=name, value=value, inline=False)
    return (embed,)


def _owed_embeds(
    row: Table, game: Game, keys: list[str], tr: Translations
) -> tuple[discord.Embed, ...]:
    """What the owed posts of one finished deal show, as embeds, in order: its first owed trick
    message shows the rest of its tricks (the later ones add nothing)."""
    embeds: list[discord.Embed] = []
    tricks_shown = False
    for key in keys:
        deal, kind = _deal(key), key[key.index(".") + 1 :]
        if kind == "score":
            spec = deal_render.deal_scores(row, game, deal, tr)
        elif kind == "bids":
            spec = deal_render.bidding(row, game, deal, None, tr)
        elif kind == "live":
            spec = deal_render.compact(row, game, deal, None, tr)
        elif tricks_shown:
            continue
        else:
            tricks_shown = True
            spec = deal_render.tricks_from(row, game, deal, int(kind[1:]), None, tr)
        embeds += (without_picture(embed) for embed in spec.embeds)
    return tuple(embeds)


def ended_notice(row: Table) -> MessageSpec:
    ended = row.ended or ""
    _ = _tr(row).gettext
    if ended.startswith("stop:"):
        text = "🛑 " + _(
            "The game was stopped by {by}. It does not count for the leaderboard."
        ).format(by=f"<@{ended[5:]}>")
    elif ended == "idle":
        text = "⌛ " + _(
            "Everyone at this table was away for too long, so the game was closed. It does "
            "not count for the leaderboard. Start a new one with `/kachuful start`."
        )
    elif ended == "all_left":
        text = "🚪 " + _(
            "No player is left at the table: the game is stopped. It does not count for the "
            "leaderboard."
        )
    else:
        text = "🛑 " + _("The game was stopped. It does not count for the leaderboard.")
    return MessageSpec(content=text)


def _ping(row: Table, game: Game, view: View) -> list[Post]:
    """The one turn ping of the table: a human whose turn it is, mentioned in a new message
    (edits do not notify); deleted once they have acted or their clock ran out."""
    if row.status != "running" or game.turn is None or game.phase is Phase.FINISHED:
        return []
    entry = row.seats[game.turn]
    if entry.computer_plays or entry.user_id is None:
        return []
    user_id = entry.user_id
    _ = _tr(row).gettext
    if game.phase is Phase.BIDDING:
        words = _("{mention}, your turn to bid.")
    elif not game.current_trick:
        words = _("{mention}, your turn to lead.")
    else:
        words = _("{mention}, your turn to play.")
    key = f"ping.{row.version}"
    if view.late:
        # An event's table held up: a second ping, a new message (an edit would not notify).
        words = _("{mention}, your table is waiting for you: half your time is gone.")
        key += ".late"
    text = "🔔 " + words.format(mention=f"<@{user_id}>")

    def build() -> MessageSpec:
        # Only the mention and what to do: the table's live message above says the rest
        # (who is to act, the deal, the clock), so no line is shown twice.
        return MessageSpec(content=text, mention_ids=(user_id,))

    return [Post(key, "game", True, build, ping=True)]


__all__ = ["MODES", "Mode", "Post", "View", "ended_notice", "mode_of", "public_posts", "seat_name"]
