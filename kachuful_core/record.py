"""The game record, format ``kachuful-record/1`` (docs/record-format.md): export, import and
scoring.

Importing a record replays it through :class:`~kachuful_core.game.Game`, so a record is held to
exactly the rules a live game is. Anything invalid raises :class:`RecordError` whose message is
the one line a player reads: where, and why.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Strict, StrictInt, StrictStr, ValidationError

from .cards import SUIT_LETTERS, SUIT_NAMES, Card, card_str, parse_card
from .dealing import GameSeed, draw_winner
from .errors import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotAllowed,
    CardNotInHand,
    DealerBidForbidden,
    KachufulError,
    MustFollowSuit,
    OptionNotEnabled,
    RecordError,
)
from .game import DealLog, Game, Phase, PresetDeal
from .rules import Rules

FORMAT = "kachuful-record/1"

# A [seat, card] pair of the draw: a JSON list stands for the tuple, its items stay strict.
DrawnCard = Annotated[tuple[StrictInt, StrictStr], Strict(False)]


class DealRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    hands: list[list[str]]
    turned: str | None = None
    bids: list[int | None] | None = None
    blind: list[bool] | None = None
    tricks: list[list[str]] | None = None


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["kachuful-record/1"]
    rules: dict[str, Any]
    players: list[str]
    first_dealer: int
    start_deal: int = 0
    # Strict types, but a JSON list may stand for each [seat, card] pair.
    draw: list[list[DrawnCard]] | None = None
    deals: list[DealRecord]

    def to_json(self, indent: int | None = 2) -> str:
        """The record as a JSON document; keys never set are left out, as the format allows
        (docs/record-format.md)."""
        return json.dumps(self.model_dump(exclude_unset=True), indent=indent, ensure_ascii=False)


# ---- export ---------------------------------------------------------------------------------


def export_record(game: Game) -> Record:
    """Everything that happened at ``game`` so far, hands as dealt included."""
    return Record.model_validate(record_document(game), strict=False)


def record_document(game: Game, *, deals: bool = True) -> dict[str, Any]:
    """The record as the JSON-ready document :meth:`Record.to_json` writes, built directly:
    for callers that store a record after every move and need not validate it again.
    (``deals=False``: everything but the deals, for :func:`record_json`.)"""
    data: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.options(),
        "players": list(game.players),
        "first_dealer": game.first_dealer,
        "start_deal": game.start_deal,
    }
    if game.draw is not None:
        data["draw"] = [[[seat, card_str(card)] for seat, card in r] for r in game.draw]
    if deals:
        data["deals"] = [_export_deal(game, d) for d in game.deals]
    return data


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def record_json(game: Game) -> str:
    """``record_document(game)`` as compact JSON text, for callers that store the record after
    every move: a scored deal's text is made once and kept with it, so a move costs the
    current deal, not the whole game."""
    head = record_document(game, deals=False)
    parts = []
    for deal in game.deals:
        text = deal.exported
        if text is None:
            text = _compact(_export_deal(game, deal))
            if deal.scores is not None:
                deal.exported = text
        parts.append(text)
    return f'{_compact(head)[:-1]},"deals":[{",".join(parts)}]}}'


def _export_deal(game: Game, deal: DealLog) -> dict[str, Any]:
    out: dict[str, Any] = {"hands": [[card_str(c) for c in hand] for hand in deal.hands]}
    if game.rules.trump == "turned":
        out["turned"] = None if deal.turned is None else card_str(deal.turned)
    if any(b is not None for b in deal.bids):
        out["bids"] = list(deal.bids)
        if game.rules.blind_bids:
            out["blind"] = list(deal.blind)
    if deal.tricks:
        out["tricks"] = [[card_str(c) for _, c in trick] for trick in deal.tricks]
    return out


# ---- import ---------------------------------------------------------------------------------


def parse_record(source: str | bytes | dict[str, Any] | Record) -> Record:
    """A validated :class:`Record` from JSON text or a decoded document."""
    if isinstance(source, Record):
        return source
    if isinstance(source, str | bytes):
        try:
            source = json.loads(source)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise RecordError(f"not a JSON document: {e}") from None
    if not isinstance(source, dict):
        raise RecordError("not a game record: the document must be a JSON object")
    if source.get("format") != FORMAT:
        raise RecordError(f'format: expected "{FORMAT}", got {source.get("format")!r}')
    try:
        return Record.model_validate(source)
    except ValidationError as e:
        raise RecordError(_validation_line(e, source)) from None


def load_game(source: str | bytes | dict[str, Any] | Record, seed: GameSeed | None = None) -> Game:
    """Replay a record into a :class:`Game`. With ``seed``, the deals after the record are
    shuffled from it, so a stored game can go on."""
    record = parse_record(source)
    return _Replay(record, seed).run()


def _validation_line(error: ValidationError, source: dict[str, Any]) -> str:
    first = error.errors()[0]
    start = source.get("start_deal", 0)
    start = start if isinstance(start, int) else 0
    parts: list[str] = []
    loc = list(first["loc"])
    while loc:
        key = loc.pop(0)
        if key == "deals" and loc and isinstance(loc[0], int):
            parts.append(f"deal {start + int(loc.pop(0))}")
        elif isinstance(key, int):
            parts[-1:] = [f"{parts[-1]} [{key}]"] if parts else [f"[{key}]"]
        else:
            parts.append(str(key))
    where = ", ".join(parts) or "record"
    if first["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    if first["type"] == "missing":
        return f"{where}: missing"
    return f"{where}: {first['msg']} (got {json.dumps(first.get('input'), default=str)})"


class _Replay:
    """Checks a record deal by deal, applying it to a game; words every failure."""

    def __init__(self, record: Record, seed: GameSeed | None) -> None:
        self.record = record
        self.seed = seed

    def run(self) -> Game:
        r = self.record
        self.rules = self._rules()
        n = self.rules.players
        self.names = r.players
        if len(r.players) != n:
            raise RecordError(f"players: {len(r.players)} names for {n} seats")
        if not 0 <= r.first_dealer < n:
            raise RecordError(f"first_dealer: there is no seat {r.first_dealer}")
        if not 0 <= r.start_deal < self.rules.num_deals:
            raise RecordError(
                f"start_deal: {r.start_deal} is outside the schedule of "
                f"{self.rules.num_deals} deals (0 to {self.rules.num_deals - 1})"
            )
        if r.start_deal + len(r.deals) > self.rules.num_deals:
            raise RecordError(
                f"deals: {len(r.deals)} deals from deal {r.start_deal} run past the schedule "
                f"of {self.rules.num_deals} deals"
            )
        draw = self._draw()
        presets = {
            r.start_deal + i: self._preset(r.start_deal + i, d) for i, d in enumerate(r.deals)
        }
        game = Game(
            self.rules,
            r.players,
            seed=self.seed,
            first_dealer=r.first_dealer,
            start_deal=r.start_deal,
            draw=draw,
            presets=presets,
        )
        for i, deal in enumerate(r.deals):
            self._replay_deal(game, r.start_deal + i, deal, last=i == len(r.deals) - 1)
        return game

    def who(self, seat: int) -> str:
        return f"{self.names[seat]} (seat {seat})"

    def _rules(self) -> Rules:
        try:
            return Rules.model_validate(self.record.rules, strict=True)
        except ValidationError as e:
            first = e.errors()[0]
            where = ", ".join(str(p) for p in ("rules", *first["loc"]))
            if first["type"] == "extra_forbidden":
                message = f"{where}: unknown rule name"
            elif first["type"] == "missing":
                message = f"{where}: missing"
            else:
                got = json.dumps(first.get("input"), default=str)
                message = f"{where}: {first['msg']} (got {got})"
            raise RecordError(message) from None

    def _card(self, where: str, text: str) -> Card:
        try:
            return parse_card(text)
        except ValueError:
            raise RecordError(f"{where}: {text!r} is not a card of the deck") from None

    def _draw(self) -> tuple[tuple[tuple[int, Card], ...], ...] | None:
        r = self.record
        if r.draw is None:
            return None
        rounds: list[list[tuple[int, Card]]] = []
        for k, draws in enumerate(r.draw, start=1):
            seen: set[Card] = set()
            parsed: list[tuple[int, Card]] = []
            for seat, text in draws:
                if not 0 <= seat < self.rules.players:
                    raise RecordError(f"draw, round {k}: there is no seat {seat}")
                card = self._card(f"draw, round {k}", text)
                if card in seen:
                    raise RecordError(f"draw, round {k}: {card_str(card)} is drawn twice")
                seen.add(card)
                parsed.append((seat, card))
            rounds.append(parsed)
        if not rounds or sorted(s for s, _ in rounds[0]) != list(range(self.rules.players)):
            raise RecordError("draw, round 1: every seat draws exactly one card")
        dealer0 = (r.first_dealer - r.start_deal) % self.rules.players
        if draw_winner(rounds) != dealer0:
            raise RecordError(
                f"draw: the rounds do not make {self.who(dealer0)} the first dealer "
                "(ties on the highest rank redraw among the tied seats only)"
            )
        return tuple(tuple(x) for x in rounds)

    def _preset(self, index: int, deal: DealRecord) -> PresetDeal:
        rules = self.rules
        n, size = rules.players, rules.hand_sizes[index]
        where = f"deal {index}"
        if len(deal.hands) != n:
            raise RecordError(f"{where}: {len(deal.hands)} hands for {n} players")
        seen: dict[Card, int] = {}
        hands: list[tuple[Card, ...]] = []
        for seat, texts in enumerate(deal.hands):
            if len(texts) != size:
                raise RecordError(
                    f"{where}: {self.who(seat)} has {len(texts)} cards; this deal has {size}"
                )
            hand = tuple(self._card(f"{where}, hand of {self.who(seat)}", t) for t in texts)
            for card in hand:
                if card in seen:
                    raise RecordError(f"{where}: {card_str(card)} is dealt twice")
                seen[card] = seat
            hands.append(hand)
        turned = self._turned(where, deal, seen, n * size)
        return PresetDeal(tuple(hands), turned)

    def _turned(
        self, where: str, deal: DealRecord, dealt: dict[Card, int], count: int
    ) -> Card | None:
        if self.rules.trump != "turned":
            if "turned" in deal.model_fields_set:
                raise RecordError(f'{where}: a turned card is only recorded with trump "turned"')
            return None
        if "turned" not in deal.model_fields_set:
            raise RecordError(f'{where}: trump is "turned" and the turned card is missing')
        if deal.turned is None:
            if count < 52:
                raise RecordError(f"{where}: cards were left after the deal, so one is turned")
            return None
        turned = self._card(f"{where}, turned", deal.turned)
        if turned in dealt:
            raise RecordError(
                f"{where}: the turned card {card_str(turned)} is also in the hand of "
                f"{self.who(dealt[turned])}"
            )
        return turned

    def _replay_deal(self, game: Game, index: int, deal: DealRecord, last: bool) -> None:
        n = self.rules.players
        where = f"deal {index}"
        bids = deal.bids if deal.bids is not None else [None] * n
        if len(bids) != n:
            raise RecordError(f"{where}: {len(bids)} bids for {n} players")
        blind = deal.blind if deal.blind is not None else [False] * n
        if deal.blind is not None and not self.rules.blind_bids:
            raise RecordError(f"{where}: blind bids are recorded but the table option is off")
        if len(blind) != n:
            raise RecordError(f"{where}: {len(blind)} blind flags for {n} players")
        order = [(game.dealer + 1 + k) % n for k in range(n)]
        made = [s for s in order if bids[s] is not None]
        if made != order[: len(made)]:
            missing = next(s for s in order if bids[s] is None)
            raise RecordError(
                f"{where}: bids are made in turn from the dealer's left; "
                f"{self.who(missing)} has not bid but a later seat has"
            )
        for seat in order[: len(made)]:
            bid = bids[seat]
            assert bid is not None
            self._apply(game, f"{where}, bidding", lambda s=seat, b=bid: game.bid(s, b, blind[s]))
        for seat in order[len(made) :]:
            if blind[seat]:
                raise RecordError(f"{where}: {self.who(seat)} is marked blind but has not bid")
        tricks = deal.tricks or []
        if tricks and game.phase is Phase.BIDDING:
            raise RecordError(f"{where}, trick 1: a card is played before bidding is over")
        if len(tricks) > game.hand_size:
            raise RecordError(f"{where}: {len(tricks)} tricks in a deal of {game.hand_size} cards")
        for t, trick in enumerate(tricks, start=1):
            self._replay_trick(game, f"{where}, trick {t}", trick, t == len(tricks) and last)
        finished = game.deal_index != index or game.phase is Phase.FINISHED
        if not last and not finished:
            raise RecordError(f"{where} is not played out, but another deal follows it")

    def _replay_trick(self, game: Game, where: str, trick: list[str], may_stop: bool) -> None:
        n = self.rules.players
        if len(trick) > n or not trick:
            raise RecordError(f"{where}: {len(trick)} cards in a trick of {n} players")
        if len(trick) < n and not may_stop:
            raise RecordError(f"{where}: only {len(trick)} of {n} cards, and play goes on after it")
        for position, text in enumerate(trick):
            card = self._card(where, text)
            seat = game.turn
            assert seat is not None
            if position == 0 and not game.can_play(seat, card):
                holder = next((s for s in range(n) if card in game.hand(s)), None)
                if holder is not None and holder != seat:
                    raise RecordError(
                        f"{where}: the trick is led by {self.who(seat)}, but {card_str(card)} "
                        f"is in the hand of {self.who(holder)}"
                    )
            self._apply(game, where, lambda s=seat, c=card: game.play(s, c))

    def _apply(self, game: Game, where: str, action: Any) -> None:
        try:
            action()
        except KachufulError as e:
            raise RecordError(f"{where}: {self._words(e)}") from None

    def _words(self, e: KachufulError) -> str:
        if isinstance(e, MustFollowSuit):
            held = ", ".join(card_str(c) for c in e.held)
            return (
                f"{self.who(e.seat)} must follow {SUIT_NAMES[e.suit]} and holds {held}; "
                f"played {card_str(e.played)}"
            )
        if isinstance(e, CardNotAllowed):
            allowed = ", ".join(card_str(c) for c in e.allowed)
            return (
                f"{self.who(e.seat)} may play only {allowed} under the rule {e.rule}; "
                f"played {card_str(e.played)}"
            )
        if isinstance(e, CardNotInHand):
            return f"{self.who(e.seat)} does not hold {card_str(e.card)}"
        if isinstance(e, BidOutOfRange):
            return f"{self.who(e.seat)} bid {e.bid}; bids run from {e.low} to {e.high}"
        if isinstance(e, DealerBidForbidden):
            return (
                f"the dealer {self.who(e.seat)} may not bid {e.forbidden}: the bids would add up "
                "to the tricks available (hook rule)"
            )
        if isinstance(e, BlindBidAfterLooking):
            return f"{self.who(e.seat)} bid blind after looking at the hand"
        if isinstance(e, OptionNotEnabled):
            return f"the table option {e.option} is off"
        return str(e)


# ---- scoring --------------------------------------------------------------------------------


def score_summary(game: Game) -> dict[str, Any]:
    """The document ``python -m kachuful_core score`` prints (docs/record-format.md)."""
    rules = game.rules
    deals = []
    for d in game.deals:
        bids = list(d.bids)
        others = [b for s, b in enumerate(bids) if s != d.dealer]
        forbidden = None
        if all(b is not None for b in others):
            forbidden = rules.forbidden_bid(
                rules.hand_sizes[d.index], sum(b for b in others if b is not None)
            )
        trump = _deal_trump(rules, d)
        tricks_won = [d.trick_winners.count(s) for s in range(rules.players)]
        deals.append(
            {
                "index": d.index,
                "dealer": d.dealer,
                "hand_size": rules.hand_sizes[d.index],
                "trump": None if trump is None else SUIT_LETTERS[trump],
                "bids": bids,
                "forbidden_bid": forbidden,
                "trick_winners": list(d.trick_winners),
                "tricks_won": tricks_won,
                "scores": None if d.scores is None else list(d.scores),
            }
        )
    return {
        "complete": game.phase is Phase.FINISHED,
        "deals": deals,
        "totals": list(game.totals),
        "winners": None if game.winners is None else list(game.winners),
    }


def _deal_trump(rules: Rules, deal: DealLog) -> int | None:
    if rules.trump == "turned":
        return None if deal.turned is None else deal.turned // 13
    return rules.trump_for(deal.index)


def format_summary(summary: dict[str, Any]) -> str:
    """Laid out as docs/record-format.md shows it: one line per key, each deal over four lines."""
    deals = ",\n".join(_format_deal(d) for d in summary["deals"])
    return "\n".join(
        [
            "{",
            f'  "complete": {json.dumps(summary["complete"])},',
            f'  "deals": [\n{deals}\n  ],' if deals else '  "deals": [],',
            f'  "totals": {json.dumps(summary["totals"])},',
            f'  "winners": {json.dumps(summary["winners"])}',
            "}",
        ]
    )


_DEAL_LINES = (
    ("index", "dealer", "hand_size", "trump"),
    ("bids", "forbidden_bid"),
    ("trick_winners", "tricks_won"),
    ("scores",),
)


def _format_deal(deal: dict[str, Any]) -> str:
    lines = [", ".join(f'"{key}": {json.dumps(deal[key])}' for key in keys) for keys in _DEAL_LINES]
    return "    {" + ",\n     ".join(lines) + "}"


# ---- public records -------------------------------------------------------------------------


def _deal_played_out(deal: dict[str, Any], players: int) -> bool:
    hands = deal.get("hands") or []
    tricks = deal.get("tricks") or []
    size = len(hands[0]) if hands else 0
    return len(tricks) == size and all(len(trick) == players for trick in tricks)


def public_record(document: dict[str, Any]) -> dict[str, Any]:
    """The part of a game's record that reveals no card still held: the deals played out to
    their last trick (every card of their hands has been played, so their hands hide
    nothing). It is itself a valid ``kachuful-record/1`` document (docs/record-format.md
    requires each listed deal's hands as dealt, so the deal in progress cannot be listed): the
    public part of that deal is :func:`deal_in_progress`. Pure: ``document`` is not changed."""
    players = len(document["players"])
    out = {key: value for key, value in document.items() if key != "deals"}
    out["deals"] = []
    for deal in document.get("deals", []):
        if not _deal_played_out(deal, players):
            break
        out["deals"].append(json.loads(json.dumps(deal)))
    return out


def deal_in_progress(document: dict[str, Any]) -> dict[str, Any] | None:
    """What everyone at the table has seen of the deal being played: its index in the
    schedule, the bids so far and the completed tricks (a trick still on the table and every
    card in a hand left out). None when no deal is in progress."""
    players = len(document["players"])
    deals = document.get("deals", [])
    for number, deal in enumerate(deals):
        if _deal_played_out(deal, players):
            continue
        out: dict[str, Any] = {
            "deal": int(document.get("start_deal", 0)) + number,
            "bids": list(deal.get("bids") or [None] * players),
            "tricks": [list(t) for t in deal.get("tricks") or [] if len(t) == players],
        }
        if deal.get("blind") is not None:
            out["blind"] = list(deal["blind"])
        if "turned" in deal:
            out["turned"] = deal["turned"]  # turned face up for everyone to see
        return out
    return None


def deal_record(
    document: dict[str, Any], number: int, *, with_play: bool = False
) -> dict[str, Any]:
    """The ``number``-th deal (0-based) listed in a record as a record of its own, valid
    ``kachuful-record/1``: same rules and players, that deal's dealer first and its place in
    the schedule; its hands (and turned card) as dealt, and with ``with_play`` its bids and
    tricks. How a review looks at one deal, and how a practice deal starts from a game's.
    Raises ``RecordError`` for a record that breaks a rule or has no such deal."""
    record = parse_record(document)
    if not 0 <= number < len(record.deals):
        raise RecordError(
            f"deals: there is no deal {number} (the record lists {len(record.deals)})"
        )
    n = len(record.players)
    deal = record.deals[number]
    kept = {"hands", "turned"} | ({"bids", "blind", "tricks"} if with_play else set())
    one = deal.model_dump(include=kept & deal.model_fields_set)
    return {
        "format": FORMAT,
        "rules": dict(record.rules),
        "players": list(record.players),
        "first_dealer": (record.first_dealer + number) % n,
        "start_deal": record.start_deal + number,
        "deals": [one],
    }
