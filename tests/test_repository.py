"""The repository stands on its own: its documents are here, no file points outside the
checkout, and every relative link in its Markdown files leads to a file (and heading) that
exists. No network: links with a scheme (https:, mailto:) are not followed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ["docs/rules.md", "docs/record-format.md", "docs/architecture.md"]
# Spelled in two parts so that this file does not name the folder it looks for.
OUTSIDE = ".." + "/shared"
# Not the project's own files: virtual environments and tool caches.
SKIP_DIRS = {".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}


def _files() -> list[Path]:
    """The checkout's files: tracked and untracked but not ignored, as git lists them; in a
    copy without git, every file but virtual environments and caches."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return sorted(_walk(ROOT))
    return sorted(ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file())


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for path in folder.iterdir():
        if path.is_dir():
            if path.name in SKIP_DIRS or path.name.endswith(".egg-info"):
                continue
            if (path / "pyvenv.cfg").exists():
                continue
            found.extend(_walk(path))
        elif path.is_file():
            found.append(path)
    return found


def _markdown_files() -> list[Path]:
    return [path for path in _files() if path.suffix == ".md"]


# ---- Markdown links ---------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
# [text](target "title") and ![alt](target); the target may be wrapped in <...>.
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    prose = _prose(text)
    return [*_INLINE.findall(prose), *_REFERENCE.findall(prose)]


def anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        base = anchor(heading)
        name, n = base, 0
        while name in found:
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def broken_links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in links(text):
        if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue  # an absolute URL (https:, mailto:): not followed, no network
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif (
            fragment
            and linked.suffix == ".md"
            and fragment not in anchors(linked.read_text(encoding="utf-8"))
        ):
            broken.append(f"{target}: no heading #{fragment} in {linked.name}")
    return broken


# ---- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_projects_documents_are_in_the_repository(document: str) -> None:
    assert (ROOT / document).is_file(), f"{document} is missing"


def test_no_file_points_outside_the_checkout() -> None:
    naming = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files
        if OUTSIDE in text:
            naming.append(str(path.relative_to(ROOT)))
    assert naming == [], f"files naming {OUTSIDE}: {naming}"


def test_every_document_the_code_names_exists() -> None:
    """Docstrings and comments point at docs/<page>.md: each such page must exist."""
    missing = set()
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for name in re.findall(r"\bdocs/[\w./-]+?\.md\b", text):
            if not (ROOT / name).is_file():
                missing.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(missing) == []


def test_every_relative_markdown_link_leads_somewhere() -> None:
    pages = _markdown_files()
    assert ROOT / "README.md" in pages and ROOT / "docs" / "README.md" in pages
    broken = [f"{p.relative_to(ROOT)}: {problem}" for p in pages for problem in broken_links(p)]
    assert broken == [], "broken links:\n" + "\n".join(broken)


def test_the_link_checker_sees_broken_links(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading: with `code`\n\n## Twice\n\n## Twice\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading-with-code) [ok](there.md#twice-1)\n"
        "[gone](missing.md) ![gone](images/none.png) [no heading](there.md#nowhere)\n"
        "[web](https://example.com/missing.md) [self](#title)\n\n"
        "# Title\n\n`[not a link](missing.md)`\n\n```\n[not a link](missing.md)\n```\n"
        "[ref]: gone/too.md\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "images/none.png: no such file",
        "there.md#nowhere: no heading #nowhere in there.md",
        "gone/too.md: no such file",
    ]


def test_the_outside_check_sees_a_file_that_names_it(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"see {OUTSIDE}/RULES", encoding="utf-8")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("")
    (tmp_path / ".venv" / "x.txt").write_text(OUTSIDE)
    assert [p.name for p in _walk(tmp_path)] == ["notes.txt"]
