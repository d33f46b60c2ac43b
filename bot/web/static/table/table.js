// The table on screen: the felt with the seats and the trick, the reader's hand fanned at the
// bottom with the bids and actions above it, the score panel, and the answers to refused
// moves. It draws what the last view says and sends moves; it decides no rule itself (the
// server sends which cards and bids are allowed).
import { cardFace, cardName, displayOrder, suitIndex, suitWord, symbol } from "./cards.js";
import { h } from "./dom.js";
import { dealSummary, scoreTable, standings } from "./scores.js";
import { angleOf, bottomSeat, place, seatPlate, tickClocks } from "./seats.js";
import { say } from "./words.js";

const ANSWER_MS = 6000;
const HOLD_MS = 1500; // a completed trick stays in the middle this long

function trickKey(trick) {
  return trick ? trick.map((played) => `${played.seat}:${played.card}`).join(",") : "";
}

export class Table {
  constructor(root, send) {
    this.root = root;
    this.send = send; // (move) -> id
    this.view = null;
    this.shown = new Set(); // trick cards already on screen (animated only once)
    this.waiting = null; // id of the move sent and not yet answered
    this.showLast = false;
    this.scoresOpen = false;
    this.timer = setInterval(() => this.view && tickClocks(this.root, this.view.words), 1000);
    this.root.classList.add("table-page");
    this.banner = h("div", { class: "banner", role: "status", "aria-live": "polite" });
    this.answer = h("div", { class: "answer", role: "alert" });
    this.board = h("div", { class: "board" });
    this.root.replaceChildren(this.board, this.banner, this.answer);
    this.resize = () => this.view && this.layoutHand();
    window.addEventListener("resize", this.resize);
  }

  // ---- what the server says ---------------------------------------------------------------

  update(view) {
    const before = this.view;
    const newDeal = before && view.deal && before.deal && view.deal.number !== before.deal.number;
    if (newDeal) this.showLast = false;
    // A trick just completed: the server's next view already has it as the last trick. It
    // stays in the middle a moment, its winner marked, so that every player sees its last
    // card land before the table clears (the next lead ends the pause at once).
    if (before && view.last_trick && trickKey(view.last_trick) !== trickKey(before.last_trick)) {
      this.holdUntil = Date.now() + HOLD_MS;
      clearTimeout(this.holdTimer);
      this.holdTimer = setTimeout(() => this.view && this.render(), HOLD_MS + 20);
    }
    this.view = view;
    this.waiting = null;
    document.documentElement.lang = view.language || "en";
    const mine = view.bids.length > 0 || view.legal.length > 0;
    // A tab in the background shows the reader's turn in its title.
    document.title = mine ? `\u25B6 ${say(view.words, "your_turn")} \u00B7 ${say(view.words, "title")}` : say(view.words, "title");
    this.render();
  }

  answered(frame) {
    if (frame.id === this.waiting) this.waiting = null;
    if (frame.ok) return;
    this.tell(frame.text || say(this.view && this.view.words, "refused"));
    if (this.view) this.render();
  }

  connection(state) {
    const words = this.view && this.view.words;
    this.banner.textContent = state === "closed" ? say(words, "reconnecting") : "";
    this.banner.classList.toggle("on", state === "closed");
    this.root.classList.toggle("offline", state === "closed");
  }

  tell(text) {
    this.answer.textContent = text;
    this.answer.classList.add("on");
    clearTimeout(this.answerTimer);
    this.answerTimer = setTimeout(() => this.answer.classList.remove("on"), ANSWER_MS);
  }

  play(move) {
    if (this.waiting !== null) return;
    this.waiting = this.send(move);
    this.render();
  }

  // ---- drawing ------------------------------------------------------------------------------

  render() {
    const view = this.view;
    const words = view.words;
    this.board.replaceChildren(this.topBar(view), this.felt(view), this.side(view), this.dock(view));
    this.board.className = `board phase-${view.phase} seats-${view.seats.length}`;
    this.banner.textContent = this.root.classList.contains("offline") ? say(words, "reconnecting") : "";
    tickClocks(this.root, words);
    this.layoutHand();
  }

  topBar(view) {
    const words = view.words;
    const deal = view.deal;
    const facts = [];
    if (deal) {
      facts.push(h("span", { class: "fact deal", text: say(words, "deal", { number: deal.number, of: deal.of }) }));
      facts.push(h("span", { class: "fact size", text: say(words, "hand_size", { n: deal.hand_size }) }));
      const suit = deal.trump ? suitIndex(deal.trump) : -1;
      const trumpText = suit >= 0 ? say(words, "trump", { suit: suitWord(words, suit) }) : say(words, "no_trump");
      facts.push(
        h(
          "span",
          { class: `fact trump${suit === 1 || suit === 2 ? " red" : ""}`, "aria-label": trumpText, title: trumpText },
          suit >= 0 ? h("b", { "aria-hidden": "true", text: symbol(suit) }) : null,
          h("span", { class: "label", "aria-hidden": "true", text: trumpText }),
        ),
      );
    }
    const lastTrick = view.last_trick && view.last_trick.length && view.phase !== "deal_over"
      ? h("button", { type: "button", class: "tool last", "aria-pressed": String(this.showLast), onclick: () => this.toggleLast() }, say(words, "last_trick"))
      : null;
    const scores = h("button", { type: "button", class: "tool scores-button", "aria-expanded": String(this.scoresOpen), onclick: () => this.toggleScores() }, say(words, "scores"));
    return h("header", { class: "bar" }, h("div", { class: "facts" }, facts), h("div", { class: "tools" }, lastTrick, scores));
  }

