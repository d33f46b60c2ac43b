"""The option registry: every table option and channel setting, declared once.

Each :class:`Option` holds its name, the values it allows, its default, where it appears
(``start``: /kachuful start; ``setting``: its name in /kachuful-settings), whether it is a game
rule (``rule``: a field of ``kachuful_core.Rules`` of the same name), and the words players see
for it (the option's label and each choice's words: plain English, all here, for gettext to
translate later). Everything else is generated from these declarations: the slash command
options, their choices and descriptions (cogs/kachuful.py, cogs/settings.py), the checks of
/kachuful start (bot/options.py) and /kachuful-settings (bot/channel_settings.py), the table's
game options (``TableOptions.rules``, bot/model.py) and their stored JSON keys
(bot/store/table_json.py), the lobby's rules text (bot/render/words.py), the ``Rules`` of a
game and so its record, and the environment's turn clock bounds (bot/config.py).

A rule's default is the engine's (``Rules``): defaults live there only. Adding a rule: a field
of ``Rules`` (kachuful_core/rules.py) and one :func:`_rule` declaration below, plus its words
in the catalogues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from bot.i18n import EN, LANGUAGE_NAMES, N_, Nn_, Translations, translation
from kachuful_core import Rules
from kachuful_core.rules import (
    DEFAULT_LENGTH,
    LENGTHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    largest_hand,
    length_max_hand,
)

Value = str | int | bool


@dataclass(frozen=True)
class Choice:
    value: Value
    words: str  # the choice as players read it (English): a slash command choice, a lobby line
    plural: str | None = None  # the words for a count of ``value`` ("{n} seats"), if it is one
    parts: tuple[str, ...] = ()  # words joined with " + " ("Beginner + Expert"), if several

    def said(self, tr: Translations) -> str:
        """The choice in the language of ``tr``."""
        if self.parts:
            return " + ".join(tr.gettext(part) for part in self.parts)
        if self.plural is not None and isinstance(self.value, int):
            return tr.ngettext(self.words, self.plural, self.value).format(n=self.value)
        return tr.gettext(self.words)


@dataclass(frozen=True)
class Option:
    name: str
    label: str  # the option as players read it: "Schedule"
    describe: str  # the slash command's description of it (at most 100 characters)
    kind: type
    default: Any
    choices: tuple[Choice, ...] = ()
    low: int | None = None  # a whole number from low to high, when there are no choices
    high: int | None = None
    # Where the option appears: /kachuful start, and its name in /kachuful-settings.
    start: bool = False
    setting: str | None = None
    # A game rule: kept in the table's options under ``key``, and given to Rules as the field
    # of that name (through ``resolve`` for a number of players, when set). ``own_line``: the
    # rules texts have a line for it (the length is shown apart). ``in_force``: the running
    # game's sentence for it, where it says more than the lobby's "{option}: {value}" (one
    # sentence with the option's name as its placeholder, or one per value): see rule_line.
    rule: bool = False
    own_line: bool = True
    in_force: str | Mapping[Value, str] | None = field(default=None, compare=False)
    # The table option the value is kept as (another option's name: the length is kept as the
    # largest hand), and how a typed value is kept (``keep``) or a kept one checked
    # (``kept_allows``), where they differ from the value typed.
    kept_as: str | None = None
    keep: Callable[[Any], Any] | None = field(default=None, compare=False)
    kept_allows: Callable[[Any], bool] | None = field(default=None, compare=False)
    resolve: Callable[[Any, int], tuple[Any, bool]] | None = field(default=None, compare=False)
    # /kachuful start's words for a value not allowed, where "one of ..." would not do
    # ({low} and {high}: the first and last choices).
    refused: str | None = None
    words_of: dict[Value, str] = field(init=False, repr=False, compare=False)  # in English
    choice_of: dict[Value, Choice] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words_of", {c.value: c.said(EN) for c in self.choices})
        object.__setattr__(self, "choice_of", {c.value: c for c in self.choices})

    def allows(self, value: Any) -> bool:
        # bool is an int to Python: True must not pass for 1 seat, nor 1 for "on".
        if isinstance(value, bool) != (self.kind is bool) or not isinstance(value, self.kind):
            return False
        if self.choices:
            return value in self.words_of
        if self.low is not None and self.high is not None and isinstance(value, int):
            return self.low <= value <= self.high
        return True

    @property
    def key(self) -> str:
        """The name the value is kept under in a table's options."""
        return self.kept_as or self.name

    def kept(self, value: Any) -> Any:
        """A typed (and allowed) value as the table keeps it."""
        return value if self.keep is None else self.keep(value)

    def allows_kept(self, value: Any) -> bool:
        return self.allows(value) if self.kept_allows is None else self.kept_allows(value)

    def must_be(
        self, tr: Translations, sentences: Mapping[str, str], name: str | None = None
    ) -> str:
        """The sentence saying which values the option allows, from ``sentences`` (one whole
        sentence per kind of option, ``MUST_BE_START`` or ``MUST_BE_SETTING``: "`trump` must be
        one of cycle, turned", never a list put into a sentence of another language's order);
        ``name``: the option as the command names it, where that is not the option's name."""
        name = name or self.name
        if self.kind is bool:
            return tr.gettext(sentences["bool"]).format(name=name)
        if self.choices:
            values = ", ".join(f"`{c.value}`" for c in self.choices)  # typed as they are
            return tr.gettext(sentences["choices"]).format(name=name, values=values)
        return tr.gettext(sentences["range"]).format(name=name, low=self.low, high=self.high)

    def title(self, tr: Translations) -> str:
        """The option's label in the language of ``tr``."""
        return tr.gettext(self.label)

    def words(self, value: Any, tr: Translations) -> str:
        """The words for a value (the value itself if it has none)."""
        if isinstance(value, bool) and self.kind is bool:
            return tr.gettext("on") if value else tr.gettext("off")
        choice = self.choice_of.get(value)
        return str(value) if choice is None else choice.said(tr)

    def rule_line(self, value: Any, tr: Translations, *, in_force: bool = False) -> str:
        """The rule's line of a rules text: the lobby's "Scoring: Exact: 10 + bid, miss 0"
        (label and value), or with ``in_force`` (a running game's rules) the option's own
        sentence for the value where it has one."""
        words = self.words(value, tr)
        said = self.in_force.get(value) if isinstance(self.in_force, Mapping) else self.in_force
        if in_force and said:
            return tr.gettext(said).format(**{self.name: words})
        return tr.gettext("{option}: {value}").format(option=self.title(tr), value=words)

    def choice_name(self, choice: Choice, tr: Translations = EN) -> str:
        """A slash command choice as shown: the default one says so."""
        words = choice.said(tr)
        if choice.value == self.default:
            return tr.gettext("{choice} (default)").format(choice=words)
        return words


