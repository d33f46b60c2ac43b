"""The shape of the code (docs/architecture.md): imports run one way, so there is no import
circle in ``bot/``, ``cogs/`` or ``kachuful_core/``; no engine source file is too long to read.

Every import counts, wherever it stands (inside a function or under ``TYPE_CHECKING`` too):
a circle hidden in a function is still a circle for a reader. And an import counts the way
Python runs it: importing ``a.b.c`` first runs ``a/__init__.py`` and ``a/b/__init__.py``, so
those packages are imported too (but for a package the importer is itself inside, which
Python has already begun to run)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs", "kachuful_core")
CORE_MAX_LINES = 1500
# The store, one module per concern (issue 44): none grows into the room the whole once was.
STORE_MAX_LINES = 500


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path, known: set[str]) -> set[str]:
    """The project's modules a file imports (``from package import module`` names the module),
    with every package whose ``__init__`` the import runs on the way."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from package import module`` imports the module; ``from module import name``
            # the module.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
            found |= packages_run(target, name, known)
    return found


def packages_run(target: str, importer: str, known: set[str]) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs: each one above it, but those
    the importer is inside (their ``__init__`` is already running or done)."""
    parts = target.split(".")
    above = {".".join(parts[:end]) for end in range(1, len(parts))}
    return {
        package
        for package in above
        if package in known and package != importer and not importer.startswith(package + ".")
    }


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    files = [p for package in packages for p in sorted((root / package).rglob("*.py"))]
    known = {module_name(p, root) for p in files}
    return {module_name(p, root): imports_of(p, root, known) for p in files}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_the_engine_or_the_bot() -> None:
    assert circles(import_graph(ROOT, PACKAGES)) == []


def test_the_circle_check_finds_a_circle_through_a_function_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from .c import g\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n"
    )
    (package / "d.py").write_text("from pkg import a\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.d"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_circle_check_counts_the_packages_an_import_runs(tmp_path: Path) -> None:
    """The circle of issue 44: a module importing ``pkg.store.postgres`` runs
    ``pkg/store/__init__.py``, which imported a module that imports the first one back (under
    TYPE_CHECKING): a circle no import names in full."""
    package = tmp_path / "pkg"
    (package / "store").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("def f():\n    from pkg.store.postgres import url\n")
    (package / "shards.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.config import S\n"
    )
    (package / "store" / "__init__.py").write_text("from pkg.shards import Shards\n")
    (package / "store" / "postgres.py").write_text("from . import values\n")
    (package / "store" / "values.py").write_text("")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.config"] == {"pkg.store", "pkg.store.postgres"}
    # Inside the package, its own __init__ is not imported again.
    assert graph["pkg.store.postgres"] == {"pkg.store.values"}
    assert circles(graph) == [["pkg.config", "pkg.shards", "pkg.store"]]
    (package / "store" / "__init__.py").write_text('"""Imports nothing."""\n')
    assert circles(import_graph(tmp_path, ("pkg",))) == []


def test_importing_a_module_of_the_store_runs_no_other() -> None:
    """``bot/store/__init__.py`` imports nothing: a caller of ``bot.store.values`` (the plain
    values passed to and from the store) loads neither the store nor SQLAlchemy."""
    code = (
        "import sys, bot.store.values\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bot', 'sqlalchemy'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == str(["bot", "bot.store", "bot.store.values"])


def test_no_engine_source_file_is_too_long_to_read() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "kachuful_core").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > CORE_MAX_LINES
    }
    assert long == {}


def test_no_store_source_file_is_over_500_lines() -> None:
    files = sorted((ROOT / "bot" / "store").rglob("*.py"))
    assert len(files) > 20
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > STORE_MAX_LINES
    }
    assert long == {}


# Where no game rule may be named: a new rule is declared in kachuful_core/rules.py and once in
# the option registry (bot/registry.py); everything else follows from the declaration.
NO_RULE_NAMES = ("cogs", "bot/store", "bot/model.py", "bot/options.py")
# Not a rule: the column of deal_totals holding a deal's trump suit (since revision 0003), named
# where the table is declared and made.
NOT_RULES = {
    ("bot/store/schema.py", "trump"),
    ("bot/store/migrations/versions/0003_results.py", "trump"),
}


def rule_names() -> set[str]:
    """Every registry option that is a game rule, or is kept as one (the length)."""
    from bot.registry import OPTIONS

    rules = {name for name, option in OPTIONS.items() if option.rule}
    return rules | {name for name, option in OPTIONS.items() if option.key in rules}


def names_in(path: Path, names: set[str], root: Path = ROOT) -> list[str]:
    """Where a file names one of ``names``: an identifier (a variable, attribute, parameter,
    keyword or function) or a string that is exactly the name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        named = {
            ast.Name: lambda n: n.id,
            ast.Attribute: lambda n: n.attr,
            ast.arg: lambda n: n.arg,
            ast.keyword: lambda n: n.arg,
            ast.FunctionDef: lambda n: n.name,
            ast.AsyncFunctionDef: lambda n: n.name,
            ast.Constant: lambda n: n.value if isinstance(n.value, str) else None,
        }.get(type(node))
        name = named(node) if named is not None else None
        if name in names:
            found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', '?')} {name}")
    return found


def test_no_game_rule_is_named_outside_the_engine_and_the_registry() -> None:
    names = rule_names()
    assert {"forehead", "hook", "scoring", "blind_bids", "max_hand", "length"} <= names
    files = [
        p
        for place in NO_RULE_NAMES
        for p in ([ROOT / place] if place.endswith(".py") else sorted((ROOT / place).rglob("*.py")))
    ]
    assert len(files) > 10
    hits = [hit for path in files for hit in names_in(path, names)]
    assert [hit for hit in hits if (hit.split(":")[0], hit.split(" ")[1]) not in NOT_RULES] == []


def test_the_rule_name_check_sees_names(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(hook=None, **kw):\n"
        "    g(forehead=1)\n"
        "    return options.scoring, kw['blind_bids'], 'the hook rule'\n"
    )
    hits = [hit.split(" ")[1] for hit in names_in(sample, rule_names(), root=tmp_path)]
    assert sorted(hits) == ["blind_bids", "forehead", "hook", "scoring"]
