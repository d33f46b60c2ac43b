"""Running the real entry point (``python -m bot``) in a subprocess, against a local stand-in
for Discord's REST API, so that no test reaches the network.

discord.py builds every REST URL from ``discord.http.Route.BASE``; the subprocess sets it to a
local server before running ``bot`` as ``__main__`` (exactly what ``python -m bot`` runs).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"

_LAUNCH = (
    "import runpy, sys, yarl, discord.gateway, discord.http; "
    "discord.http.Route.BASE = sys.argv[1]; "
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2]); "
    "runpy.run_module('bot', run_name='__main__', alter_sys=True)"
)

# (status, JSON body) for a request path, or None to hold the request open until the test ends
# (a gateway that never answers).
Responder = Callable[[str], tuple[int, Any] | None]


class FakeDiscord:
    """A local HTTP server standing in for Discord's REST API; records every request path."""

    def __init__(self, respond: Responder) -> None:
        self.paths: list[str] = []
        self.seen = threading.Condition()
        self.release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with fake.seen:
                    fake.paths.append(self.path)
                    fake.seen.notify_all()
                answer = respond(self.path)
                if answer is None:
                    fake.release.wait(30)
                    return
                status, body = answer
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{port}/api/v10"
        self.gateway = f"ws://127.0.0.1:{port}/gateway/"

    def wait_for(self, fragment: str, timeout: float = 20) -> bool:
        with self.seen:
            return self.seen.wait_for(lambda: any(fragment in p for p in self.paths), timeout)


@contextmanager
def fake_discord(respond: Responder) -> Iterator[FakeDiscord]:
    fake = FakeDiscord(respond)
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        fake.server.shutdown()
        fake.server.server_close()


def nothing(path: str) -> tuple[int, Any]:
    return 500, {"message": "this test expects no request at all", "code": 0}


def bot_env(db_path: Path | str, **extra: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "DISCORD_TOKEN": FAKE_TOKEN,
        "KACHUFUL_DB_PATH": str(db_path),
        **extra,
    }


def launch(cwd: Path, fake: FakeDiscord, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, fake.base, fake.gateway],
        cwd=cwd,  # no .env there
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_bot(
    cwd: Path, env: dict[str, str], respond: Responder = nothing, timeout: float = 60
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the bot to its end; returns the finished process and the REST paths it asked for."""
    with fake_discord(respond) as fake:
        process = launch(cwd, fake, env)
        try:
            out, err = process.communicate(timeout=timeout)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
        return done, list(fake.paths)
