"""Kachuful, the South Asian member of the Oh Hell family, as a pure rules engine.

Imports only the standard library and pydantic: no Discord, no storage, no clock, no global
random. See docs/engine.md for the API in brief.
"""

from .cards import Card, Suit, card_label, card_str, parse_card
from .errors import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotAllowed,
    CardNotInHand,
    ClaimNotCertain,
    DealerBidForbidden,
    InvalidSeat,
    KachufulError,
    MustFollowSuit,
    NothingToTakeBack,
    NotYourTurn,
    OptionNotEnabled,
    RecordError,
    WrongPhase,
)
from .game import Game, Phase
from .record import (
    Record,
    deal_in_progress,
    export_record,
    load_game,
    parse_record,
    public_record,
    record_document,
    record_json,
    score_summary,
)
from .rules import Rules
from .views import SeatView, view

__all__ = [
    "BidOutOfRange",
    "BlindBidAfterLooking",
    "Card",
    "CardNotAllowed",
    "CardNotInHand",
    "ClaimNotCertain",
    "DealerBidForbidden",
    "Game",
    "InvalidSeat",
    "KachufulError",
    "MustFollowSuit",
    "NotYourTurn",
    "NothingToTakeBack",
    "OptionNotEnabled",
    "Phase",
    "Record",
    "RecordError",
    "Rules",
    "SeatView",
    "Suit",
    "WrongPhase",
    "card_label",
    "card_str",
    "deal_in_progress",
    "export_record",
    "load_game",
    "parse_card",
    "parse_record",
    "public_record",
    "record_document",
    "record_json",
    "score_summary",
    "view",
]
