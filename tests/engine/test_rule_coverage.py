"""Every rule in docs/rules.md must be checked by at least one test named after it.

A rule ID such as ``C13`` is covered when some test function anywhere under ``tests/`` is named
``test_C13_<something>``. Test files are parsed with :mod:`ast`, never imported, so a broken or
slow module cannot hide or fake coverage.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
TESTS_DIR = REPO_ROOT / "tests"
RULES_DOC = REPO_ROOT / "docs" / "rules.md"
SPEC = REPO_ROOT.parent / "shared" / "RULES.md"

# docs/rules.md labels each entry as **C13** ...; RULES.md as **C13 Title.** at line start.
DOC_ID = re.compile(r"\*\*([CSWV]\d+)\*\*")
SPEC_ID = re.compile(r"^\*\*([CSWV]\d+)\b", re.MULTILINE)
SECTIONS = (
    "## Common rules",
    "## Space Edition",
    "## Shipwrecked Edition",
    "## Variants",
    "## House rules",
)


def _rule_key(rule_id: str) -> tuple[int, int]:
    return ("CSWV".index(rule_id[0]), int(rule_id[1:]))


def _sorted(ids: set[str]) -> list[str]:
    return sorted(ids, key=_rule_key)


def _doc_text() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


def _doc_ids() -> set[str]:
    return set(DOC_ID.findall(_doc_text()))


def _test_function_names() -> tuple[set[str], list[str]]:
    """Names of all (async) functions defined in .py files under tests/, and unparsable files."""
    names: set[str] = set()
    broken: list[str] = []
    for path in sorted(TESTS_DIR.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError) as exc:
            broken.append(f"{path.relative_to(REPO_ROOT)}: {exc}")
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
    return names, broken


def test_rules_doc_is_well_formed() -> None:
    text = _doc_text()
    for heading in SECTIONS:
        assert re.search(rf"^{re.escape(heading)}\s*$", text, re.MULTILINE), (
            f"docs/rules.md lacks the heading {heading!r}"
        )
    entries = re.findall(r"^\*\*([CSWV]\d+)\*\*", text, re.MULTILINE)
    assert entries, "docs/rules.md contains no rule entries like **C1**"
    duplicates = _sorted({rule for rule in entries if entries.count(rule) > 1})
    assert not duplicates, f"rule entries appearing more than once: {', '.join(duplicates)}"
    assert set(entries) == _doc_ids(), (
        "rule IDs in bold must start their entry's line: "
        + ", ".join(_sorted(_doc_ids() - set(entries)))
    )


def test_rules_doc_ids_match_spec() -> None:
    if not SPEC.is_file():
        pytest.skip(f"{SPEC} not found (../shared beside the clone)")
    spec_ids = set(SPEC_ID.findall(SPEC.read_text(encoding="utf-8")))
    assert spec_ids, f"no rule IDs found in {SPEC}"
    doc_ids = _doc_ids()
    missing = _sorted(spec_ids - doc_ids)
    extra = _sorted(doc_ids - spec_ids)
    assert not missing and not extra, (
        f"docs/rules.md out of step with RULES.md; missing: {', '.join(missing) or '-'}; "
        f"not in RULES.md: {', '.join(extra) or '-'}"
    )


def test_every_rule_has_a_test() -> None:
    names, broken = _test_function_names()
    assert not broken, "test files that do not parse:\n" + "\n".join(broken)
    uncovered = [
        rule
        for rule in _sorted(_doc_ids())
        if not any(name.startswith(f"test_{rule}_") for name in names)
    ]
    assert not uncovered, (
        f"{len(uncovered)} rule(s) in docs/rules.md have no test named test_<ID>_...: "
        + ", ".join(uncovered)
    )
