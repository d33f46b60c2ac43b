// A stand-in for Discord's client around an Activity (tests only, never shipped): the parent
// frame that answers the Embedded App SDK's messages as Discord's RPC does: the handshake
// with READY, then each command (authorize gives the code this page was opened with,
// authenticate, the locale, subscriptions), and layout events on demand. Every command the
// Activity sent is kept in window.sent for the test to read.
const frame = document.getElementById("activity");
const setup = document.body.dataset;
window.sent = [];

function reply(message) {
  frame.contentWindow.postMessage([1, message], window.location.origin);
}

const answers = {
  AUTHORIZE: () => ({ code: setup.code }),
  AUTHENTICATE: (args) => ({
    access_token: args.access_token,
    user: { username: setup.user, discriminator: "0", id: setup.userId, avatar: null, public_flags: 0, global_name: setup.user },
    scopes: ["identify"],
    expires: "2030-01-01T00:00:00.000Z",
    application: { description: "", icon: null, id: setup.clientId, name: "Kachuful" },
  }),
  USER_SETTINGS_GET_LOCALE: () => ({ locale: setup.locale }),
  SUBSCRIBE: (args, message) => ({ evt: message.evt }),
  CAPTURE_LOG: () => null,
};

window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow || !Array.isArray(event.data)) return;
  const [opcode, message] = event.data;
  window.sent.push({ opcode, ...message });
  if (opcode === 0) {
    const user = { id: setup.userId, username: setup.user, discriminator: "0" };
    const config = { api_endpoint: "//discord.com/api", environment: "production" };
    reply({ cmd: "DISPATCH", evt: "READY", nonce: null, data: { v: 1, config, user } });
    return;
  }
  if (opcode !== 1) return;
  const answer = answers[message.cmd];
  if (answer === undefined) {
    reply({ cmd: message.cmd, evt: "ERROR", nonce: message.nonce, data: { code: 1000, message: "not in the stand-in" } });
    return;
  }
  reply({ cmd: message.cmd, evt: null, nonce: message.nonce, data: answer(message.args || {}, message) });
});

// What Discord sends when the reader changes the Activity's layout (0 focused, 1 pip, 2 grid).
window.layout = (mode) =>
  reply({ cmd: "DISPATCH", evt: "ACTIVITY_LAYOUT_MODE_UPDATE", nonce: null, data: { layout_mode: mode } });
