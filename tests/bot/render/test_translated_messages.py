"""Messages rendered with a language's translations read in that language: the render
functions use the translations they are given (tiny catalogues made here, so that these tests
do not wait for the translators), the reader's for a private message and the table's for a
public one, in whole SimCord games; and the slash commands carry their localisations."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import discord
import pytest
import simcord
from discord import app_commands

from bot import i18n, render
from bot.client import KachufulBot
from bot.command_translator import CommandTranslator
from bot.i18n import EN
from bot.model import Seat, TableOptions
from bot.render import deal as deal_render
from bot.render.channel import public_posts
from kachuful_core import Game, Rules
from kachuful_core.views import view as seat_view

from ..catalogue import tiny_po, tiny_translations
from ..helpers import Table, lobby_message, start_game
from ..locales import speak
from .test_render import row_for

FR = {
    "You are not seated at this table.": "Vous n'êtes pas assis à cette table.",
    "Your hand — deal {deal} of {deals}": "Votre main — donne {deal} sur {deals}",
    ("{total} bid for {n} trick", "{total} bid for {n} tricks"): (
        "{total} annoncé pour {n} pli",
        "{total} annoncés pour {n} plis",
    ),
    "spades": "pique",
    "Kachuful — a table is open": "Kachuful — une table est ouverte",
    "Kachuful — game started": "Kachuful — partie commencée",
    "Rules in force at this table": "Règles en vigueur à cette table",
    "{mention}, your turn to bid.": "{mention}, à vous d'annoncer.",
    "Only you see this message": "Vous seul voyez ce message",
    "Open a Kachuful table in this channel": "Ouvrir une table de Kachuful dans ce salon",
    "Exact: 10 + bid, miss 0": "Exact : 10 + annonce, sinon 0",
    "{choice} (default)": "{choice} (par défaut)",
}
HI = {
    "Only you see this message": "यह संदेश केवल आप देख सकते हैं",
    "Kachuful — a table is open": "कचुफुल — एक मेज़ खुली है",
}


def test_a_render_function_speaks_the_language_it_is_given() -> None:
    fr = tiny_translations("fr", FR)
    assert render.refusal("not_seated", fr) == "Vous n'êtes pas assis à cette table."
    assert render.refusal("not_seated", EN) == "You are not seated at this table."
    game = Game.new(Rules(players=3, max_hand=3), "seed", players=["a", "b", "c"])
    row = row_for(3)
    spec = render.hand_message(row, seat_view(game, 0), fr, version=0)
    assert spec.embeds[0].title == "Votre main — donne 1 sur 5"
    assert spec.embeds[0].footer.text == "Vous seul voyez ce message"


def test_plurals_follow_the_languages_rule() -> None:
    fr = tiny_translations("fr", FR)
    rules = Rules(players=3, max_hand=1, schedule="down")
    game = Game.new(rules, "seed", players=["a", "b", "c"])
    spec = deal_render.bidding(row_for(3), game, 0, None, fr)
    # French counts 0 and 1 as singular: "0 annoncé pour 1 pli".
    assert "0 annoncé pour 1 pli" in str(spec.embeds[0].to_dict())
    english = deal_render.bidding(row_for(3), game, 0, None, EN)
    assert "0 bid for 1 trick" in str(english.embeds[0].to_dict())


@pytest.fixture
def catalogues(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The bot's catalogues replaced by tiny French and Hindi ones for one test."""
    root = tmp_path_factory.mktemp("locale")
    for language, messages in (("fr", FR), ("hi", HI)):
        folder = root / language / "LC_MESSAGES"
        folder.mkdir(parents=True)
        (folder / "kachuful.po").write_bytes(tiny_po(language, messages))
    monkeypatch.setattr(i18n, "LOCALE_DIR", root)
    i18n.translation.cache_clear()
    yield
    i18n.translation.cache_clear()


