"""The web client's files, served from the bot's own origin (Discord's Activity proxy blocks
any other), under a folder named by a digest of their content: ``/assets/<digest>/app.js``.
A change to any file changes every address, so a browser (or the proxy, which keeps cache
headers) may keep them for a year and never runs an old script beside a new one; the page
itself (``index.html``) is never cached. The client is plain ES modules: nothing to build."""

from __future__ import annotations

import hashlib
import mimetypes
from functools import cached_property
from pathlib import Path

STATIC = Path(__file__).parent / "static"
IMMUTABLE = "public, max-age=31536000, immutable"
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
}


class Assets:
    def __init__(self, root: Path = STATIC) -> None:
        self.root = root.resolve()

    @cached_property
    def files(self) -> dict[str, bytes]:
        """Every file of the client, by its path under the root (read once)."""
        found = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                found[path.relative_to(self.root).as_posix()] = path.read_bytes()
        return found

    @cached_property
    def digest(self) -> str:
        hasher = hashlib.sha256()
        for name, data in self.files.items():
            hasher.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return hasher.hexdigest()[:16]

    def url(self, name: str) -> str:
        return f"/assets/{self.digest}/{name}"

    def get(self, digest: str, name: str) -> tuple[bytes, str] | None:
        """A file's bytes and content type, if ``digest`` is today's and the file exists."""
        if digest != self.digest:
            return None
        data = self.files.get(name)
        if data is None:
            return None
        suffix = Path(name).suffix
        kind = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        return data, kind
