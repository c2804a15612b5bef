"""The import graph of server/, protocol/ and selfish_tui/: no circle, and the client and the
server apart.

Every import statement of every module counts, wherever it stands: at the top, under
``TYPE_CHECKING``, inside a function. A circle makes a module's meaning depend on the order its
neighbours were loaded in and hides which one is the lower layer; ``server/__init__.py`` and each
package's docstring say which way the imports go.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "selfish_tui")
#: The one client module that may import the server: the embedded server of ``selfish play``.
EMBEDDED = "selfish_tui.local"

Graph = Mapping[str, set[str]]


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name -> its file, for every module of ``packages`` under ``root``."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported(module: str, path: Path, known: Known) -> set[str]:
    """The modules of ``known`` that ``module`` (its source at ``path``) imports anywhere.

    ``import a.b.c`` and ``from a.b import c`` count as importing the deepest known module they
    name (``a.b.c`` when ``c`` is a module, else ``a.b``); relative imports are resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(known.deepest(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                found.add(known.deepest(f"{source}.{alias.name}"))
    found.discard("")
    found.discard(module)
    return found


class Known:
    """The set of known modules, and the deepest of them that a dotted name lies in."""

    def __init__(self, modules: Iterable[str]) -> None:
        self.modules = set(modules)

    def deepest(self, name: str) -> str:
        """``name`` or its nearest known parent package; "" for a module outside them all."""
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports."""
    files = module_files(root, packages)
    known = Known(files)
    return {module: imported(module, path, known) for module, path in files.items()}


def find_cycle(graph: Graph) -> list[str] | None:
    """One circle of ``graph`` as its modules in import order, the first repeated at the end
    (``["a", "b", "a"]``); None when there is none. Depth-first, without recursion."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        stack = [iter(sorted(graph.get(start, ())))]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
            elif child in on_path:
                return [*path[path.index(child) :], child]
            elif child not in done:
                path.append(child)
                on_path.add(child)
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


def in_package(module: str, package: str) -> bool:
    """Whether ``module`` is ``package`` or lies in it."""
    return module == package or module.startswith(package + ".")


def within(graph: Graph, *packages: str) -> dict[str, set[str]]:
    """The part of ``graph`` among the modules of ``packages``."""
    inside = {m for m in graph if any(in_package(m, p) for p in packages)}
    return {m: graph[m] & inside for m in inside}


GRAPH = import_graph()


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Top-level, TYPE_CHECKING, function-level, relative and ``from pkg import module``."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import a\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.b\n"
    )
    (package / "b.py").write_text("def f():\n    from pkg.sub import c\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import thing\nimport os\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.sub": set(),
        "pkg.sub.c": {"pkg.a"},
    }
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]


def test_a_made_up_cycle_is_reported_and_a_tree_is_not() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}) is None


def test_the_graph_holds_the_three_packages() -> None:
    assert {"server.rooms.room", "protocol.client", "selfish_tui.app"} <= set(GRAPH)
    assert "server.rooms.outgoing" in GRAPH["server.rooms.room"]


def test_no_import_circle_in_the_server_and_protocol() -> None:
    cycle = find_cycle(within(GRAPH, "server", "protocol"))
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


@pytest.mark.xfail(
    strict=True,
    reason="selfish_tui.app imports its screens and the screens import selfish_tui.app "
    "(the connection controller is taking SelfishApp's modes out on another branch)",
)
def test_no_import_circle_in_the_client() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_client_imports_the_server_only_through_the_embedded_server() -> None:
    offenders = {
        module: sorted(m for m in targets if in_package(m, "server"))
        for module, targets in GRAPH.items()
        if in_package(module, "selfish_tui") and module != EMBEDDED
    }
    assert {m: t for m, t in offenders.items() if t} == {}
    assert any(in_package(m, "server") for m in GRAPH[EMBEDDED])


def test_the_server_never_imports_the_client() -> None:
    offenders = {
        module: sorted(m for m in targets if in_package(m, "selfish_tui"))
        for module, targets in GRAPH.items()
        if in_package(module, "server")
    }
    assert {m: t for m, t in offenders.items() if t} == {}