# ---- what players see ------------------------------------------------------------------------

# A value an option does not allow, refused by /kachuful start and by /kachuful-settings.
MUST_BE_START = {
    "bool": N_("`{name}` must be true or false: nothing was created."),
    "choices": N_("`{name}` must be one of {values}: nothing was created."),
    "range": N_("`{name}` must be a whole number from {low} to {high}: nothing was created."),
}
MUST_BE_SETTING = {
    "bool": N_("`{name}` must be true or false."),
    "choices": N_("`{name}` must be one of {values}."),
    "range": N_("`{name}` must be a whole number from {low} to {high}."),
}

# Computer levels by their players' names, weakest first (the engine's names are the values).
# (English, the source: each is translated where it is shown, e.g. tr.gettext(LEVEL_NAMES[x]).)
LEVEL_NAMES: dict[str, str] = {
    "random": N_("Beginner"),
    "heuristic": N_("Casual"),
    "search": N_("Expert"),
}
LEVEL_DESCRIPTIONS = {
    "random": N_("plays any legal card: for learning the game."),
    "heuristic": N_("bids and plays by rules of thumb, instantly."),
    "search": N_("thinks ahead over the deals the others may hold: the strongest level here."),
}
LENGTH_WORDS = {
    "quick": N_("Quick: hands up to 5 and back"),
    "classic": N_("Classic: up to 10 cards (8 for 6 players, 7 for 7)"),
    "full": N_("Full: the whole deck, 52 ÷ players each"),
}
# The length buttons of the lobby.
LENGTH_BUTTONS = {
    "quick": N_("Quick game"),
    "classic": N_("Classic game"),
    "full": N_("Full game"),
}

