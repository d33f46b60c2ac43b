"""benchmarks/web_screenshots.py captures a moment of the table at both sizes (Debian's
chromium), as PNG files of those sizes."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

# The browser tests' group: one Chromium at a time on the machine.
pytestmark = pytest.mark.xdist_group("browser")

ROOT = Path(__file__).resolve().parents[2]


def test_web_screenshots_one_moment(tmp_path: Path) -> None:
    script = str(ROOT / "benchmarks" / "web_screenshots.py")
    done = subprocess.run(
        [sys.executable, script, "--out", str(tmp_path), "--moments", "trick"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    sizes = {}
    for name in ("web-trick-phone.png", "web-trick-desktop.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        sizes[name] = struct.unpack(">II", data[16:24])  # the IHDR's width and height
    assert sizes == {"web-trick-phone.png": (390, 844), "web-trick-desktop.png": (1280, 800)}
