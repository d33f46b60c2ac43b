"""Help and the general rules (when no game is running)."""

from __future__ import annotations

import discord

from bot.i18n import N_, Translations

from .cards import text_suits
from .permissions import fill
from .scorepad import REAL_DECK
from .specs import MessageSpec

HELP = N_("""\
**Kachuful** (Oh Hell): bid the exact number of tricks you will take.

`/kachuful start` opens a table here (choose the options), others click **Join** or the host adds \
computer players, and the host clicks **Start** (3 to 7 seats). The lobby says how many deals \
the game has and about how long it takes; the host picks a quick, classic or full game there.
Each deal the table message shows the deal, trump, dealer and bids. Click **Your hand** to see \
your cards: only you see them. Bid and play with the buttons there; cards you may not play are \
greyed out.
If your turn clock runs out, the computer plays for you; after 3 time-outs in a row it keeps \
your seat until you click **I'm back**.

**At the table**
`/kachuful join` · take a seat
`/kachuful leave` · leave your seat (in a running game the computer takes it over)
`/kachuful hand` · your hand again
`/kachuful score` · the scores so far
`/kachuful rules` · the rules in force
`/kachuful stop` · end the game, no leaderboard change (host or {manage_guild})

**Results**
`/kachuful leaderboard` · the best players of this channel or server
`/kachuful stats` · your statistics in this server (or another member's)
`/kachuful history` · this channel's recent games
`/kachuful export` · a finished game's record (JSON), with the seeds to check the dealing

**Channel**
`/kachuful-settings` · this channel's defaults for new games ({manage_guild})
`/kachuful help` · this message""")

# Its own paragraph (a field of the help), so that each catalogue keeps HELP as it was read.
HELP_END_OF_DEAL = N_("""\
The last trick of a deal plays itself. On your turn to play, **Claim the rest** says you take \
every remaining trick: if that is certain whatever the others hold, the deal is played out at \
once; if not, only you are told, and you play on. **Only card played for me** (on your hand) \
plays your card for you whenever you may play only one.""")

HELP_EVENTS = N_("""\
`/kachuful-event open` (organisers) opens an event of several rounds, each table in its own \
thread: players click **Register**, `/kachuful-event start` seats round 1, and each next \
round is seated as soon as the last one is over. **Rotation** meets new opponents every \
round; in **duplicate** every table of a round plays the same cards. Also `/kachuful-event \
standings`, `pause`, `resume`, `drop`, `close`, and `/kachuful export event:`. \
`/kachuful-season setup` ({manage_guild}) keeps monthly or quarterly seasons with their \
champions: `/kachuful-season standings`, `/kachuful-season champions`.""")

HELP_LEARNING = N_("""\
**Review** on the final standings, or `/kachuful review [game]`, shows you privately, for \
each player and deal: the bid against the Expert's with the same cards, and the points it gave \
away by the Expert's reckoning; the tricks the play came nearer to the bid (+) or further (−) \
than the Expert playing the same cards; and the luck of the cards, against an average hand, \
in expected points. **Replay** steps through the game trick by trick, every seat's cards \
shown. `/kachuful practice [game] [deal] [level]` plays a deal again alone against the \
computer (with no game, a fresh deal): private, unrated, with a **Hint** when you ask.""")

HELP_SCOREPAD = N_("""\
Playing with a real deck? `/kachuful-scorepad` keeps the score: players join its message, \
then each deal they click their bid in turn and, once the deal is played, the tricks they \
took. It checks the dealer's forbidden bid and that the tricks add up, and shows the score and \
the chart at the end. Its games count apart from online games (`/kachuful leaderboard \
cards:{real_deck}`), or with them if the server chooses (`/kachuful-scorepad-boards`).""")

HELP_MANAGERS = N_("""\
`/kachuful-permissions` · what the bot can do in a channel, feature by feature, and the \
permissions it lacks ({manage_guild})
`/kachuful-event role` · the role whose members may organise events ({manage_guild})
`/kachuful-season off` · stop this server's seasons ({manage_guild})""")

# A line of its own (HELP_MANAGERS stays as each catalogue has it).
HELP_CLUB_PAGES = N_(
    "`/kachuful-club` · this server's club pages on the web, and who may read them ({manage_guild})"
)

HELP_TAKE_BACK = N_(
    "Right after your bid or card, **Take back** on your hand undoes it, until anyone else moves."
)

GENERAL_RULES = N_("""\
52 cards, A high. Each deal has a fixed hand size (by default from 52 ÷ players down to 1 and \
back up) and a trump suit (♠ ♦ ♣ ♥ in turn).
**Bidding:** from the dealer's left, each player bids how many tricks they will take; the \
dealer bids last and may not make the bids add up to the number of tricks (hook rule).
**Play:** follow suit if you can; otherwise play any card. The highest trump wins the trick, \
else the highest card of the suit led. The winner leads next.
**Scoring:** exactly your bid scores 10 + bid; anything else scores 0. Highest total wins; \
equal leaders share the win.""")


# Only when the bot's web table is on (bot/web, docs/web.md).
HELP_WEB = N_("""\
`/kachuful table` · this table in your browser: your hand, the trick and the scores, played \
with a tap. The lobby and your hand have **Open the table** too.""")


def help_message(tr: Translations, *, web: bool = False) -> MessageSpec:
    # Permissions and the leaderboard's choice are named as the reader's client shows them.
    def _(text: str) -> str:
        return fill(tr.gettext(text), tr, real_deck=tr.gettext(REAL_DECK))

    embed = discord.Embed(title=_("How to play Kachuful"), description=text_suits(_(HELP)))
    if web:
        embed.add_field(name=_("In your browser"), value=_(HELP_WEB))
    embed.add_field(name=_("A misclick"), value=_(HELP_TAKE_BACK))
    embed.add_field(name=_("End of a deal"), value=_(HELP_END_OF_DEAL))
    embed.add_field(name=_("Events and seasons"), value=_(HELP_EVENTS))
    embed.add_field(name=_("Learn and practise"), value=_(HELP_LEARNING))
    embed.add_field(name=_("Real cards"), value=_(HELP_SCOREPAD))
    managers = _(HELP_MANAGERS) + "\n" + _(HELP_CLUB_PAGES)
    embed.add_field(name=_("For the server's managers"), value=managers)
    return MessageSpec(embeds=(embed,))


def general_rules(tr: Translations) -> MessageSpec:
    embed = discord.Embed(
        title=tr.gettext("Kachuful — the rules (default table)"),
        description=text_suits(tr.gettext(GENERAL_RULES)),
    )
    embed.set_footer(
        text=tr.gettext("Table options (/kachuful start) can change hand sizes, trump, scoring…")
    )
    return MessageSpec(embeds=(embed,))