@pytest.mark.usefixtures("catalogues")
async def test_a_french_server_with_a_hindi_player(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    guild = env.create_guild("Club", preferred_locale="fr")
    channel = guild.create_text_channel("cartes")
    amelie, priya, tom = (guild.add_member(env.create_user(n)) for n in ("amelie", "priya", "tom"))
    speak(monkeypatch, {amelie.id: "fr", priya.id: "hi", tom.id: "en-GB"})
    table: Table = await start_game(env, channel, [amelie, priya, tom])
    # Public: the table's language (the server's), whoever clicked.
    titles = [e.title for m in table.public() for e in m.embeds]
    assert "Règles en vigueur à cette table" in titles
    pings = [m.content for m in table.public() if (m.content or "").startswith("🔔")]
    assert pings and pings[-1].endswith("à vous d'annoncer.")
    # Private: each reader's own language.
    footers = {}
    for member in (amelie, priya, tom):
        hand = await table.open_hand(member)
        footers[member.name] = hand.embeds[0].footer.text
    assert footers == {
        "amelie": "Vous seul voyez ce message",
        "priya": "यह संदेश केवल आप देख सकते हैं",
        "tom": "Only you see this message",
    }
    # A redraw of Priya's hand with no interaction of hers (another player's move) stays Hindi.
    seat = table.game.turn
    actor = table.member_at(seat)
    assert actor is not None
    await table.act(actor)
    assert table.hand(priya).embeds[0].footer.text == "यह संदेश केवल आप देख सकते हैं"
    # ... and after a restart, from the language stored with her hand message.
    await env.restart_bot(make_bot())
    before = table.hand(priya).embeds[0].to_dict()
    seat = table.game.turn
    actor = table.member_at(seat)
    assert actor is not None and actor is not priya
    await table.act(actor)
    redrawn = table.hand(priya)
    assert redrawn.embeds[0].to_dict() != before  # redrawn after the move
    assert redrawn.embeds[0].footer.text == "यह संदेश केवल आप देख सकते हैं"
    # The lobby message, edited into "game started", is French too.
    assert lobby_message(channel).embeds[0].title == "Kachuful — partie commencée"


@pytest.mark.usefixtures("catalogues")
async def test_commands_carry_their_translations() -> None:
    translator = CommandTranslator()
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.command_description, None
    )
    text = app_commands.locale_str("Open a Kachuful table in this channel")
    fr = await translator.translate(text, discord.Locale.french, context)
    assert fr == "Ouvrir une table de Kachuful dans ce salon"
    assert await translator.translate(text, discord.Locale.japanese, context) is None
    # A registry choice, marked as the default in the user's words.
    from bot import registry
    from bot.command_translator import choice_str

    option = registry.option("scoring")
    exact = choice_str("scoring", option.choice_of["exact"])
    choice = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.choice_name, None
    )
    assert await translator.translate(exact, discord.Locale.french, choice) == (
        "Exact : 10 + annonce, sinon 0 (par défaut)"
    )
    # Names stay English.
    name = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.command_name, None
    )
    assert (
        await translator.translate(app_commands.locale_str("start"), discord.Locale.french, name)
        is None
    )


def test_seat_words_are_the_readers() -> None:
    fr = tiny_translations(
        "fr", {"(computer · {level})": "(ordinateur · {level})", "Casual": "Amateur"}
    )
    seat = Seat(user_id=None, name="Ada 🤖", level="heuristic")
    assert render.words.seat_kind(seat, fr) == " (ordinateur · Amateur)"


def test_the_charts_axes_are_in_the_tables_language() -> None:
    from bot.render import chart

    fr = tiny_translations("fr", {"Deal": "Donne", "Score": "Points"})
    labels = chart.chart_labels(fr)
    assert labels == ("Donne", "Points")
    figure = chart._chart()
    figure.update(["A", "B", "C"], [[1], [2], [3]], labels)
    assert (figure.deal_title.get_text(), figure.score_title.get_text()) == labels
    figure.update(["A", "B", "C"], [[1], [2], [3]], chart.chart_labels(EN))
    assert figure.deal_title.get_text() == "Deal"


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("mode", ["trick", "compact"])
def test_every_message_fits_discord_in_each_language(language: str, mode: str) -> None:
    """A whole game at the largest table (7 players, 52 ÷ 7 cards, 31-letter names), every
    public message in the table's language and every hand in the same language, checked
    against Discord's limits (a translation may be longer than the English)."""
    from dataclasses import replace

    from kachuful_core import Phase
    from kachuful_core.players import RandomPlayer, act

    from .test_render import LONG, VIEW, assert_fits, render_public

    tr = i18n.translation(language)
    players = 7
    game = Game.new(
        Rules(players=players, blind_bids=True, forehead=True),
        f"fit-{language}",
        players=[f"{LONG[:-1]}{i}" for i in range(players)],
    )
    row = row_for(players)
    row.options = TableOptions.of(mode=mode, language=language, blind_bids=True, forehead=True)
    row.seats[0].timeouts = 2
    row.seats[-1].away = True
    bots = [RandomPlayer(seat) for seat in range(players)]
    built: set[str] = set()
    keys: set[str] = set()
    while True:
        assert_fits(render.scoreboard(row, game, tr))
        posts = public_posts(row, game, replace(VIEW, delivered=frozenset(keys)))
        for spec in render_public(posts, built):
            assert_fits(spec)
        keys |= {post.key for post in posts}
        for seat in range(players):
            assert_fits(render.hand_message(row, seat_view(game, seat), tr, version=row.version))
        if game.phase is Phase.FINISHED:
            break
        act(game, game.turn, bots[game.turn])
    lobby_row = row_for(players)
    lobby_row.status = "lobby"
    lobby_row.options = TableOptions(language=language)
    assert_fits(render.lobby(lobby_row, tr, timeout_minutes=15))
    assert_fits(render.help_message(tr))
    assert_fits(render.general_rules(tr))
    assert_fits(render.game_rules(game, tr))
    assert_fits(render.level_chooser(row, ["random", "heuristic", "search"], tr))


def test_card_ranks_are_the_readers() -> None:
    from bot.render.cards import hand_text, label

    fr = i18n.translation("fr")
    king_of_spades, ten_of_hearts, jack_of_hearts = 11, 21, 22
    assert label(king_of_spades, EN) == "K♠\ufe0e"
    assert label(king_of_spades, fr) == "R♠\ufe0e"
    assert hand_text([king_of_spades, ten_of_hearts, jack_of_hearts], fr) == (
        "♠\ufe0e R · ♥\ufe0e V 10"
    )
