"""The image's build steps, read from the Dockerfile (Docker itself cannot run in the tests),
and the lock file it installs from."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .process import REPO

DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = (REPO / "compose.yaml").read_text(encoding="utf-8")
LOCK = (REPO / "requirements.lock").read_text(encoding="utf-8")
# Marker values of the image's interpreter (python:3.11-slim on Linux).
IMAGE_PYTHON = {
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "extra": "",
}


def _index(text: str) -> int:
    position = DOCKERFILE.find(text)
    assert position >= 0, f"{text!r} is not in the Dockerfile"
    return position


def test_dependencies_are_installed_from_the_lock_before_the_source_is_copied() -> None:
    # A source change must not invalidate the layer that installs the dependencies.
    copies = re.findall(r"^COPY (.+)$", DOCKERFILE, flags=re.MULTILINE)
    assert copies[0] == "requirements.lock ./"
    assert (
        _index("COPY requirements.lock ./")
        < _index("RUN pip install --require-hashes --no-deps -r requirements.lock\n")
        < _index("COPY pyproject.toml ")
        < _index("COPY bot ")
    )
    assert _index("COPY cogs ") < _index("pip install --no-deps --no-build-isolation .")
    # No other install: nothing enters the image without a pinned version and a hash.
    installs = [i.strip(" \\") for i in re.findall(r"pip install[^\n&]*", DOCKERFILE)]
    assert installs == [
        "pip install --require-hashes --no-deps -r requirements.lock",
        "pip install --no-deps --no-build-isolation .",
    ]
    assert _index("pip install --no-deps --no-build-isolation .") < _index("&& pip check")


def test_the_lock_pins_every_package_with_hashes() -> None:
    locked = _locked()
    assert len(locked) >= 20
    for name, (version, hashes) in locked.items():
        assert re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), name
        assert hashes, f"{name} has no hash"


def test_the_lock_covers_the_runtime_and_build_dependencies() -> None:
    with (REPO / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)
    locked = _locked()
    needed = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    for line in needed:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{line} is not in requirements.lock"
        version = locked[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements.lock has {name}=={version}, outside pyproject.toml's {line}"
        )
    # The developer and test tools stay out of the image.
    for tool in ("mypy", "ruff", "pytest", "simcord"):
        assert tool not in locked


def test_the_lock_holds_what_its_packages_require() -> None:
    """Each locked package installed here at the locked version (the metadata is then the
    same) has its requirements for the image's Python in the lock too; the image's pip check
    checks the whole set at build time."""
    locked = _locked()
    checked = 0
    for name, (version, _) in locked.items():
        try:
            installed = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if installed.version != version:
            continue
        checked += 1
        for line in installed.requires or []:
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate(IMAGE_PYTHON):
                continue
            assert canonicalize_name(requirement.name) in locked, f"{name} needs {line}"
    assert checked > 0


def test_the_lock_is_made_for_the_images_python() -> None:
    header = LOCK.split("\n", 2)[1]
    assert "uv pip compile pyproject.toml - --generate-hashes --python-version 3.11 " in header
    assert "FROM python:3.11-slim\n" in DOCKERFILE
    ignored = [
        line
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith(("#", "!"))
    ]
    assert not [pattern for pattern in ignored if fnmatch.fnmatch("requirements.lock", pattern)]


def _locked() -> dict[str, tuple[str, list[str]]]:
    """requirements.lock as {name: (version, sha256 hashes)}; every entry must be pinned."""
    found: dict[str, tuple[str, list[str]]] = {}
    for line in LOCK.replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        entry = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})*)", line)
        assert entry is not None, f"not a pinned requirement with hashes: {line[:80]}"
        name = canonicalize_name(entry.group(1))
        assert name not in found, f"{name} is locked twice"
        found[name] = (entry.group(2), re.findall(r"sha256:([0-9a-f]{64})", entry.group(3)))
    return found


def test_signals_health_and_user() -> None:
    assert 'ENTRYPOINT ["/usr/bin/tini", "--"]' in DOCKERFILE
    assert "tini" in DOCKERFILE.split("COPY pyproject.toml")[0]  # installed from Debian
    assert re.search(r'HEALTHCHECK .*\n\s+CMD \["python", "-m", "bot.health"\]', DOCKERFILE)
    assert "USER kachuful" in DOCKERFILE


def test_compose_restarts_and_keeps_the_data() -> None:
    assert "restart: unless-stopped" in COMPOSE
    assert "- kachuful-data:/data" in COMPOSE
    assert re.search(r"^volumes:\n  kachuful-data:", COMPOSE, flags=re.MULTILINE)


def test_the_postgresql_deployment_splits_every_shard_between_two_processes() -> None:
    """compose.postgres.yaml (docs/scaling.md): one PostgreSQL with a health check and a
    volume, and bot processes that wait for it, restart, and hold every shard exactly once."""
    import yaml

    compose = yaml.safe_load((REPO / "compose.postgres.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    database = services["postgres"]
    assert "pg_isready" in database["healthcheck"]["test"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in database["volumes"])
    assert "ports" not in database  # reached on the compose network only
    bots = {name: s for name, s in services.items() if name != "postgres"}
    assert len(bots) == 2
    held: list[int] = []
    counts = set()
    for bot in bots.values():
        env = bot["environment"]
        assert env["KACHUFUL_DATABASE_URL"].startswith("postgresql://")
        assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert bot["restart"] == "unless-stopped"
        counts.add(int(env["KACHUFUL_SHARD_COUNT"]))
        held += [int(shard) for shard in env["KACHUFUL_SHARD_IDS"].split(",")]
    [count] = counts
    assert sorted(held) == list(range(count))
