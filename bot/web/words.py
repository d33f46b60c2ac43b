"""The web table's labels (WEB.md, ``words`` in a view), from the bot's catalogues in the
reader's language: the client has no catalogue of its own, so a word players read on the web
is translated where every other word of the bot is (bot/locale).

Each key is the client's (bot/web/static/table/words.js); the values are filled by the client
(``{name}`` placeholders), so a translation may move them but must keep every one."""

from __future__ import annotations

from functools import cache

from bot.i18n import N_, translation
from bot.render.cards import rank_name

WORDS: dict[str, str] = {
    "deal": N_("Deal {number} of {of}"),
    "hand_size": N_("Cards: {n}"),
    "trump": N_("Trump: {suit}"),
    "no_trump": N_("No trump"),
    "spades": N_("spades"),
    "hearts": N_("hearts"),
    "diamonds": N_("diamonds"),
    "clubs": N_("clubs"),
    "card": N_("{rank} of {suit}"),
    "face_down": N_("Your card (unseen)"),
    "bid": N_("Bid"),
    "tricks": N_("Tricks"),
    "score": N_("Score"),
    "your_turn": N_("Your turn"),
    "your_bid": N_("Your bid"),
    "bid_n": N_("Bid {n}"),
    "blind_bid_n": N_("Bid {n} blind"),
    "waiting_for": N_("Waiting for {name}"),
    "bidding": N_("Bidding"),
    "playing": N_("Playing"),
    "lobby": N_("Waiting for the game to start"),
    "deal_over": N_("Deal over"),
    "finished": N_("Game over"),
    "stopped": N_("The game was stopped"),
    "dealer": N_("Dealer"),
    "bot": N_("Computer"),
    "away": N_("Offline"),
    "you": N_("{name} (you)"),  # a seat's name, the reader's own
    "trick": N_("Trick"),
    "hand": N_("Your hand"),
    "last_trick": N_("Last trick"),
    "won_trick": N_("{name} won the trick"),
    "takeback": N_("Take back"),
    "claim": N_("Claim the rest"),
    "confirm": N_("Confirm"),
    "look": N_("Look at my cards"),
    "confirm_cards": N_("Confirm each card"),
    "scores": N_("Scores"),
    "close": N_("Close"),
    "total": N_("Total"),
    "deal_column": N_("Deal"),
    "standings": N_("Final standings"),
    "place": N_("Place"),
    "chart": N_("Scores deal by deal"),
    "seconds_left": N_("{s} seconds left"),
    "reconnecting": N_("Connection lost: reconnecting…"),
    "refused": N_("That move was refused."),
    "watching": N_("You are watching this table."),
    "login": N_("Log in with Discord"),
    "login_needed": N_("Log in with Discord to see this table."),
    "no_table": N_("Open a table from Discord to play here."),
}


@cache
def words(language: str) -> dict[str, str]:
    """Every label of the client in ``language`` (built once per language: a view carries the
    same dictionary each time)."""
    tr = translation(language)
    out = {"title": "Kachuful"}
    out.update((key, tr.gettext(text)) for key, text in WORDS.items())
    # The court cards and the ace as the corners print them (bot/render/cards.py: the
    # channel's cards say the same).
    for key, rank in (("rank_j", 9), ("rank_q", 10), ("rank_k", 11), ("rank_a", 12)):
        out[key] = rank_name(rank, tr)
    return out