# The turn clock, in seconds, for the environment (KACHUFUL_TURN_SECONDS) and /kachuful-settings
# alike: 15 s is the least in which a player reads a hand and clicks through Discord's lag; an
# hour lets a table play at leisure (and load tests run with no time-out).
TURN_SECONDS = (15, 3600)
# A hand above 52 ÷ players is lowered (with a note) when the game starts; 0 is "classic".
MAX_HAND_LIMIT = 17


def _level_sets() -> tuple[Choice, ...]:
    """Every non-empty set of levels, as a comma-separated value of the engine's names, named
    in the players' words: "Beginner + Expert"."""
    names = tuple(LEVEL_NAMES)
    sets = [s for size in range(len(names), 0, -1) for s in combinations(names, size)]
    return tuple(
        Choice(",".join(s), N_("Every level"))
        if len(s) == len(names)
        else Choice(
            ",".join(s),
            " + ".join(LEVEL_NAMES[level] for level in s),
            parts=tuple(LEVEL_NAMES[level] for level in s),
        )
        for s in sets
    )


def _rule_default(name: str) -> Any:
    """A game rule's default: the engine's (``Rules``), the one place it is declared."""
    return Rules.model_fields[name].default


def _rule(
    name: str, label: str, describe: str, kind: type, choices: tuple[Choice, ...] = (), **more: Any
) -> Option:
    """A game rule: an option of /kachuful start and /kachuful-settings, a field of Rules."""
    return Option(
        name,
        label,
        describe,
        kind,
        _rule_default(name),
        choices,
        start=True,
        setting=name,
        rule=True,
        **more,
    )


def _kept_max_hand(value: Any) -> Any:
    """/kachuful start's ``max_hand``: 0 is "classic", kept by the length's name."""
    return "classic" if value == 0 else value


def _allows_kept_max_hand(value: Any) -> bool:
    """A kept largest hand: a length's name, or a number of cards."""
    return value in LENGTHS or (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_HAND_LIMIT
    )


