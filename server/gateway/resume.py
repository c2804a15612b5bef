"""Resume codes: how an SSH player without a key gets their player (and seats) back.

A keyless login is given a code, ``ssh -t host resume CODE`` on screen; the code is a secret
of 16 characters (about 79 bits) drawn from an alphabet without look-alikes. The gateway keeps,
under the code's SHA-256 only, the file in which that player's client keeps its token and the
display name it played under: the code is never stored, and is not the token. Attempts are
rate-limited per address, so codes cannot be tried in bulk.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from server.gateway.admission import Buckets

ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no i, l, o, 0, 1
CODE_LENGTH = 16
GROUP = 4
# Resume attempts per address: a few at once (a typo, then the right code), then one every
# ten seconds. With 31**16 codes, guessing one is out of reach at any rate; the limit keeps the
# attempts from costing the server anything.
ATTEMPTS_BURST = 5
ATTEMPTS_PER_SECOND = 0.1
# A code not used (issued or resumed) for this long is forgotten at the gateway's next start.
KEEP_SECONDS = 30 * 86_400.0


def new_code() -> str:
    """A fresh resume code, in groups of four: ``k7m2-x9qp-4hwd-r3tf``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + GROUP] for i in range(0, CODE_LENGTH, GROUP))


def normalize(text: str) -> str | None:
    """A typed code without dashes or case (``K7M2X9QP...`` works), or None if it cannot be
    one."""
    raw = text.strip().lower().replace("-", "")
    if len(raw) != CODE_LENGTH or any(ch not in ALPHABET for ch in raw):
        return None
    return raw


def looks_like_code(text: str) -> bool:
    """Whether ``text`` has a resume code's form (checked before any look-up)."""
    return normalize(text) is not None


@dataclass(frozen=True)
class Seat:
    """What a resume code names: the client's token file and the name it played under."""

    code: str
    identity: Path
    name: str


class ResumeRefused(Exception):
    """Why a resume code did not give a player back (a sentence for the SSH client)."""


class ResumeBook:
    """The resume codes the gateway has issued, kept as files in ``directory``."""

    def __init__(self, directory: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.directory = directory
        self.attempts = Buckets(ATTEMPTS_PER_SECOND, ATTEMPTS_BURST, clock)

    def _paths(self, raw: str) -> tuple[Path, Path]:
        digest = hashlib.sha256(raw.encode()).hexdigest()[:40]
        return self.directory / f"{digest}.json", self.directory / f"{digest}.name"

    def issue(self, name: str) -> Seat:
        """A new code for a player called ``name``; their client keeps its token in the
        returned file."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        code = new_code()
        identity, name_file = self._paths(str(normalize(code)))
        fd = os.open(name_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(name)
        return Seat(code, identity, name)

    def find(self, address: str, typed: str) -> Seat:
        """The seat code ``typed`` names, for a client at ``address``; ResumeRefused if the
        address has tried too often, or the code is not one this server issued."""
        if not self.attempts.allow(address):
            raise ResumeRefused(
                "too many resume attempts from your address; wait a minute and try again"
            )
        raw = normalize(typed)
        if raw is None:
            raise ResumeRefused("that is not a resume code (16 letters and digits)")
        identity, name_file = self._paths(raw)
        try:
            name = name_file.read_text(encoding="utf-8").strip() or "Player"
        except OSError:
            raise ResumeRefused(
                "this server knows no such resume code; check it, "
                "or log in without one to play as a new player"
            ) from None
        with contextlib.suppress(OSError):
            os.utime(name_file)  # in use: not forgotten
        code = "-".join(raw[i : i + GROUP] for i in range(0, CODE_LENGTH, GROUP))
        return Seat(code, identity, name)

    def prune(self, keep: float = KEEP_SECONDS) -> int:
        """Forget codes unused for ``keep`` seconds; how many were forgotten."""
        cutoff = time.time() - keep
        forgotten = 0
        with contextlib.suppress(OSError):
            for name_file in self.directory.glob("*.name"):
                with contextlib.suppress(OSError):
                    if name_file.stat().st_mtime < cutoff:
                        name_file.unlink()
                        name_file.with_suffix(".json").unlink(missing_ok=True)
                        forgotten += 1
        return forgotten
