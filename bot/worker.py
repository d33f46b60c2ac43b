"""The computer players' worker process (the pool of :mod:`bot.table.thinking`): how it starts,
tied to the bot's process so that it exits when the bot's process ends, however it ends
(SIGKILL included).

Why the tie: a worker is forked by multiprocessing's forkserver, not by the bot, and neither of
them notices the bot's death by itself. The worker waits for its next task on a queue whose
writing end it holds itself, so the read never reaches end-of-file; the forkserver waits until
every holder of its "alive" pipe is gone, and each worker holds one. SIGKILL the bot and the
forkserver and its worker (about 200 MB each) live on for ever under PID 1, one pair per crash.

The tie: the bot holds the only writing end of a pipe, never written to. It is not inheritable,
and multiprocessing starts the forkserver and its resource tracker with an explicit list of
file descriptors, so no other process gets it. Each worker gets the reading end and a thread
that waits on it. When the bot's process ends, the kernel closes the writing end, the read
returns end-of-file and the worker exits; then the forkserver (its alive pipe at end-of-file)
and the resource tracker (its own pipe at end-of-file) end by themselves. This works wherever
the forkserver does (Linux, macOS), and whichever thread of the bot started the pool.

This module is outside ``bot.table`` and imports nothing heavy: a new worker imports it before
its first instruction runs, and importing ``bot.table`` takes most of a second (seconds on a
busy machine), during which a worker not yet tied would miss the bot's end.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from multiprocessing.connection import Connection

# The reading end handed to every worker, and the writing end this process holds until it ends.
_ends: tuple[Connection, Connection] | None = None


def bot_lifeline() -> Connection:
    """In the bot: the reading end of its lifeline, to hand to a new worker (pickling it for
    the worker passes the file descriptor to the new process)."""
    global _ends
    if _ends is None:
        _ends = multiprocessing.Pipe(duplex=False)
    return _ends[0]


def start(lifeline: Connection) -> None:
    """A new worker's first steps (the pool's initializer): tie it to the bot's process, then
    load the search player, its compiled loops included, before its first decision is timed
    (numba compiles them on a machine's first run, then loads them from its disk cache)."""
    threading.Thread(
        target=_exit_at_end, args=(lifeline,), name="bot-lifeline", daemon=True
    ).start()
    from kachuful_core.players import warm_up

    warm_up()


def _exit_at_end(lifeline: Connection) -> None:
    # Nothing is ever sent: recv_bytes returns only at end-of-file (EOFError).
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv_bytes()
    # The bot is gone: nobody waits for this worker's results. os._exit, not sys.exit: the main
    # thread may be in the middle of a decision, and nothing here needs cleaning up.
    os._exit(0)
