// The web table's client: plain ES modules, served from the bot's own origin (docs/web.md).
// Its settings come from the page's data attributes (no inline script); it draws what the
// server sends and never infers what it was not sent.
import { h } from "./table/dom.js";
import { Connection } from "./table/socket.js";
import { Table } from "./table/table.js";
import { say } from "./table/words.js";

const page = document.body.dataset;
const app = document.getElementById("app");

// The table's id: the page's (/table/<id>), or an Activity's (?table=<id>).
function tableId() {
  if (page.table) return Number(page.table);
  const asked = new URLSearchParams(location.search).get("table");
  return asked && /^\d{1,20}$/.test(asked) ? Number(asked) : null;
}

// Before any view: is the reader logged in? A socket refused at /ws only says "closed".
async function loggedIn() {
  try {
    const answer = await fetch("/api/me", { credentials: "same-origin" });
    return answer.ok;
  } catch {
    return true; // the server is away: keep trying the socket
  }
}

function loginPage() {
  const next = location.pathname + location.search;
  app.replaceChildren(
    h(
      "div",
      { class: "notice" },
      h("p", { text: say(null, "login_needed") }),
      h("a", { class: "login", href: `/login?next=${encodeURIComponent(next)}` }, say(null, "login")),
    ),
  );
}

function notice(text) {
  app.replaceChildren(h("div", { class: "notice" }, h("p", { text })));
}

// The table page: a socket for table `id`, the page drawn from each view it brings.
function openTable(id, socketUrl, session = null) {
  const table = new Table(app, (move) => connection.move(move));
  let seen = false;
  const connection = new Connection(socketUrl, id, {
    session,
    onView: (frame) => {
      seen = true;
      table.update(frame);
    },
    onAnswer: (frame) => table.answered(frame),
    onStatus: async (state, failures) => {
      if (state === "closed" && !seen && !session && failures === 1 && !(await loggedIn())) {
        connection.stop();
        loginPage();
        return;
      }
      table.connection(state);
    },
  });
  connection.start();
  // For tests and the curious: the connection and the view on screen (the reader's own).
  window.kachuful = { connection, table };
}

// Inside Discord: the Embedded App SDK logs the reader in and says which table this
// instance shows (activity.js); the session goes in the socket's hello.
async function startActivity() {
  let entered;
  try {
    const { enterActivity } = await import("./activity.js");
    entered = await enterActivity(page);
  } catch (error) {
    notice(String((error && error.message) || error));
    return;
  }
  if (entered.table === null || entered.table === undefined) {
    notice(entered.text || say(null, "no_table"));
    return;
  }
  // The session in the socket's address too: the live table checks it when the socket opens
  // (bot/web/live.py), before any hello.
  const socket = new URL(entered.socket);
  socket.searchParams.set("session", entered.session);
  // The words in the language Discord's client shows (the SDK's locale).
  if (entered.locale) socket.searchParams.set("locale", entered.locale);
  openTable(entered.table, socket.href, entered.session);
}

function start() {
  if (page.page === "activity") {
    startActivity();
    return;
  }
  const id = tableId();
  if (id === null) {
    notice(say(null, "no_table"));
    return;
  }
  openTable(id, page.socket);
}

start();