  toggleLast() {
    this.showLast = !this.showLast;
    this.render();
  }

  toggleScores() {
    this.scoresOpen = !this.scoresOpen;
    this.render();
  }

  status(view) {
    const words = view.words;
    const turn = view.seats.findIndex((seat) => seat.turn);
    if (view.phase === "bidding" || view.phase === "playing") {
      const mine = view.bids.length > 0 || view.legal.length > 0;
      if (mine) return say(words, "your_turn");
      if (turn >= 0) return say(words, "waiting_for", { name: view.seats[turn].name });
      return say(words, view.phase);
    }
    return say(words, view.phase);
  }

  felt(view) {
    const words = view.words;
    const count = view.seats.length;
    const bottom = bottomSeat(view);
    // The deal's last trick stays in sight while its points are shown.
    const holding = Date.now() < (this.holdUntil || 0) && !(view.trick && view.trick.length);
    const lastShown = this.showLast || holding || view.phase === "deal_over";
    const last = lastShown && view.last_trick && view.last_trick.length;
    const cards = last ? view.last_trick : view.trick || [];
    const keys = new Set();
    const trick = h(
      "div",
      { class: `trick${last ? " last" : ""}`, role: "group", "aria-label": say(words, last ? "last_trick" : "trick") },
      cards.map((played, order) => {
        const angle = angleOf(played.seat, bottom, count);
        const radians = (angle * Math.PI) / 180;
        const from = place(angle, 70, 80);
        const key = `${view.deal ? view.deal.number : 0}:${played.seat}:${played.card}`;
        keys.add(key);
        const fresh = (!last || holding) && !this.shown.has(key);
        const winner = last && played.seat === view.last_winner;
        return cardFace(words, played.card, "div", {
          class: `played${fresh ? " enter" : ""}${winner ? " winner" : ""}`,
          role: "img",
          "aria-label": `${view.seats[played.seat].name}: ${cardName(words, played.card)}`,
          vars: { dx: Math.cos(radians).toFixed(3), dy: Math.sin(radians).toFixed(3), fx: `${from.x - 50}vmin`, fy: `${from.y - 50}vmin`, z: order + 1 },
        });
      }),
    );
    if (!last || holding) this.shown = keys;
    const note = last && view.last_winner !== null && view.last_winner !== undefined
      ? h("p", { class: "note", text: say(words, "won_trick", { name: view.seats[view.last_winner].name }) })
      : null;
    let centre = null;
    if (view.phase === "deal_over" && view.scores && view.scores.length) centre = h("div", { class: "overlay" }, dealSummary(view));
    if (view.phase === "finished" && view.standings) centre = h("div", { class: "overlay final" }, standings(view));
    if (view.phase === "stopped" || view.phase === "lobby") centre = h("div", { class: "overlay" }, h("p", { text: say(words, view.phase) }));
    return h(
      "section",
      { class: "felt", "aria-label": say(words, "title") },
      view.seats.map((_, index) => seatPlate(view, index)),
      trick,
      note,
      h("p", { class: `status${view.bids.length || view.legal.length ? " mine" : ""}`, "aria-live": "polite", text: this.status(view) }),
      centre,
    );
  }

  side(view) {
    return h(
      "aside",
      { class: `side${this.scoresOpen ? " open" : ""}` },
      h("button", { type: "button", class: "tool close", onclick: () => this.toggleScores() }, say(view.words, "close")),
      scoreTable(view),
    );
  }

  dock(view) {
    const words = view.words;
    const parts = [];
    if (view.bids && view.bids.length) parts.push(this.bidding(view));
    parts.push(this.actions(view));
    if (view.you === null || view.you === undefined) {
      parts.push(h("p", { class: "watching", text: say(words, "watching") }));
    } else if (view.hand === null || view.hand === undefined) {
      parts.push(this.unseenHand(view));
    } else {
      parts.push(this.hand(view));
    }
    return h("section", { class: "dock" }, parts);
  }

