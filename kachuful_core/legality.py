"""Which cards may be played: the one place the rules of play are written.

Every reader of the rule goes through :func:`legal_mask`: the engine's query
(``Game.legal_cards``) and its check (``Game.play``, ``Game.check_play``), the computer
players' inference of who is void in what (:func:`shown_void`, derived from it), and the
compiled playouts of :mod:`.players._fast`, which compile this same function (it is written in
the subset of Python numba compiles: ints and tuples of ints) and are given the rules as data,
the ``law`` of :func:`law_of`.

The rules are *steps*, applied in order when following a trick (a lead is free): each names
a class of cards, and when the cards still allowed include some of that class, only those
stay allowed. Follow suit is the step of the led suit, always in force; "must trump when
void" would be a step of the trumps after it (holding the led suit, the hand has already
narrowed to it and holds no trump among those; void, it must trump if it can).

A ``law`` is the set of the classes in force, as bits (:data:`LED`, :data:`TRUMPS`): it is
what the engine and the playouts carry, computed once per game from its ``Rules`` by
:func:`law_of` and :data:`STEPS`. Adding a rule that narrows to a class listed here is one
line of :data:`STEPS` (plus the ``Rules`` field that turns it on and its option in the bot's
registry); a rule needing a new class of cards adds its bit and one branch to
:func:`legal_mask` (see docs/architecture.md, "Adding a rule of play").
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from .cards import FULL_DECK, SUIT_MASKS

# The classes of cards a step may require, one bit each, applied in the order of the bits.
# Each is a union of suits, which is what lets shown_void name the suits a play reveals.
LED = 1  # the cards of the suit led to the trick
TRUMPS = 2  # the trumps (none when there is no trump): no rule in force requires them yet


class Step(NamedTuple):
    """One rule of play: ``rule``, the ``Rules`` field that turns it on ("" for a rule always
    in force, named ``name``), and the class of cards it requires when held."""

    name: str
    rule: str
    requires: int


# The rules of play, in the order they apply. Follow suit is always in force.
STEPS: tuple[Step, ...] = (Step("follow", "", LED),)


def in_force(step: Step, rules: object) -> bool:
    """Whether ``rules`` (a ``Rules``) turn ``step`` on."""
    return not step.rule or bool(getattr(rules, step.rule, False))


def law_of(rules: object) -> int:
    """The classes of cards the rules in force require, as bits (a game's ``law``)."""
    law = 0
    for step in STEPS:
        if in_force(step, rules):
            law |= step.requires
    return law


def legal_mask(hand: int, law: int, led_mask: int, tmask: int) -> int:
    """The cards of ``hand`` (a 52-bit set) that may be played under ``law``, to a trick led
    in the suit of ``led_mask`` (0: this card leads it) with the trumps ``tmask`` (0: none).
    One branch per class (:data:`LED`, :data:`TRUMPS`), in their order: each narrows the
    cards allowed to its class, when they include some."""
    if not led_mask:
        return hand
    legal = hand
    if law & LED:
        narrowed = legal & led_mask
        if narrowed:
            legal = narrowed
    if law & TRUMPS:
        narrowed = legal & tmask
        if narrowed:
            legal = narrowed
    return legal


def refusing_class(hand: int, law: int, led_mask: int, tmask: int, card: int) -> int:
    """The class whose step first rules out ``card`` (held in ``hand``), 0 if it is legal:
    :func:`legal_mask` under the first steps of ``law`` only, one more at a time."""
    requires = 1
    while requires <= law:
        first = law & (2 * requires - 1)
        if law & requires and not legal_mask(hand, first, led_mask, tmask) >> card & 1:
            return requires
        requires <<= 1
    return 0


def shown_void(card: int, law: int, led_mask: int, tmask: int) -> int:
    """The cards a seat cannot hold, seen playing ``card`` to a trick led in ``led_mask``:
    every suit of which a card, held beside ``card``, would have ruled it out (``card``'s own
    suit never does). Follow suit: the led suit when ``card`` is of another."""
    bit = 1 << card
    if legal_mask(FULL_DECK, law, led_mask, tmask) & bit:
        return 0  # legal whatever else is held (each step's class holds it): nothing shown
    void = 0
    for s in range(4):
        if not legal_mask(SUIT_MASKS[s] | bit, law, led_mask, tmask) & bit:
            void |= SUIT_MASKS[s]
    return void


# The Python players read the same answers through a cache: there are only 52 cards, a few
# laws, 5 led masks and 5 trump masks.
shown_void_cached = lru_cache(maxsize=4096)(shown_void)


def refusing_step(
    rules: object, hand: int, law: int, led_mask: int, tmask: int, card: int
) -> Step | None:
    """The rule of play (of :data:`STEPS`, in force under ``rules``) that rules out ``card``,
    None if it is legal."""
    requires = refusing_class(hand, law, led_mask, tmask, card)
    if not requires:
        return None
    return next(s for s in STEPS if s.requires == requires and in_force(s, rules))
