"""The engine stays pure: standard library and pydantic only. One exception: the search
player's compiled inner loops (``players/_fast.py``) use numba and NumPy, imported only when a
search player first decides, so importing the engine (players included) still loads nothing
else. (Typed and lint-clean: mypy and ruff, the dev extra's tools, check that in .ci/run.)"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

from .support import REPO

PACKAGE = REPO / "kachuful_core"
ALLOWED = {"pydantic", "pydantic_core", "typing_extensions", "kachuful_core"}
COMPILED = PACKAGE / "players" / "_fast.py"
COMPILED_ALLOWED = {"numba", "numpy", "llvmlite"}


def imported_top_level_modules(path: Path) -> set[str]:
    """Top-level names of every module a file imports, wherever the import statement is."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside the package
                found.add("kachuful_core")
            elif node.module:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value.split(".")[0])
    return found


def test_the_import_walker_sees_every_kind_of_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import a.b, j\n"
        "from c.d import e\n"
        "from . import f\n"
        "if TYPE_CHECKING:\n"
        "    from k import m\n"
        "def g():\n"
        "    import h\n"
        "    return __import__('i.x')\n",
        encoding="utf-8",
    )
    assert imported_top_level_modules(sample) == {"a", "j", "c", "kachuful_core", "k", "h", "i"}
    assert {"pydantic", "kachuful_core"} <= imported_top_level_modules(PACKAGE / "rules.py")


def test_engine_imports_only_the_standard_library_and_pydantic() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) >= 10
    foreign = {}
    for path in files:
        allowed = ALLOWED | COMPILED_ALLOWED if path == COMPILED else ALLOWED
        bad = {
            name
            for name in imported_top_level_modules(path)
            if name not in sys.stdlib_module_names and name not in allowed
        }
        if bad:
            foreign[str(path.relative_to(REPO))] = sorted(bad)
    assert foreign == {}


def test_importing_the_engine_loads_no_other_package() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import kachuful_core, kachuful_core.__main__, kachuful_core.record\n"
        "import importlib.util\n"
        "if importlib.util.find_spec('kachuful_core.players'):\n"
        "    import kachuful_core.players\n"
        "print('\\n'.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    loaded = set(done.stdout.split())
    assert "kachuful_core" in loaded
    # pydantic's own dependencies come with it; _sysconfigdata_* is the interpreter's.
    requires = importlib.metadata.requires("pydantic") or []
    pydantic_deps = {
        re.split(r"[^A-Za-z0-9_.-]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r
    }
    allowed = ALLOWED | {d.replace("-", "_").lower() for d in pydantic_deps}
    foreign = {
        m
        for m in loaded
        if m not in sys.stdlib_module_names
        and m not in allowed
        and not m.startswith("_sysconfigdata")
    }
    assert foreign == set()