  bidding(view) {
    const words = view.words;
    // A blind bid: made before looking at the hand (the server says when it may be).
    const blind = Boolean(view.blind);
    return h(
      "div",
      { class: "bids", role: "group", "aria-label": say(words, "your_bid") },
      h("span", { class: "prompt", text: say(words, "your_bid") }),
      h(
        "div",
        { class: "choices" },
        view.bids.map((n) =>
          h(
            "button",
            {
              type: "button",
              class: "bid",
              "data-bid": n,
              disabled: this.waiting !== null,
              "aria-label": say(words, blind ? "blind_bid_n" : "bid_n", { n }),
              onclick: () => this.play({ bid: n, blind }),
            },
            String(n),
          ),
        ),
      ),
    );
  }

  actions(view) {
    const words = view.words;
    const can = view.can || {};
    const busy = this.waiting !== null;
    const button = (name, move, extra = {}) =>
      h("button", { type: "button", class: `action ${name}`, disabled: busy, onclick: () => this.play(move), ...extra }, say(words, name));
    const chosen = view.chosen !== null && view.chosen !== undefined && view.legal.includes(view.chosen);
    const items = [
      can.look ? button("look", { look: true }) : null,
      chosen ? button("confirm", { card: view.chosen }, { class: "action confirm primary" }) : null,
      can.takeback ? button("takeback", { takeback: true }) : null,
      can.claim ? button("claim", { claim: true }) : null,
      view.hand && (view.phase === "bidding" || view.phase === "playing")
        ? h(
            "button",
            {
              type: "button",
              class: "action toggle",
              "aria-pressed": String(Boolean(view.confirm_cards)),
              disabled: busy,
              onclick: () => this.play({ set: "confirm_cards", on: !view.confirm_cards }),
            },
            say(words, "confirm_cards"),
          )
        : null,
    ].filter(Boolean);
    return h("div", { class: "actions" }, items);
  }

  hand(view) {
    const words = view.words;
    const legal = new Set(view.legal || []);
    const cards = displayOrder(view.hand);
    // Dimmed: the cards that may not follow now, on the reader's turn to play. At any other
    // time no card may be played, and the hand shows plainly (to bid on, to think over).
    const myTurn = legal.size > 0;
    return h(
      "div",
      { class: "hand", role: "group", "aria-label": say(words, "hand"), vars: { n: cards.length } },
      cards.map((card, index) => {
        const playable = legal.has(card) && this.waiting === null;
        const chosen = view.chosen === card;
        return cardFace(words, card, "button", {
          type: "button",
          class: `in-hand${legal.has(card) ? " legal" : myTurn ? " off" : " idle"}${chosen ? " chosen" : ""}`,
          disabled: !playable,
          "aria-label": cardName(words, card),
          "aria-pressed": view.confirm_cards ? String(chosen) : null,
          vars: { i: index, mid: (cards.length - 1) / 2 },
          onclick: () => this.tap(card),
        });
      }),
    );
  }

  // A hand the reader has not seen: before looking (blind bids), or the forehead deal's one
  // card, which is played unseen (move {"card": null}) when the server says so.
  unseenHand(view) {
    const words = view.words;
    const count = view.seats[view.you] ? view.seats[view.you].cards_left : 0;
    const playable = Boolean(view.unseen) && this.waiting === null;
    const backs = [];
    for (let index = 0; index < count; index += 1) {
      backs.push(
        cardFace(words, null, "button", {
          type: "button",
          class: `in-hand${playable ? " legal" : " idle"}`,
          disabled: !playable,
          "aria-label": say(words, "face_down"),
          vars: { i: index, mid: (count - 1) / 2 },
          onclick: () => view.unseen && this.play({ card: null }),
        }),
      );
    }
    return h("div", { class: "hand unseen", role: "group", "aria-label": say(words, "hand"), vars: { n: count } }, backs);
  }

  // A tap plays the card; with confirm-each-card on, the first tap chooses it and a second
  // tap on it (or Confirm) plays it.
  tap(card) {
    const view = this.view;
    // A card the server did not list cannot go, however the tap arrived (a disabled button
    // can still get a synthetic click).
    if (!view.legal.includes(card)) return;
    if (view.confirm_cards && view.chosen !== card) this.play({ choose: card });
    else this.play({ card });
  }

  // The fan fits the width: cards overlap as much as needed, never wider than the screen.
  layoutHand() {
    const hand = this.board.querySelector(".hand");
    if (!hand) return;
    const count = hand.children.length;
    const card = hand.firstElementChild;
    if (!count || !card) return;
    const width = card.offsetWidth;
    const height = card.offsetHeight;
    // A fan of 20 degrees at most; its outer cards lean out by this much on each side.
    const tilt = count > 1 ? Math.min(3, 20 / (count - 1)) : 0;
    const lean = height * 1.4 * Math.sin(((tilt * (count - 1)) / 2) * (Math.PI / 180));
    const room = hand.clientWidth - 2 * lean;
    const step = count > 1 ? Math.min(width * 0.78, (room - width) / (count - 1)) : 0;
    hand.style.setProperty("--tilt", `${tilt}deg`);
    hand.style.setProperty("--step", `${Math.max(step, 0)}px`);
    hand.style.setProperty("--span", `${width + step * (count - 1)}px`);
  }
}
