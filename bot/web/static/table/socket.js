// The table's socket (docs/web.md, "Socket protocol"): hello with the last version seen, moves
// with an id of their own, a ping to keep the line alive, and reconnection with a growing wait
// after the line drops. A move not answered when the line drops is sent again with the same
// id after the next hello: the server counts a move id once, so it cannot be played twice.

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000, 15000];
const PING_MS = 20000;
const SILENCE_MS = 45000; // no frame for this long: the line is dead even if not closed

function moveId() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class Connection {
  constructor(url, table, { onView, onAnswer, onStatus, session = null }) {
    this.url = url;
    this.table = table;
    this.session = session; // an Activity's session (Discord's frame may refuse cookies)
    this.version = null; // the last version seen, sent with hello to resume
    this.pending = new Map(); // move id -> frame, until answered
    this.onView = onView;
    this.onAnswer = onAnswer;
    this.onStatus = onStatus;
    this.failures = 0;
    this.socket = null;
    this.timers = { retry: null, ping: null };
    this.lastHeard = 0;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timers.retry);
    clearInterval(this.timers.ping);
    if (this.socket) this.socket.close();
  }

  open() {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.lastHeard = Date.now();
      const hello = { t: "hello", table: this.table, version: this.version };
      if (this.session) hello.session = this.session;
      this.write(hello);
      for (const frame of this.pending.values()) this.write(frame);
      clearInterval(this.timers.ping);
      this.timers.ping = setInterval(() => this.beat(), PING_MS);
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => this.dropped(socket));
    socket.addEventListener("error", () => socket.close());
  }

  beat() {
    if (Date.now() - this.lastHeard > SILENCE_MS) {
      this.socket.close();
      return;
    }
    this.write({ t: "ping" });
  }

  receive(data) {
    this.lastHeard = Date.now();
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.t === "view") {
      this.failures = 0;
      this.version = frame.version;
      this.onStatus("open");
      this.onView(frame);
    } else if (frame.t === "answer") {
      if (frame.id !== null) this.pending.delete(frame.id);
      this.onAnswer(frame);
    }
  }

  dropped(socket) {
    if (socket !== this.socket) return;
    clearInterval(this.timers.ping);
    if (this.stopped) return;
    const wait = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures += 1;
    this.onStatus("closed", this.failures);
    // A little spread, so that every page of a restarted bot does not come back at once.
    this.timers.retry = setTimeout(() => this.open(), wait * (0.8 + Math.random() * 0.4));
  }

  write(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(frame));
    }
  }

  // A move drawn at the version on screen; sent now, or after the next hello.
  move(move) {
    const frame = { t: "move", id: moveId(), version: this.version, move };
    this.pending.set(frame.id, frame);
    this.write(frame);
    return frame.id;
  }
}
