// Cards as the engine codes them (kachuful_core.cards): suit * 13 + rank, suits S H D C, ranks
// 2..A. Drawn in CSS (rank and suit symbol in two corners and the middle), red or black.
import { h } from "./dom.js";
import { say } from "./words.js";

const SUITS = ["S", "H", "D", "C"];
const SYMBOLS = ["\u2660", "\u2665", "\u2666", "\u2663"];
const SUIT_WORDS = ["spades", "hearts", "diamonds", "clubs"];
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const FACES = { 9: "rank_j", 10: "rank_q", 11: "rank_k", 12: "rank_a" };

export const suitOf = (card) => Math.floor(card / 13);
export const rankOf = (card) => card % 13;
export const suitIndex = (letter) => SUITS.indexOf(letter);
export const symbol = (suit) => SYMBOLS[suit];
export const suitWord = (words, suit) => say(words, SUIT_WORDS[suit]);

// The rank as the reader's cards print it (a French pack prints V D R for J Q K).
export function rankText(words, card) {
  const key = FACES[rankOf(card)];
  return key ? say(words, key) : RANKS[rankOf(card)];
}

export function cardName(words, card) {
  if (card === null) return say(words, "face_down");
  return say(words, "card", { rank: rankText(words, card), suit: suitWord(words, suitOf(card)) });
}

// Hand order as the channel shows it (kachuful_core.cards.display_order): by suit, high first.
export function displayOrder(cards) {
  return [...cards].sort((a, b) => {
    if (a === null || b === null) return a === null ? 1 : -1;
    return suitOf(a) - suitOf(b) || rankOf(b) - rankOf(a);
  });
}

// The face of a card (no behaviour): used in the hand, the trick and the last trick.
export function cardFace(words, card, tag = "div", attributes = {}) {
  const { class: more = "", ...rest } = attributes;
  if (card === null) {
    return h(tag, { ...rest, class: `card back ${more}` }, h("span", { class: "pattern" }));
  }
  const suit = suitOf(card);
  const rank = rankText(words, card);
  const colour = suit === 1 || suit === 2 ? "red" : "black";
  return h(
    tag,
    { ...rest, class: `card ${colour} suit-${SUITS[suit]} ${more}`, "data-card": card },
    h("span", { class: "corner top", "aria-hidden": "true" }, h("b", { text: rank }), h("i", { text: SYMBOLS[suit] })),
    h("span", { class: "pip", "aria-hidden": "true", text: SYMBOLS[suit] }),
    h("span", { class: "corner bottom", "aria-hidden": "true" }, h("b", { text: rank }), h("i", { text: SYMBOLS[suit] })),
  );
}
