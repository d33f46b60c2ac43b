"""The whole suite: the search player's compiled loops are built once, before the workers
start.

numba compiles them on a machine's first search (about 15 s of CPU) and caches them on disk
(``kachuful_core/players/__pycache__``). In a fresh checkout every pytest-xdist worker would
otherwise compile them at once, side by side on the same cores; warmed up here, in the one
process that starts the workers, each worker loads the cache in about half a second."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a worker: the controller warmed the cache up
        return
    if config.getoption("numprocesses", default=None) in (None, 0):
        return  # one process: the first search test compiles, as it always did
    from kachuful_core.players.levels import warm_up

    warm_up("search")
