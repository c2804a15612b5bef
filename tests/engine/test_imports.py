"""server/engine/ is a tree of modules: no import cycle (type-checking imports included), and
every module imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "server" / "engine"
MODULES = sorted(path.stem for path in ENGINE.glob("*.py") if path.stem != "__init__")


def engine_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports anywhere in its text (functions and
    ``if TYPE_CHECKING:`` blocks included)."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:  # from . import x, y
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("server.engine."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("server.engine."):
                    found.add(alias.name.split(".")[2])
    return found & set(MODULES)


def test_engine_import_graph_has_no_cycle() -> None:
    graph = {module: engine_imports(module) for module in MODULES}
    assert graph["rules"] >= {"space", "shipwrecked", "edition"}  # the parser sees imports
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = [*path[path.index(module) :], module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*path, module])
        done.add(module)

    for module in MODULES:
        visit(module, [])


def test_edition_modules_do_not_import_the_common_rules() -> None:
    for module in ("space", "shipwrecked", "action_cards", "edition"):
        assert "rules" not in engine_imports(module), module


@pytest.mark.parametrize("module", MODULES)
def test_each_engine_module_imports_alone(module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", f"import server.engine.{module}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
