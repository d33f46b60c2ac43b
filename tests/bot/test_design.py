"""Rules of docs/architecture.md §1 that a reader could break without noticing: checked on the
source."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
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


def _imports(path: Path) -> list[str]:
    """The modules a source file imports (absolute names; relative ones as written)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return names


def _reaches_store(name: str) -> bool:
    return name == "bot.store" or name.startswith("bot.store.")


def test_render_reads_the_table_model_never_the_store() -> None:
    """Rendering reads bot/model.py; the store converts rows to and from it. A renderer that
    imported the store would tie what players see to how rows are kept."""
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted(ROOT.glob("bot/render/*.py"))
        for name in _imports(path)
        if _reaches_store(name)
    ]
    assert found == [], "bot/render imports the store:\n" + "\n".join(found)


def test_the_table_model_is_plain_data() -> None:
    """bot/model.py (and the statistics model) import neither the store nor Discord nor a
    renderer: everything else reads them."""
    for name in ("bot/model.py", "bot/result_pages.py"):
        found = [
            imported
            for imported in _imports(ROOT / name)
            if _reaches_store(imported)
            or imported.split(".")[0] == "discord"
            or imported.startswith(("bot.render", "bot.table"))
        ]
        assert found == [], f"{name} imports {found}"


def test_importing_every_renderer_loads_no_store() -> None:
    """The same rule, transitively: a fresh interpreter that imports every render module has
    not loaded bot.store through some other module."""
    modules = [f"bot.render.{p.stem}" for p in sorted(ROOT.glob("bot/render/*.py"))]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name.removesuffix('.__init__'))\n"
        "print(sorted(m for m in sys.modules if m == 'bot.store' or m.startswith('bot.store.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_import_check_sees_imports() -> None:
    assert "bot.store.failures.StoreError" in _imports(ROOT / "bot" / "table" / "not_saved.py")


# What players read goes through the catalogue (docs/languages.md). Left out: what only the
# operator reads (start-up and health messages, the settings' errors, the renderer's own limit
# checks, a log's reason) and the export's note on checking the deals, which is a technical
# field of a JSON file like its keys.
OPERATOR_ONLY = {
    "bot/__main__.py",
    "bot/health.py",
    "bot/config.py",
    "bot/command_sync.py",
    "bot/render/specs.py",
}
TECHNICAL = {("cogs/history.py", "sha256(bytes.fromhex(seed)) is each deal's commitment")}
TRANSLATING = {"gettext", "ngettext", "pgettext", "npgettext", "N_", "Nn_", "locale_str", "_"}


def _untranslated(path: Path) -> list[tuple[int, str]]:
    """String constants with two words or more that no translating call (or log line, raise or
    docstring) holds."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    held: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                held.add(id(first.value))
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            is_log = isinstance(func, ast.Attribute) and getattr(func.value, "id", "") in (
                "log",
                "logging",
            )
            if name in TRANSLATING or is_log:
                held.update(id(sub) for sub in ast.walk(node))
        if isinstance(node, ast.Raise):
            held.update(id(sub) for sub in ast.walk(node))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in held
        and re.search(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}", node.value)
    ]


def _player_modules() -> list[Path]:
    paths = [*ROOT.glob("bot/**/*.py"), *ROOT.glob("cogs/*.py")]
    return sorted(
        p
        for p in paths
        if "store" not in p.relative_to(ROOT).parts
        and str(p.relative_to(ROOT)) not in OPERATOR_ONLY
    )


def test_every_word_for_players_goes_through_the_catalogue() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} {text!r}"
        for path in _player_modules()
        for line, text in _untranslated(path)
        if not any(
            str(path.relative_to(ROOT)) == where and text.startswith(start)
            for where, start in TECHNICAL
        )
    ]
    assert found == [], "English only, not in the catalogue:\n" + "\n".join(found)


def test_the_catalogue_check_sees_english_only_words(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(tr, n):\n"
        '    ok = tr.gettext("Your turn to bid.")\n'
        '    return ok + f"{n} minutes left"\n',
        encoding="utf-8",
    )
    assert [text for _, text in _untranslated(sample)] == [" minutes left"]


# ---- whole games on both stores ----------------------------------------------------------------

# The module's marks: ``both_backends`` alone, or with a module-wide ``one_store("why")``
# (the store takes no part in what the module checks; docs/development.md).
BOTH = re.compile(
    r"^pytestmark = (pytest\.mark\.both_backends$|\[\s*pytest\.mark\.both_backends,\s*"
    r"pytest\.mark\.one_store\(\s*\"[^\"]+\"\s*\),?\s*\])",
    re.MULTILINE,
)


def modules_playing_whole_games_on_one_store(folder: Path) -> list[str]:
    """The test modules that play a game to its end (``play_to_end``) without being marked
    ``both_backends`` (each such test then runs on SQLite and on PostgreSQL)."""
    return [
        str(path.relative_to(folder))
        for path in sorted(folder.rglob("test_*.py"))
        if _plays_to_end(text := path.read_text(encoding="utf-8")) and not BOTH.search(text)
    ]


def _plays_to_end(source: str) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "play_to_end"
        for node in ast.walk(ast.parse(source))
    )


def test_every_whole_game_test_runs_on_both_stores() -> None:
    assert modules_playing_whole_games_on_one_store(ROOT / "tests" / "bot") == []


def test_the_whole_game_check_sees_an_unmarked_module(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(
        "import pytest\n\npytestmark = pytest.mark.both_backends\n\n"
        "async def test_a(table):\n    await table.play_to_end()\n"
    )
    (tmp_path / "test_unmarked.py").write_text(
        "async def test_b(table):\n    await table.play_to_end()\n"
    )
    (tmp_path / "test_one_store.py").write_text(
        "import pytest\n\npytestmark = [\n    pytest.mark.both_backends,\n"
        '    pytest.mark.one_store("the store takes no part"),\n]\n\n'
        "async def test_c(table):\n    await table.play_to_end()\n"
    )
    (tmp_path / "test_no_reason.py").write_text(
        "import pytest\n\npytestmark = [pytest.mark.both_backends, pytest.mark.one_store()]\n\n"
        "async def test_d(table):\n    await table.play_to_end()\n"
    )
    assert modules_playing_whole_games_on_one_store(tmp_path) == [
        "test_no_reason.py",
        "test_unmarked.py",
    ]


# ---- one responder -------------------------------------------------------------------------

ANSWERING = {"response", "followup", "edit_original_response", "original_response"}


def answers_interactions(path: Path) -> list[str]:
    """Where a module reaches an interaction's answer (``interaction.response``, its
    follow-ups, its original response)."""
    return [
        f"{path.name}:{node.lineno} {node.attr}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in ANSWERING
    ]


def test_only_the_responder_answers_a_tables_interactions() -> None:
    table = sorted((ROOT / "bot" / "table").glob("*.py"))
    found = [
        hit for path in table if path.name != "responder.py" for hit in answers_interactions(path)
    ]
    assert found == []
    assert answers_interactions(ROOT / "bot" / "table" / "responder.py")  # the check sees them
