"""Every kind of message (the table's here, review, practice, score pads, events and seasons in
later_kinds.py), rendered with edge values (0, 1, 2 and negative counts, 1.5 hours, a
no-trump deal, the dealer's forbidden bid, the longest names), in every language: no placeholder
is left raw, no English word is left in a French, Italian or Hindi message, and the sentences
that were once assembled from fragments read whole."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot import render
from bot.i18n import translation
from bot.model import TableOptions
from bot.registry import MUST_BE_SETTING, MUST_BE_START, OPTIONS
from bot.render import deal as deal_render
from bot.render.channel import View, public_posts
from bot.render.results_commands import leaderboard, player_stats
from bot.render.specs import MessageSpec
from bot.render.words import NOTICES, REFUSALS, engine_error, notice
from bot.result_pages import BoardPage, PlayerStats
from kachuful_core import Game, OptionNotEnabled, Phase, Rules
from kachuful_core.players import RandomPlayer, act
from kachuful_core.views import view as seat_view

from .later_kinds import later_messages
from .test_render import LONG, row_for
from .words_check import LANGUAGES, Filler, english_left, raw_placeholders, texts


def stats(games: int, wins: int, zero_bids: int, rated: int) -> PlayerStats:
    return PlayerStats(
        user_id=1,
        name="asha",
        games=games,
        wins=wins,
        average_score=-1.5,
        best_score=-1,
        best_game_id=7,
        exact_bid_rate=0.5,
        zero_bids=zero_bids,
        zero_exact=min(1, zero_bids),
        rating=12.5,
        rating_rank=1,
        rated_players=rated,
    )


def whole_game(language: str, trump: str, scoring: str) -> Iterator[MessageSpec]:
    """Every public message and every hand of a 4-seat game, move by move."""
    names = [f"{LONG[:-1]}{n}" for n in range(4)]
    game = Game.new(Rules(players=4, max_hand=3, trump=trump, scoring=scoring), "words", names)
    row = row_for(4)
    row.options = TableOptions.of(trump=trump, scoring=scoring, language=language)
    tr = translation(language)
    row.seats[0].timeouts = 2
    row.seats[-1].away = True
    view = View(lobby_minutes=15, idle_hours=1.5)
    while True:
        for post in public_posts(row, game, view):
            yield post.build()
        for seat in range(4):
            yield render.hand_message(row, seat_view(game, seat), tr, version=row.version)
        if game.phase is Phase.FINISHED:
            finished = replace(row, status="finished")
            yield from (post.build() for post in public_posts(finished, game, view))
            return
        act(game, game.turn, RandomPlayer(game.turn))


def every_message(language: str) -> Iterator[MessageSpec]:
    tr = translation(language)
    for trump, scoring in (("cycle-notrump", "judgement"), ("turned", "exact")):
        yield from whole_game(language, trump, scoring)
    for games, wins, zero_bids, rated in ((1, 1, 0, 1), (2, 0, 1, 2), (0 + 1, 0, 2, 0)):
        yield player_stats(stats(games, wins, zero_bids, rated), tr)
    yield render.help_message(tr)
    yield render.general_rules(tr)
    for seats in (1, 2):
        lobby = row_for(4)
        lobby.status, lobby.seats = "lobby", lobby.seats[:seats]
        lobby.options = TableOptions.of(language=language, blind_bids=True, forehead=True)
        yield render.lobby(lobby, tr, timeout_minutes=seats)
    game = Game.new(Rules(players=4, max_hand=3), "scoreboard", list("ABCD"))
    yield render.scoreboard(row_for(4), game, tr)
    yield render.game_rules(game, tr)
    yield render.level_chooser(row_for(4), ["random", "heuristic", "search"], tr)
    for text in (*REFUSALS.values(), *NOTICES.values()):  # names and numbers filled in
        yield MessageSpec(content=tr.gettext(text).format_map(Filler()))
    for option in OPTIONS.values():  # a value refused by /kachuful start or /kachuful-settings
        yield MessageSpec(content=option.must_be(tr, MUST_BE_START))
        yield MessageSpec(content=option.must_be(tr, MUST_BE_SETTING, name=option.setting))
    # Review, replay, practice, the score pad, events and seasons.
    yield from later_messages(language)


@pytest.fixture(scope="module", params=LANGUAGES)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[str]]:
    language: str = request.param
    # Each distinct text once (the game redraws the same messages at every move).
    found = dict.fromkeys(text for spec in every_message(language) for text in texts(spec))
    return language, [text for text in found if text]


def test_the_check_finds_english_in_english() -> None:
    """The same messages in English: the check has something to find (it cannot pass
    vacuously)."""
    english = [text for spec in every_message("en") for text in texts(spec)]
    assert len(english_left("en", english)) > 100


def test_no_placeholder_is_left_raw(rendered: tuple[str, list[str]]) -> None:
    language, found = rendered
    assert raw_placeholders(found) == [], f"{language}: {raw_placeholders(found)[:3]}"


def test_no_english_word_is_left(rendered: tuple[str, list[str]]) -> None:
    language, found = rendered
    assert english_left(language, found) == [], f"{language}: {english_left(language, found)[:5]}"


def no_trump_game() -> Game:
    """A game played to its end, one of whose deals has no trump."""
    game = Game.new(Rules(players=4, max_hand=3, trump="cycle-notrump"), "no-trump", list("ABCD"))
    while game.turn is not None:
        act(game, game.turn, RandomPlayer(game.turn))
    return game


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "Deal 5 of 5 · 3 cards · no trump"),
        ("fr", "Donne 5 sur 5 · 3\xa0cartes · sans atout"),
        ("it", "Smazzata 5 di 5 · 3 carte · senza briscola"),
        ("hi", "राउंड 5/5 · 3 पत्ते · बिना तुरुप"),
    ],
)
def test_a_no_trump_deal_is_named_in_one_sentence(language: str, title: str) -> None:
    game = no_trump_game()
    index = next(i for i in range(game.num_deals) if deal_render.trump_of(game, i) is None)
    assert deal_render.deal_title(game, index, translation(language)) == title


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [
        ("fr", "1\xa0partie jouée · 1\xa0gagnée", "2\xa0parties jouées · 0\xa0gagnée"),
        ("it", "1 partita giocata · 1 vinta", "2 partite giocate · 0 vinte"),
        ("hi", "1 गेम खेला · 1 जीता", "2 गेम खेले · 0 जीते"),  # 0 takes the plural
    ],
)
def test_each_count_of_the_statistics_has_its_own_plural(language: str, one: str, two: str) -> None:
    tr = translation(language)
    games = [f.value or "" for f in player_stats(stats(1, 1, 0, 1), tr).embeds[0].fields]
    assert any(one in value for value in games)
    games = [f.value or "" for f in player_stats(stats(2, 0, 1, 2), tr).embeds[0].fields]
    assert any(two in value for value in games)


def test_a_player_who_never_bid_zero_reads_one_sentence() -> None:
    fr = translation("fr")
    [bids] = [
        f.value
        for f in player_stats(stats(1, 1, 0, 1), fr).embeds[0].fields
        if f.value and "réussies" in f.value
    ]
    assert bids.endswith("jamais d’annonce à zéro")
    assert "à zéro\xa0: jamais" not in bids


@pytest.mark.parametrize(
    ("language", "dealer"),
    [("fr", "(à la donne)"), ("it", "(dà le carte)"), ("hi", "(पत्ते इन्होंने बाँटे)")],
)
def test_the_dealer_is_named_without_a_gendered_noun(language: str, dealer: str) -> None:
    tr = translation(language)
    game = no_trump_game()
    row = row_for(4)
    spec = deal_render.bidding(row, game, 0, None, tr)
    assert dealer in (spec.embeds[0].description or "") + "".join(
        f.value or "" for f in spec.embeds[0].fields
    )


def test_the_countdown_has_no_words_beside_the_timestamp() -> None:
    from datetime import UTC, datetime

    assert deal_render.countdown(datetime(2026, 1, 1, tzinfo=UTC)) == " · ⏳ <t:1767225600:R>"


@pytest.mark.parametrize(
    ("points", "shown"), [(-1, "\u22121\xa0point"), (-10, "\u221210\xa0points")]
)
def test_a_negative_count_takes_the_plural_of_its_size(points: int, shown: str) -> None:
    """French says "−1 point" as it says "1 point": the plural follows the count's size, and
    the minus is a true one (U+2212)."""
    game = Game.new(Rules(players=4, max_hand=3, scoring="judgement"), "signed", list("ABCD"))
    view = replace(seat_view(game, 0), totals=(points, 0, 0, 0))
    spec = render.hand_message(row_for(4), view, translation("fr"), version=1)
    assert any(f.value == f"Toi\xa0: {shown}" for f in spec.embeds[0].fields)


def test_a_refused_value_is_one_sentence_in_hindi() -> None:
    """The allowed values close the sentence that names them (Hindi puts its verb last: a list
    put into "must be {allowed}" read "`trump` इनमें से एक: cycle, turned होना चाहिए")."""
    refused = OPTIONS["trump"].must_be(translation("hi"), MUST_BE_START)
    assert refused.startswith("`trump` का मान इनमें से कोई एक होना चाहिए: `cycle`")


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("fr", ("Kachufool", "Rikiki", "Ascenseur")),
        ("it", ("Kachufool", "Oh Diavolo!")),
        ("hi", ("काली-चौकट-फुली-लाल", "जजमेंट")),
    ],
)
def test_the_help_gives_the_games_local_names(language: str, names: tuple[str, ...]) -> None:
    help_text = "".join(texts(render.help_message(translation(language))))
    assert all(name in help_text for name in names)


def test_a_length_is_named_in_its_own_sentence() -> None:
    hindi = translation("hi")
    assert "छोटे गेम के लिए" in notice("length_already_quick", hindi)
    assert "पूरे गेम के लिए" in notice("length_already_full", hindi)


def test_the_bids_field_does_not_repeat_its_name() -> None:
    game = no_trump_game()
    for language, label in (("fr", "Annonces"), ("it", "Dichiarazioni")):
        [field] = (
            deal_render.bidding(row_for(4), game, 0, None, translation(language)).embeds[0].fields
        )
        assert field.name == label
        assert not (field.value or "").lower().startswith(("total annoncé", "dichiarate"))


def test_a_duration_in_hours_agrees_with_its_number() -> None:
    from bot.render.words import duration_text

    hi = translation("hi")
    assert duration_text(3600, hi) == "लगभग 1 घंटा"
    assert duration_text(2 * 3600, hi) == "लगभग 2 घंटे"
    assert duration_text(3600 + 50 * 60, hi) == "लगभग 1 घंटा 50 मिनट"
    assert duration_text(2 * 3600, translation("en")) == "about 2 h"


@pytest.mark.parametrize(
    ("language", "period", "empty"),
    [
        ("hi", "30d", "पिछले 30 दिनों में कोई गेम ख़त्म नहीं हुआ।"),
        ("hi", "7d", "पिछले 7 दिनों में कोई गेम ख़त्म नहीं हुआ।"),
        ("fr", "30d", "Aucune partie terminée ces 30\xa0derniers jours."),
        ("it", "7d", "Nessuna partita finita negli ultimi 7 giorni."),
        ("en", "all", "No finished games here yet."),
    ],
)
def test_an_empty_board_names_its_period_in_one_sentence(
    language: str, period: str, empty: str
) -> None:
    """A period's name put into a sentence missed the case Hindi gives it ("पिछले 30 दिन में")."""
    page = BoardPage(scope="channel", period=period, sort="rating", page=0, pages=1, players=0)  # type: ignore[arg-type]
    assert leaderboard(page, translation(language)).embeds[0].description == empty


def test_an_option_the_table_lacks_is_refused_without_its_code_name() -> None:
    for language in ("en", *LANGUAGES):
        tr = translation(language)
        assert engine_error(OptionNotEnabled("a_future_option"), row_for(4), tr) == tr.gettext(
            "The rules do not allow that."
        )
