"""`selfish replay` and `selfish export`: a finished game watched or written to a file.

    selfish replay FILE [--turn N] [--seat N]
    selfish replay GAME --server HOST[:PORT] [--turn N] [--seat N] [--name NAME]
    selfish export GAME --server HOST[:PORT] [-o FILE] [--name NAME]

GAME is the game's number (the game-over screen and the Replays list show it). A file is read
and re-played offline: no server is needed. Over a server, the player's stored identity for it
is used (the same as `selfish connect`'s), so a private game is fetched for its own players.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from selfish_tui.arguments import DEFAULT_PORT, default_name, game_number
from selfish_tui.i18n import _

if TYPE_CHECKING:
    from protocol.server_messages import ReplayMessage


class _Stop(Exception):
    """The command stops here with exit status ``code`` (the reason already said)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _say(message: str) -> None:
    print(f"selfish: {message}", file=sys.stderr)


def _fetch(args: argparse.Namespace, game: int) -> tuple[ReplayMessage, str, str | None]:
    """The server's ``replay`` for ``game``, its address, and our player id there; raises
    :class:`_Stop` once the reason is said."""
    from selfish_tui.client import parse_address
    from selfish_tui.fetch import FetchError, fetch_replay
    from selfish_tui.paths import identity_key, load_token, save_token

    try:
        host, port = parse_address(args.server, DEFAULT_PORT)
    except ValueError as exc:
        _say(str(exc))
        raise _Stop(2) from None
    address = host if host.startswith("/") else f"{host}:{port}"
    name = args.name or default_name()
    key = identity_key(address, name)
    identity = Path(args.identity) if args.identity else None
    token = load_token(key, identity)
    try:
        fetched = asyncio.run(fetch_replay(host, port, name, token, game))
    except FetchError as exc:
        _say(str(exc))
        raise _Stop(1) from None
    if fetched.token is not None and fetched.token != token:
        save_token(key, fetched.token, identity)
    return fetched.message, address, fetched.player


def replay_command(args: argparse.Namespace) -> int:
    """`selfish replay`: the viewer over a file or a server's game."""
    from selfish_tui.front_door import from_environment
    from selfish_tui.replay import BadRecord, from_reply, open_replay, read_file
    from selfish_tui.replay_app import ReplayApp
    from selfish_tui.replay_desk import export_here

    own: int | None = None
    try:
        if args.server is None:
            path = Path(args.target)
            try:
                record = read_file(path.read_bytes())
            except OSError as exc:
                _say(
                    _("cannot read {path}: {error}").format(
                        path=path, error=(exc.strerror or str(exc)).lower()
                    )
                )
                return 1
            door = "local"
        else:
            try:
                game = game_number(args.target)
            except argparse.ArgumentTypeError as exc:
                _say(str(exc))
                return 2
            try:
                message, address, player = _fetch(args, game)
            except _Stop as stop:
                return stop.code
            record = from_reply(message, address)
            own = next(
                (i for i, s in enumerate(record.seats) if player and s.player == player), None
            )
            door = from_environment(args.server).kind
        replay = open_replay(record)
    except BadRecord as exc:
        _say(str(exc))
        return 1
    seat = args.seat - 1 if args.seat is not None else own
    if seat is not None and not 0 <= seat < replay.seats:
        _say(_("the game has seats 1 to {seats}").format(seats=replay.seats))
        return 2
    title = _("Game {game}").format(game=record.game) if record.game is not None else ""
    ReplayApp(
        replay,
        seat=seat,
        turn=args.turn,
        on_export=export_here if door in ("local", "tcp") else None,
        title=title,
    ).run()
    return 0


def export_command(args: argparse.Namespace) -> int:
    """`selfish export`: a server's game written as an export file (checked first)."""
    from protocol import replay_file
    from selfish_tui.replay import BadRecord, from_reply, open_replay

    try:
        message, address, _player = _fetch(args, args.game)
    except _Stop as stop:
        return stop.code
    try:
        record = from_reply(message, address)
        open_replay(record)  # a record that does not check is not worth keeping
    except BadRecord as exc:
        _say(str(exc))
        return 1
    text = replay_file.write(record)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(args.output or f"selfish-game-{args.game}.json")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _say(
            _("cannot write {path}: {error}").format(
                path=path, error=(exc.strerror or str(exc)).lower()
            )
        )
        return 1
    print(_("Saved game {game} to {path}").format(game=args.game, path=path))
    return 0