def resolve_max_hand(choice: Any, players: int) -> tuple[int, bool]:
    """The largest hand of a table's kept ``max_hand`` for ``players`` (a length's name or a
    number of cards); and whether a number had to be lowered to fit the deck (the lobby says
    so: bot/render/table.py)."""
    if choice is None:
        choice = DEFAULT_LENGTH
    if choice in LENGTHS:
        return length_max_hand(choice, players), False
    limit = largest_hand(players)
    wanted = int(choice)
    if wanted > limit:
        return limit, True
    return wanted, False


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "players",
            N_("Seats"),
            N_("Most seats at the table (3–7; default 7)"),
            int,
            MAX_PLAYERS,
            tuple(
                Choice(n, *Nn_("{n} seat", "{n} seats"))
                for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
            ),
            start=True,
            setting="players",
            refused=N_(
                "`players` must be a number of seats from {low} to {high}: nothing was created."
            ),
        ),
        Option(
            "length",
            N_("Length"),
            N_("How long a game: quick, classic or full (default; a max_hand given wins)"),
            str,
            DEFAULT_LENGTH,
            tuple(Choice(name, LENGTH_WORDS[name]) for name in LENGTHS),
            start=True,
            setting="length",
            kept_as="max_hand",
        ),
        # The largest hand: a number of cards, or (kept so) a length's name from "length";
        # declared after "length", so that a max_hand given wins over a length given.
        _rule(
            "max_hand",
            N_("Max hand"),
            N_("Largest hand (default: 52 ÷ players, e.g. 13 for four); wins over length"),
            int,
            (
                Choice(0, N_("Classic: 10 cards (8 for 6 players, 7 for 7)")),
                *(
                    Choice(
                        n,
                        *Nn_(
                            "{n} card (if 52 ÷ players allows)",
                            "{n} cards (if 52 ÷ players allows)",
                        ),
                    )
                    for n in range(1, MAX_HAND_LIMIT + 1)
                ),
            ),
            own_line=False,
            refused=N_(
                "`max_hand` must be 0 (classic) or a hand size from 1 to {high} "
                "(lowered to 52 ÷ players if larger): nothing was created."
            ),
            keep=_kept_max_hand,
            kept_allows=_allows_kept_max_hand,
            resolve=resolve_max_hand,
        ),
        _rule(
            "schedule",
            N_("Schedule"),
            N_("Order of hand sizes"),
            str,
            (
                Choice("down-up", N_("Down and up: H…1…H")),
                Choice("down", N_("Down only: H…1")),
                Choice("double", N_("Double: H…1…H…1…H")),
            ),
            in_force=N_("Schedule: {schedule}"),
        ),
        _rule(
            "trump",
            N_("Trump"),
            N_("How trump is chosen"),
            str,
            (
                Choice("cycle", N_("Cycle ♠\ufe0e ♦\ufe0e ♣\ufe0e ♥\ufe0e")),
                Choice("cycle-notrump", N_("Cycle ♠\ufe0e ♦\ufe0e ♣\ufe0e ♥\ufe0e then no-trump")),
                Choice("turned", N_("Turned card after the deal")),
            ),
            in_force=N_("Trump: {trump}"),
        ),
        _rule(
            "hook",
            N_("Hook rule"),
            N_("Hook rule: the dealer may not make the bids add up to the tricks (default on)"),
            bool,
            in_force={
                True: N_(
                    "Hook rule: on — the dealer may not bid so that the bids add up to the tricks"
                ),
                False: N_("Hook rule: off"),
            },
        ),
        _rule(
            "scoring",
            N_("Scoring"),
            N_("Scoring"),
            str,
            (
                Choice("exact", N_("Exact: 10 + bid, miss 0")),
                Choice("penalty", N_("Penalty: 10 + bid, miss −difference")),
                Choice("per-trick", N_("Per trick: tricks, +10 if exact")),
                Choice("judgement", N_("Judgement: exact +10, miss −10")),
            ),
            in_force=N_("Scoring: {scoring}"),
        ),
        _rule(
            "blind_bids",
            N_("Blind bids"),
            N_("Allow bidding before looking (exact blind bids score double; default off)"),
            bool,
            in_force={
                True: N_("Blind bids: on — an exact blind bid scores double"),
                False: N_("Blind bids: off"),
            },
        ),
        _rule(
            "forehead",
            N_("Forehead one-card deal"),
            N_("One-card deal: see everyone's card but your own (default off)"),
            bool,
            in_force={
                True: N_("Forehead one-card deal: on — you see everyone's card but your own"),
                False: N_("Forehead one-card deal: off"),
            },
        ),
        Option(
            "mode",
            N_("Shown"),
            N_("How the game is shown: a message per trick, compact, or in a thread"),
            str,
            "trick",
            (
                Choice("trick", N_("A message per trick")),
                Choice("compact", N_("Compact: one message per deal")),
                Choice("thread", N_("In a thread opened from the lobby")),
            ),
            start=True,
            setting="presentation",
        ),
        Option(
            "pictures",
            N_("Card pictures"),
            N_("Show hands and tricks as pictures of cards beside the text (default on)"),
            bool,
            None,
            setting="pictures",
        ),
        Option(
            "turn_seconds",
            N_("Turn clock"),
            N_("Turn clock in seconds (15–3600)"),
            int,
            None,
            low=TURN_SECONDS[0],
            high=TURN_SECONDS[1],
            setting="turn_seconds",
        ),
        Option(
            "computers",
            N_("Computer players"),
            N_("Whether computer players may join"),
            bool,
            True,
            setting="computers",
        ),
        Option(
            "computer_levels",
            N_("Computer levels"),
            N_("The computer levels that may take a seat"),
            str,
            ",".join(LEVEL_NAMES),
            _level_sets(),
            setting="computer_levels",
        ),
        # A table's public messages are in its language, chosen when it opens: this setting,
        # else the server's language, else English (bot/i18n.py). Each language is named in
        # its own words, never translated.
        Option(
            "language",
            N_("Language"),
            N_("The language of the games' public messages (default: the server's language)"),
            str,
            None,
            tuple(Choice(code, name) for code, name in LANGUAGE_NAMES.items()),
            setting="language",
        ),
    )
}

