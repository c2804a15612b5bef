"""``selfish-server admin``: the operator's tools on the database.

``selfish-server admin [--db PATH] revoke PLAYER`` makes PLAYER's token unusable: their next
hello with it gets ``bad_token`` (a running server checks the database on every resume, so it
need not be stopped). The identity and its games stay; the client starts over with a new one.
``selfish-server admin [--db PATH] players`` lists the identities (id, name, last seen).
"""

from __future__ import annotations

import argparse
import sys
import time

from server.config import default_db_path
from server.store.store import Store


def build_parser() -> argparse.ArgumentParser:
    """The ``selfish-server admin`` argument parser."""
    p = argparse.ArgumentParser(prog="selfish-server admin", description=__doc__.split("\n")[0])
    p.add_argument("--db", default=None, help=f"SQLite file (default {default_db_path()})")
    sub = p.add_subparsers(dest="command", required=True)
    revoke = sub.add_parser("revoke", help="make a player's token unusable")
    revoke.add_argument("player", help="the player id (welcome.player, e.g. p1a2b3c4d)")
    sub.add_parser("players", help="list identities: id, name, last seen")
    return p


def main(argv: list[str]) -> int:
    """Run one admin command; 0 on success, 1 if the player is unknown."""
    args = build_parser().parse_args(argv)
    store = Store(args.db or default_db_path())
    try:
        if args.command == "revoke":
            if not store.revoke(args.player):
                print(f"no player {args.player}", file=sys.stderr)
                return 1
            print(f"revoked the token of {args.player}")
            return 0
        for pid, name, seen in store.execute(
            "SELECT id, name, coalesce(seen, created) FROM players ORDER BY 3 DESC"
        ):
            print(f"{pid}\t{name}\t{time.strftime('%Y-%m-%d %H:%M', time.gmtime(seen))}")
        return 0
    finally:
        store.close()
