"""The whole suite: the search player's compiled loops are built once, beside the workers'
start-up rather than before it.

numba compiles them on a machine's first search (about 19 s of one core) and caches them on
disk (``kachuful_core/players/__pycache__``). In a fresh checkout every pytest-xdist worker
would otherwise compile them at once, side by side on the same cores. So the process that
starts the workers compiles them in a child process while the workers start and collect the
tests (about 5 s of CPU each, on the other core), and each worker waits for that child before
its first test; then it loads the cache in about half a second."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# Where the controller's warm-up says it is over (an environment variable: the workers are
# started after pytest_configure and inherit it).
DONE = "KACHUFUL_TEST_WARM_UP_DONE"
WARM_UP = """
import sys
from pathlib import Path
try:
    from kachuful_core.players.levels import warm_up
    warm_up("search")
finally:
    Path(sys.argv[1]).touch()
"""
# A worker waits at most this long; a warm-up that takes longer (or failed without its file)
# only means the workers' first searches compile for themselves, as without a warm-up.
WAIT_SECONDS = 240


def pytest_configure(config: pytest.Config) -> None:
    # The suite starts some hundred Python processes (workers, bots, benchmark scripts) that
    # import the same modules: the first compiles each to bytecode for all the others (about
    # 0.1 s of CPU a process), even where the shell says PYTHONDONTWRITEBYTECODE (the files go
    # to the ignored __pycache__ folders, where numba's cache already is).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):  # a worker: it waits in pytest_collection_finish
        return
    if config.getoption("numprocesses", default=None) in (None, 0):
        return  # one process: the first search test compiles, as it always did
    folder = tempfile.mkdtemp(prefix="kachuful-warm-up-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    done = Path(folder) / "done"
    os.environ[DONE] = str(done)
    child = subprocess.Popen([sys.executable, "-c", WARM_UP, str(done)])
    config.add_cleanup(child.wait)  # before the folder goes (cleanups run last-in, first-out)


def pytest_collection_finish(session: pytest.Session) -> None:
    done = os.environ.get(DONE)
    if done is None or not hasattr(session.config, "workerinput"):
        return
    deadline = time.monotonic() + WAIT_SECONDS
    while not Path(done).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
