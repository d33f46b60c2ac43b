"""The computer players' worker processes end with the bot, however it ends: a real bot process
(tests/bot/expert_bot.py), its pool up and an Expert seat thinking in the pool's worker, is
SIGKILLed, or stopped cleanly; within 5 s of its end no process it started remains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..expert_bot import THINKING_LINE
from ..process import REPO, bot_env

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = [
    pytest.mark.xdist_group("processes"),
    pytest.mark.skipif(
        not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc (Linux)"
    ),
]

GONE_WITHIN = 5.0
THINKING_WITHIN = 180.0  # start-up, and numba compiling the search on a machine's first run


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name, or None if there is no such
    process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2 :].split()


def started_at(pid: int) -> str | None:
    """The process's start time (its identity, with its id), or None if it has ended (a
    zombie has ended: it holds no memory, only its exit status for its parent)."""
    fields = _stat(pid)
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (children, their children...), with its start time."""
    found: dict[int, str] = {}
    stack = [pid]
    while stack:
        parent = stack.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            for child in map(int, children):
                start = started_at(child)
                if start is not None and child not in found:
                    found[child] = start
                    stack.append(child)
    return found


def in_session(session: int) -> dict[int, str]:
    """Every running process of a session: the bot's, and whatever it started (none of them
    starts a session of its own), wherever they were re-parented."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[3]) == session:
                start = started_at(int(entry.name))
                if start is not None:
                    found[int(entry.name)] = start
    return found


def still_running(processes: dict[int, str]) -> dict[int, str]:
    return {pid: start for pid, start in processes.items() if started_at(pid) == start}


def wait_for_thinking(bot: subprocess.Popen[bytes], log: Path) -> int:
    """The id of the worker process an Expert seat is thinking in, once one is."""
    deadline = time.monotonic() + THINKING_WITHIN
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(THINKING_LINE):
                return int(line.split()[-1])
        assert bot.poll() is None, log.read_text(errors="replace")
        time.sleep(0.02)
    raise AssertionError(f"no Expert decision within {THINKING_WITHIN} s: {log.read_text()}")


@pytest.fixture
def short_tmp() -> Iterator[str]:
    """The bot's TMPDIR: short (its forkserver makes a unix socket there, at most 107 bytes),
    and removed after the test with what the forkserver of a SIGKILLed bot leaves in it."""
    short = "/tmp" if os.path.isdir("/tmp") else None
    with tempfile.TemporaryDirectory(prefix="kachuful-workers-", dir=short) as folder:
        yield folder


@pytest.mark.parametrize("end", ["SIGKILL", "SIGTERM"])
def test_the_bots_worker_processes_end_with_it(tmp_path: Path, short_tmp: str, end: str) -> None:
    log = tmp_path / "bot.log"
    env = bot_env(tmp_path / "k.sqlite3", KACHUFUL_COMPUTER_WORKERS="1", TMPDIR=short_tmp)
    with open(log, "wb") as out:
        bot = subprocess.Popen(
            [sys.executable, "-m", "tests.bot.expert_bot"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,  # the bot's session holds whatever it starts
        )
    started: dict[int, str] = {}
    try:
        worker = wait_for_thinking(bot, log)
        started = descendants(bot.pid)
        # The pool: the worker thinking, and the forkserver (its parent), started by the bot.
        assert worker in started
        forkserver = int((_stat(worker) or [])[1])
        assert forkserver in started and forkserver != bot.pid
        started |= in_session(bot.pid)
        if end == "SIGKILL":
            os.kill(bot.pid, signal.SIGKILL)
        else:
            os.kill(bot.pid, signal.SIGTERM)  # the bot's own close(), as python -m bot does
        bot.wait(timeout=30)
        # Counted from the bot's end, not the signal's: a clean stop first waits for the test
        # bot's own loop (tests/bot/expert_bot.py), which SimCord holds while the computers
        # think (2-4 s on an idle machine), and that is not the workers' doing.
        ended = time.monotonic()
        while still_running(started) and time.monotonic() < ended + GONE_WITHIN:
            time.sleep(0.02)
        left = still_running(started) | in_session(bot.pid)
        assert not left, f"{len(left)} processes left {GONE_WITHIN} s after the bot's {end}"
        if end == "SIGTERM":
            assert bot.returncode == 0, log.read_text(errors="replace")
            assert "Traceback" not in log.read_text(errors="replace")
    finally:
        # Whatever the test started and is still there, ended one by one by its id.
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        for pid in still_running(started | in_session(bot.pid)):
            os.kill(pid, signal.SIGKILL)
