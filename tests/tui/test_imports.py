"""The client must not depend on the server package, except through selfish_tui/local.py."""

from __future__ import annotations

import ast
from pathlib import Path

import selfish_tui

PACKAGE = Path(selfish_tui.__file__).parent
ALLOWED = {"local.py"}


def server_imports(path: Path) -> list[str]:
    """Every import of ``server`` (or a submodule) anywhere in a module, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "server"]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] == "server"
        ):
            found.append(node.module)
    return found


def test_only_local_imports_server() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 10
    offenders = {
        str(p.relative_to(PACKAGE)): server_imports(p)
        for p in modules
        if p.name not in ALLOWED or p.parent != PACKAGE
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert server_imports(PACKAGE / "local.py"), "local.py is where the server is imported"


def test_connect_path_does_not_load_server() -> None:
    """Importing the app and the CLI (what `selfish connect` runs) loads no server module."""
    import subprocess
    import sys

    code = (
        "import sys, selfish_tui.cli, selfish_tui.app; "
        "bad = [m for m in sys.modules if m == 'server' or m.startswith('server.')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
