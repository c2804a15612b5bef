"""Per-user files of the client: where local games live and the identity tokens it keeps.

Tokens are what the server gives back our seats for (PROTOCOL.md §3), so they are kept per
server address and name (:func:`identity_key`): two `--name`s on one login are two players;
the file is private to the user (mode 0600).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def data_dir() -> Path:
    """Per-user data directory: ``$XDG_DATA_HOME/selfish`` (default ~/.local/share/selfish)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "selfish"


def local_db_path() -> Path:
    """Where `selfish play` stores its games (apart from any selfish-server database)."""
    return data_dir() / "local.sqlite3"


def host_db_path() -> Path:
    """Where `selfish host` stores the games of its LAN server."""
    return data_dir() / "host.sqlite3"


def _tutorial_file() -> Path:
    return data_dir() / "tutorial.json"


def first_run() -> bool:
    """Whether `selfish play` runs for the first time: no local game has been stored and the
    tutorial has never been offered (checked before the local server creates its database)."""
    return not _tutorial_file().exists() and not local_db_path().exists()


def remember_tutorial_answer(accepted: bool) -> None:
    """Keep the answer to the first run's offer of the tutorial, so it is asked only once.
    Failing to write only means being asked again."""
    path = _tutorial_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"offered": True, "accepted": accepted}), encoding="utf-8")
    except OSError:
        pass


def identity_key(address: str, name: str) -> str:
    """Where the token of player ``name`` at ``address`` ('local' for `selfish play`) is kept."""
    return f"{name}@{address}"


def _identities_file() -> Path:
    return data_dir() / "identities.json"


def _load(file: Path | None = None) -> dict[str, Any]:
    try:
        data = json.loads((file or _identities_file()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_token(address: str, file: Path | None = None) -> str | None:
    """The token we last got from the server at ``address`` ('local' for `selfish play`),
    from ``file`` if given (`selfish connect --identity FILE`), else the per-user file."""
    entry = _load(file).get(address)
    return str(entry["token"]) if isinstance(entry, dict) and entry.get("token") else None


def save_token(address: str, token: str, file: Path | None = None) -> None:
    """Remember the token for ``address`` (in ``file`` if given). Failing to write is not
    fatal: we just lose resume."""
    data = _load(file)
    data[address] = {"token": token}
    path = file or _identities_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.chmod(tmp, 0o600)
        tmp.replace(path)
    except OSError:
        pass
