"""The suite's parallel run keeps its groups: README's test command runs pytest-xdist with
``--dist loadgroup`` so that the tests marked ``xdist_group("processes")`` (real bot
processes, several at a time) run one after the other on one worker. pytest 9.2 stopped
honouring the mark without a word (pytest-xdist issue 1386: xdist 3.8 still renames the test
ids, which pytest 9.2 no longer reads), so the test extra keeps pytest below 9.2; this test
fails if an install ever spreads a group over several workers again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GROUPED = """
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("n", range(4))
def test_where(n):
    Path(os.environ["WHERE"], f"{__name__}-{n}").write_text(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for name in ("test_one.py", "test_two.py"):
        (project / name).write_text(GROUPED, encoding="utf-8")
    where = tmp_path / "where"
    where.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"],
        cwd=project,
        env={"WHERE": str(where), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = {path.name: path.read_text() for path in where.iterdir()}
    assert len(workers) == 8  # every test ran
    assert len(set(workers.values())) == 1, workers
