"""The help screen's rules text: from the source tree, else from an installed copy, else cards."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from selfish_tui.screens import help as help_screen


def test_rules_come_from_the_source_tree_and_keep_only_the_editions_own_section() -> None:
    path = help_screen.rules_path()
    assert path is not None and path.parent.name == "docs"
    space = help_screen.rules_for("space")
    assert "## Common rules" in space and "Space" in space
    assert "## Shipwrecked" not in space


def test_an_installed_copy_reads_the_rules_from_its_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no docs/ beside the package (a wheel), but <prefix>/share/selfish/rules.md (data-files)
    monkeypatch.setattr(help_screen, "__file__", str(tmp_path / "site" / "pkg" / "help.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    assert help_screen.rules_path() is None
    assert "**Tether** (action): Move forward 1, then the chosen opponent moves back 1." in (
        help_screen.rules_for("space")
    )
    share = tmp_path / "venv" / "share" / "selfish"
    share.mkdir(parents=True)
    (share / "rules.md").write_text("# Selfish\n\n## Common rules\n\nC1 text.\n")
    assert help_screen.rules_path() == share / "rules.md"
    assert "C1 text." in help_screen.rules_for("space")


def test_V1_help_shows_the_variants_only_while_one_is_on() -> None:
    plain = help_screen.rules_for("space")
    assert "**V1**" not in plain and "Variants on" not in plain
    with_v1 = help_screen.rules_for("space", variants=["V1"])
    assert with_v1.startswith("**Variants on in this room:** V1.")
    assert "**V1**" in with_v1 and "## House rules" in with_v1
