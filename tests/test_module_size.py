"""Small modules: none of server/, protocol/ or selfish_tui/ over 500 lines, none of the bots'
(server/bots/) over 400.

A module past its limit is split by what it owns, into modules whose names say so (as
``server.store.waiting_rooms`` came out of ``server.store.store``). Lines are counted as
``wc -l`` counts them; ``find server protocol selfish_tui -name '*.py' | xargs wc -l | sort -n``
lists the largest.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "selfish_tui")
LIMIT = 500
#: Packages held to a lower limit than the rest, by their path from the root.
LOWER = {"server/bots": 400}


def limit_of(relative: Path) -> int:
    """The most lines the module at ``relative`` (a path from the root) may have."""
    for package, limit in LOWER.items():
        if relative.is_relative_to(package):
            return limit
    return LIMIT


def lines(path: Path) -> int:
    """The lines of ``path``, as ``wc -l`` counts them (its newlines)."""
    return path.read_bytes().count(b"\n")


def oversized(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, tuple[int, int]]:
    """Each module of ``packages`` over its limit: its path from ``root`` -> (lines, limit)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root)
            count, limit = lines(path), limit_of(relative)
            if count > limit:
                found[relative.as_posix()] = (count, limit)
    return found


def test_a_module_over_its_limit_is_named_with_its_lines(tmp_path: Path) -> None:
    (tmp_path / "server" / "bots").mkdir(parents=True)
    (tmp_path / "server" / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "server" / "full.py").write_text("x = 1\n" * 500)
    (tmp_path / "server" / "bots" / "long.py").write_text("x = 1\n" * 401)
    (tmp_path / "server" / "bots" / "full.py").write_text("x = 1\n" * 400)
    assert oversized(tmp_path, ["server"]) == {
        "server/bots/long.py": (401, 400),
        "server/long.py": (501, 500),
    }


def test_no_module_is_over_its_limit() -> None:
    found = oversized()
    assert found == {}, "modules over their limit (lines > limit): " + ", ".join(
        f"{path} ({count} > {limit})" for path, (count, limit) in sorted(found.items())
    )


def test_the_count_sees_the_packages() -> None:
    counted = {path.relative_to(ROOT).as_posix() for path in (ROOT / "server").rglob("*.py")}
    assert {"server/rooms/room.py", "server/bots/expert.py"} <= counted
    assert lines(ROOT / "server" / "rooms" / "room.py") > 100
