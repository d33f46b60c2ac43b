"""/kachuful review and the Review button (docs/review.md): a finished game's review, computed
once off the event loop, stored, shown privately in the reader's language; its replay with
every seat's cards; refusals that change nothing; a crash in the middle loses and doubles
nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import simcord

from bot.client import KachufulBot
from bot.review import reviewer as reviewer_module
from bot.store.learning import Reviews
from kachuful_core import load_game
from tests.bot.helpers import start_game, world
from tests.bot.locales import speak

from .helpers import final_standings, finished_game, labels, texts

pytestmark = pytest.mark.both_backends


def count_computations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The deals the reviewer computes, as it computes them."""
    computed: list[int] = []
    original = reviewer_module.review_deal

    def counted(document: dict[str, Any], number: int) -> Any:
        computed.append(number)
        return original(document, number)

    monkeypatch.setattr(reviewer_module, "review_deal", counted)
    return computed


async def test_the_review_button_answers_privately_and_computes_once(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    computed = count_computations(monkeypatch)
    table, (asha, bilal, _chen), game_id = await finished_game(env)
    standings = final_standings(table)
    assert labels(standings) == ["Play again", "Review"]

    first = await bilal.click(standings, label="Review")
    assert first.ephemeral and first.response is not None
    shown = texts(first.response)
    assert f"Review of game #{game_id}" in shown
    for name in ("asha", "bilal", "chen"):
        assert name in shown
    assert "as the Expert's" in shown and "Luck" in shown and "Page 1 of 3" in shown
    assert computed == [0, 1]  # both deals, once each
    # Stored: the next reader, or the same one after a restart, reads it without computing.
    await env.restart_bot(make_bot())
    again = await asha.slash(table.channel, "kachuful review", game=game_id)
    assert again.response is not None and f"Review of game #{game_id}" in texts(again.response)
    assert computed == [0, 1]
    assert await env.bot.store.reviews.get(game_id) is not None

    # Next: the first deal's figures, on the same private message.
    page = await asha.click(again.response, label="Next")
    shown = texts(page.response)
    assert "Deal 1 · 2 cards" in shown and "The Expert bids" in shown
    assert "Page 2 of 3" in shown
    # Public channel untouched by the review: only the game's own messages.
    assert all("Review of game" not in texts(m) for m in table.public())


async def test_the_replay_shows_every_seat_s_cards_step_by_step(env: simcord.Env) -> None:
    table, (asha, _bilal, _chen), game_id = await finished_game(env)
    review = await asha.slash(table.channel, "kachuful review", game=game_id)
    replay = await asha.click(review.response, label="Replay")
    shown = texts(replay.response)
    assert "The hands as dealt, and the bids" in shown and "Step 1 of" in shown
    stored = await env.bot.store.reads.game(game_id)
    game = load_game(stored.record)
    first = game.deals[0]
    from bot.i18n import EN
    from bot.render.cards import hand_text

    for hand in first.hands:  # every seat's cards, as dealt
        assert hand_text(hand, EN) in shown
    step = await asha.click(replay.response, label="Next")
    shown = texts(step.response)
    assert "Trick 1:" in shown and "🏆" in shown and "Step 2 of" in shown
    # Previous goes back; the first step has no Previous to click.
    back = await asha.click(step.response, label="Previous")
    assert "The hands as dealt" in texts(back.response)


async def test_review_refusals_change_nothing(env: simcord.Env) -> None:
    _table, _members, elsewhere = await finished_game(env, "dev", "emma", "farid")
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2, schedule="down")
    running = table.session.row.id
    refused = await members[0].slash(channel, "kachuful review", game=running)
    assert refused.ephemeral and f"Game #{running} is not over" in refused.response.content
    missing = await members[0].slash(channel, "kachuful review", game=999)
    assert missing.ephemeral and "no game 999" in missing.response.content
    # Another server's finished game is no game here.
    foreign = await members[0].slash(channel, "kachuful review", game=elsewhere)
    assert foreign.ephemeral and f"no game {elsewhere}" in foreign.response.content
    latest = await members[0].slash(channel, "kachuful review")
    assert latest.ephemeral and "No game has finished here" in latest.response.content
    for game_id in (running, elsewhere):
        assert await env.bot.store.reviews.get(game_id) is None


async def test_the_review_reads_in_the_reader_s_language(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, (asha, bilal, chen), game_id = await finished_game(env)
    speak(monkeypatch, {asha.id: "fr", bilal.id: "hi", chen.id: "it"})
    from bot import i18n

    for member, language in ((asha, "fr"), (bilal, "hi"), (chen, "it")):
        tr = i18n.translation(language)
        answer = await member.click(final_standings(table), label="Review")
        shown = texts(answer.response)
        assert tr.gettext("Review of game #{game}").format(game=game_id) in shown, language
        assert tr.gettext("Luck") in shown
        replay = await member.click(answer.response, label=tr.gettext("Replay"))
        assert tr.gettext("The hands as dealt, and the bids") in texts(replay.response)


class Died(BaseException):
    pass


@pytest.mark.parametrize("after", [False, True], ids=["before-store", "after-store"])
async def test_a_crash_while_reviewing_loses_and_doubles_nothing(
    env: simcord.Env,
    monkeypatch: pytest.MonkeyPatch,
    make_bot: Callable[[], KachufulBot],
    after: bool,
) -> None:
    computed = count_computations(monkeypatch)
    table, (asha, _b, _c), game_id = await finished_game(env)
    original = Reviews.put
    died: list[bool] = []

    async def dies(self: Reviews, gid: int, document: dict[str, Any]) -> bool:
        if not died:
            died.append(True)
            if after:
                await original(self, gid, document)
            raise asyncio.CancelledError  # the process stops here
        return await original(self, gid, document)

    monkeypatch.setattr(Reviews, "put", dies)
    cut = await asha.click(final_standings(table), label="Review")
    assert cut.response is not None and "Review of game" not in texts(cut.response)
    await env.restart_bot(make_bot())
    answer = await asha.slash(table.channel, "kachuful review", game=game_id)
    assert f"Review of game #{game_id}" in texts(answer.response)
    stored = await env.bot.store.reviews.get(game_id)
    assert stored is not None and len(stored["deals"]) == 2
    # Computed again only when the first computation was not stored.
    assert computed == ([0, 1] if after else [0, 1, 0, 1])
