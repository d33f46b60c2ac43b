// The labels the table shows come from the view's `words`, translated on the server from the
// bot's catalogues in the reader's language. The English here is only a fallback for a key a
// server does not send (an older server), so the table never shows a bare key.

export const FALLBACK = {
  title: "Kachuful",
  deal: "Deal {number} of {of}",
  hand_size: "Cards: {n}",
  trump: "Trump: {suit}",
  no_trump: "No trump",
  spades: "spades",
  hearts: "hearts",
  diamonds: "diamonds",
  clubs: "clubs",
  rank_j: "J",
  rank_q: "Q",
  rank_k: "K",
  rank_a: "A",
  card: "{rank} of {suit}",
  face_down: "Your card (unseen)",
  bid: "Bid",
  tricks: "Tricks",
  score: "Score",
  your_turn: "Your turn",
  your_bid: "Your bid",
  bid_n: "Bid {n}",
  blind_bid_n: "Bid {n} blind",
  waiting_for: "Waiting for {name}",
  bidding: "Bidding",
  playing: "Playing",
  lobby: "Waiting for the game to start",
  deal_over: "Deal over",
  finished: "Game over",
  stopped: "The game was stopped",
  dealer: "Dealer",
  bot: "Computer",
  away: "Offline",
  you: "{name} (you)",
  trick: "Trick",
  hand: "Your hand",
  last_trick: "Last trick",
  won_trick: "{name} won the trick",
  takeback: "Take back",
  claim: "Claim the rest",
  confirm: "Confirm",
  look: "Look at my cards",
  confirm_cards: "Confirm each card",
  scores: "Scores",
  close: "Close",
  total: "Total",
  deal_column: "Deal",
  standings: "Final standings",
  place: "Place",
  chart: "Scores deal by deal",
  seconds_left: "{s} seconds left",
  reconnecting: "Connection lost: reconnecting…",
  refused: "That move was refused.",
  watching: "You are watching this table.",
  login: "Log in with Discord",
  login_needed: "Log in with Discord to see this table.",
  no_table: "Open a table from Discord to play here.",
};

// A label filled with values: `say(words, "deal", {number: 2, of: 8})`.
export function say(words, key, values = {}) {
  const text = (words && typeof words[key] === "string" && words[key]) || FALLBACK[key] || key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// A count of points as the bot's messages write it: a true minus sign (U+2212), never the
// hyphen, and with `plus` a "+" before a gain (a deal's points).
export function points(value, plus = false) {
  if (value < 0) return `\u2212${-value}`;
  return plus && value > 0 ? `+${value}` : String(value);
}
