// The seats around the felt, from the reader's point of view: their own seat at the bottom,
// then the others in play order going left, over the top, to the right (clockwise, as the
// game passes to the left). Positions are percentages of the felt, set as CSS variables.
import { cardFace, cardName } from "./cards.js";
import { h } from "./dom.js";
import { points, say } from "./words.js";

// Where seat `seat` sits for a reader at `bottom`, as an angle (screen degrees: 90 = bottom).
export function angleOf(seat, bottom, count) {
  const step = (((seat - bottom) % count) + count) % count;
  return 90 + (step * 360) / count;
}

export function place(angle, rx, ry) {
  const radians = (angle * Math.PI) / 180;
  return { x: 50 + rx * Math.cos(radians), y: 50 + ry * Math.sin(radians) };
}

export function bottomSeat(view) {
  return view.you === null || view.you === undefined ? 0 : view.you;
}

function seconds(deadline) {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

export function clockText(deadline) {
  const left = seconds(deadline);
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

// Every turn clock on the page counts down from its deadline (one timer for the page).
export function tickClocks(root, words) {
  for (const clock of root.querySelectorAll(".clock[data-deadline]")) {
    const deadline = Number(clock.dataset.deadline);
    clock.textContent = clockText(deadline);
    clock.setAttribute("aria-label", say(words, "seconds_left", { s: seconds(deadline) }));
    clock.classList.toggle("late", seconds(deadline) <= 10);
  }
}

function figure(words, key, value) {
  return h("div", { class: `figure ${key}` }, h("dt", { text: say(words, key) }), h("dd", { text: value }));
}

export function seatPlate(view, index) {
  const seat = view.seats[index];
  const words = view.words;
  const you = index === view.you;
  const clock = view.clock && view.clock.seat === index ? view.clock : null;
  const angle = angleOf(index, bottomSeat(view), view.seats.length);
  const where = place(angle, 40, 41);
  const classes = ["seat", `colour-${index % 8}`];
  if (seat.turn) classes.push("turn");
  if (you) classes.push("you");
  if (!seat.connected && !seat.bot) classes.push("away");
  if (Math.abs(Math.cos((angle * Math.PI) / 180)) > 0.5) classes.push("flank");
  const name = you ? say(words, "you", { name: seat.name }) : seat.name;
  // The forehead deal: the other seats' cards the reader may see (never their own).
  const shown = (view.visible || []).filter((entry) => entry.seat === index).map((entry) => entry.card);
  return h(
    "section",
    {
      class: classes.join(" "),
      "data-seat": index,
      "aria-label": name,
      "aria-current": seat.turn ? "true" : null,
      vars: { x: `${where.x}%`, y: `${where.y}%` },
    },
    h(
      "header",
      {},
      h("span", { class: "name", text: seat.name, title: name }),
      seat.dealer ? h("span", { class: "chip dealer", title: say(words, "dealer"), "aria-label": say(words, "dealer"), text: "D" }) : null,
      seat.bot ? h("span", { class: "chip bot", title: say(words, "bot"), "aria-label": say(words, "bot"), text: "\u2699" }) : null,
    ),
    h(
      "dl",
      {},
      figure(words, "bid", seat.bid === null ? "\u2013" : String(seat.bid)),
      figure(words, "tricks", String(seat.tricks)),
      figure(words, "score", points(seat.score)),
    ),
    shown.length ? h("div", { class: "shown" }, shown.map((card) => cardFace(words, card, "div", { role: "img", "aria-label": cardName(words, card) }))) : null,
    !you && seat.cards_left > 0 ? h("span", { class: "left", "aria-hidden": "true" }, h("i"), String(seat.cards_left)) : null,
    !seat.connected && !seat.bot ? h("span", { class: "offline", text: say(words, "away") }) : null,
    clock ? h("span", { class: "clock", role: "timer", "data-deadline": clock.deadline_ms, text: clockText(clock.deadline_ms) }) : null,
  );
}
