"""Rules of docs/architecture.md §1 that a reader could break without noticing: checked on the
source."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The layers between Discord and the engine: they hand over to bot/render for every word.
THIN = [
    *(str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("bot/table/*.py"))),
    "bot/client.py",
    *(str(p.relative_to(ROOT)) for p in ROOT.glob("bot/ui/*.py")),
]


def _player_words(path: Path) -> list[tuple[int, str]]:
    """String constants of more than one word, other than docstrings, log messages and
    exception texts (which the operator reads, not the players)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        is_log = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("log", "logging")
        )
        if is_log or isinstance(node, ast.Raise):
            skip.update(id(sub) for sub in ast.walk(node))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and " " in node.value.strip()
    ]


def test_player_facing_words_live_in_bot_render() -> None:
    found = [
        f"{name}:{line} {text!r}" for name in THIN for line, text in _player_words(ROOT / name)
    ]
    assert found == [], "words for players belong in bot/render:\n" + "\n".join(found)


def test_the_check_sees_words() -> None:
    sample = ROOT / "bot" / "render" / "words.py"
    assert any("out of date" in text for _, text in _player_words(sample))
