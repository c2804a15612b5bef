"""Identity tokens: a new player's is made here, and the database keeps only its hash.

So the database alone does not let anyone speak as a player: a token is known to its client,
the server compares hashes.
"""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """A fresh token for a new identity (144 random bits, URL-safe text)."""
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    """What the database keeps of a token: its SHA-256, in hex (64 characters)."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_hash(stored: str) -> bool:
    """Whether a stored token is a hash (a revoked one, or one of an old database, is not)."""
    return len(stored) == 64