# The options of /kachuful start and of /kachuful-settings, in the order the commands list
# them (the order declared above).
START_OPTIONS = tuple(o.name for o in OPTIONS.values() if o.start)
# An event's tables (/kachuful-event open, docs/events.md): the quick game at tables of four
# unless the organiser chooses otherwise; each table has its own thread, so no mode is asked.
EVENT_DEFAULTS: dict[str, Any] = {"length": "quick", "players": 4}
EVENT_OPTIONS = tuple(name for name in START_OPTIONS if name != "mode")
# A score pad (/kachuful-scorepad, docs/scorepad.md): the table options of a game played with a
# real deck; its players are those who join, and the pad cannot see who looked at their cards
# or which card was turned (kachuful_core.scorepad refuses those rules).
SCOREPAD_OPTIONS = tuple(
    name for name in START_OPTIONS if name not in ("players", "mode", "blind_bids", "forehead")
)
SETTINGS_OPTIONS = tuple(o.setting for o in OPTIONS.values() if o.setting is not None)
SETTING_ALIASES = {
    o.setting: o.name for o in OPTIONS.values() if o.setting is not None and o.setting != o.name
}
# The game rules a table keeps (TableOptions.rules), by their Rules names, and their defaults
# as kept: a rule that another option is kept as defaults to that option's default (the largest
# hand to the default length).
RULE_OPTIONS = tuple(o.name for o in OPTIONS.values() if o.rule)
RULE_DEFAULTS: Mapping[str, Any] = {
    name: next(
        (o.kept(o.default) for o in OPTIONS.values() if o.key == name and o.default is not None),
        None,
    )
    for name in RULE_OPTIONS
}


def rules_text_options() -> tuple[Option, ...]:
    """The rules texts' options, in the registry's order: a line for each rule but the
    length, which they show apart (read when asked: a rule added is a line in both texts)."""
    return tuple(o for o in OPTIONS.values() if o.rule and o.own_line)


def option(name: str) -> Option:
    return OPTIONS[SETTING_ALIASES.get(name, name)]


def without_replaced(values: dict[str, Any], given: Iterable[str]) -> dict[str, Any]:
    """``values`` (by option or setting name) without what ``given`` replaces: an option kept
    as the same table option as one given, since a length and a largest hand are one choice
    said two ways."""
    given = set(given)
    keys = {option(name).key for name in given}
    return {
        name: value
        for name, value in values.items()
        if name in given
        or SETTING_ALIASES.get(name, name) not in OPTIONS
        or option(name).key not in keys
    }


def level_names(text: str) -> list[str] | None:
    """A comma-separated list of levels, in the players' words of any language the bot speaks
    (Beginner, Débutant, Principiante, नौसिखिया, ...: the refusal names them in the reader's) or
    the engine's (random, heuristic, search, as older settings have them), as the engine's
    names weakest first; None if a name is unknown or none is given."""
    by_word = {
        translation(language).gettext(name).lower(): level
        for language in LANGUAGE_NAMES
        for level, name in LEVEL_NAMES.items()
    }
    parts = [part.strip().lower() for part in text.split(",") if part.strip()]
    chosen = {by_word.get(part, part) for part in parts}
    if not chosen or not chosen <= set(LEVEL_NAMES):
        return None
    return [level for level in LEVEL_NAMES if level in chosen]
