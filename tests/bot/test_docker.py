"""The image's build steps, read from the Dockerfile (Docker itself cannot run in the tests)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from .process import REPO

DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = (REPO / "compose.yaml").read_text(encoding="utf-8")


def _index(text: str) -> int:
    position = DOCKERFILE.find(text)
    assert position >= 0, f"{text!r} is not in the Dockerfile"
    return position


def test_dependencies_are_installed_before_the_source_is_copied() -> None:
    # A source change must not invalidate the layer that installs the dependencies.
    assert _index("COPY pyproject.toml ./") < _index("pip install -r") < _index("COPY bot ")
    assert _index("COPY cogs ") < _index("pip install --no-deps .")
    copies = re.findall(r"^COPY (.+)$", DOCKERFILE, flags=re.MULTILINE)
    assert copies[0] == "pyproject.toml ./"


def test_the_requirements_step_lists_the_projects_dependencies() -> None:
    snippet = re.search(r'python -c "(import tomllib.+?)" >', DOCKERFILE)
    assert snippet is not None
    code = snippet.group(1)  # as sh passes it: \n stays a backslash and an n in "..."
    listed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    with (REPO / "pyproject.toml").open("rb") as file:
        assert listed == tomllib.load(file)["project"]["dependencies"]


def test_signals_health_and_user() -> None:
    assert 'ENTRYPOINT ["/usr/bin/tini", "--"]' in DOCKERFILE
    assert "tini" in DOCKERFILE.split("COPY pyproject.toml")[0]  # installed from Debian
    assert re.search(r'HEALTHCHECK .*\n\s+CMD \["python", "-m", "bot.health"\]', DOCKERFILE)
    assert "USER kachuful" in DOCKERFILE


def test_compose_restarts_and_keeps_the_data() -> None:
    assert "restart: unless-stopped" in COMPOSE
    assert "- kachuful-data:/data" in COMPOSE
    assert re.search(r"^volumes:\n  kachuful-data:", COMPOSE, flags=re.MULTILINE)
