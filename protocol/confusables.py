"""Names that look alike: the confusables skeleton of Unicode TS #39 (section 4).

Two strings whose skeletons are equal can be mistaken for one another ("Bot 1" with a
Cyrillic o, U+043E; "Ann" with a Cyrillic A, U+0410). The mapping comes from Unicode's
``confusables.txt`` as the ``confusable-homoglyphs`` package ships it: each line of that file
joins a character (its source) to its prototype, and the package keeps the lines as pairs both
ways. The pairs of one prototype form a star, so the prototype is found again: the one member
longer than one character, else the member with the most partners (of a pair, the lower code
point: either serves to compare). Nothing here is for display: a skeleton is only compared.
"""

from __future__ import annotations

import unicodedata
from functools import cache

# The package writes a right-to-left character between two LEFT-TO-RIGHT MARKs (as the comment
# of confusables.txt shows it); the mark is not part of the character.
_MARK = "\u200e"


@cache
def _prototypes() -> dict[str, str]:
    """Character -> the prototype it is confusable with (only characters that have one)."""
    # The data file alone: the package's confusables module would keep all of it, every
    # character's name included, once imported.
    from confusable_homoglyphs.utils import load  # type: ignore[import-untyped]

    partners: dict[str, set[str]] = {}
    for key, entries in load("confusables.json").items():
        source = key.replace(_MARK, "")
        for entry in entries:
            other = str(entry["c"]).replace(_MARK, "")
            if source and other and source != other:
                partners.setdefault(source, set()).add(other)
                partners.setdefault(other, set()).add(source)
    mapping: dict[str, str] = {}
    seen: set[str] = set()
    for start in partners:
        if start in seen:
            continue
        members, todo = {start}, [start]
        while todo:  # the star of one prototype
            for other in partners[todo.pop()]:
                if other not in members:
                    members.add(other)
                    todo.append(other)
        seen |= members
        prototype = min(members, key=lambda m: (-len(m), -len(partners[m]), m))
        for member in members:
            if len(member) == 1 and member != prototype:
                mapping[member] = prototype
    # A prototype's own characters are prototypes already (the file is idempotent); map them
    # once more in case a pair of two chose the other member.
    return {c: "".join(mapping.get(p, p) for p in proto) for c, proto in mapping.items()}


def skeleton(text: str) -> str:
    """The TS #39 skeleton of ``text``: NFD, each character by its prototype, NFD again."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def looks_like(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` can be taken for each other: the same skeleton, as they are or
    in any case ("I" and "l" share a skeleton only before case folding, "ann" and "Ann" only
    after it)."""
    return skeleton(a) == skeleton(b) or skeleton(a.casefold()) == skeleton(b.casefold())
