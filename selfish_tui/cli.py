"""The `selfish` console script.

    selfish play [--edition space|shipwrecked] [--bots N] [--seed S] [--name NAME] [--resume]
    selfish connect HOST[:PORT] [--name NAME]
    selfish bot ...        (the server package's headless protocol client)
    selfish simulate ...   (the server package's engine-only self-play)

`play`, `bot` and `simulate` need the server package; they reach it through selfish_tui.local,
imported only inside their dispatch functions, so `selfish connect` runs with ``protocol`` and
``textual`` alone.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from importlib import metadata

from selfish_tui.client import parse_address

DEFAULT_PORT = 7777


def version() -> str:
    """The installed package's version ('unknown' when run from a bare source tree)."""
    try:
        return metadata.version("selfish-tui")
    except metadata.PackageNotFoundError:
        return "unknown"


def default_name() -> str:
    """The player's name when --name is not given: the login name, else 'Player'."""
    try:
        name = os.environ.get("SELFISH_NAME") or getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:24]
    return name or "Player"


def _name(text: str) -> str:
    """argparse type for --name: 1-24 printable characters, not only spaces."""
    if not 1 <= len(text) <= 24 or not text.isprintable() or not text.strip():
        raise argparse.ArgumentTypeError("a name is 1-24 printable characters")
    return text


def _bots(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 4:
        raise argparse.ArgumentTypeError("--bots is 1-4 (tables seat 2-5)")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `selfish play` and `selfish connect`."""
    parser = argparse.ArgumentParser(
        prog="selfish",
        description="Selfish, the card game, in your terminal (Space and Shipwrecked editions).",
        epilog="Also: `selfish bot HOST[:PORT] ...` (headless bot clients) and "
        "`selfish simulate ...` (engine-only self-play); each has its own --help.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    play = sub.add_parser("play", help="a local game against bots (no setup, no network)")
    play.add_argument("--edition", choices=["space", "shipwrecked"], default="space")
    play.add_argument(
        "--bots",
        type=_bots,
        default=3,
        metavar="N",
        help="number of bot opponents, 1-4 (default 3)",
    )
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="game seed, for a game you can play again exactly",
    )
    play.add_argument("--name", type=_name, default=None, help="your name at the table")
    play.add_argument(
        "--resume", action="store_true", help="continue the last unfinished local game"
    )
    play.add_argument("--bell", action="store_true", help="ring the bell when it is your turn")
    connect = sub.add_parser("connect", help="the lobby of a remote selfish-server")
    connect.add_argument(
        "address", metavar="HOST[:PORT]", help=f"server address (default port {DEFAULT_PORT})"
    )
    connect.add_argument("--name", type=_name, default=None, help="your name")
    connect.add_argument("--bell", action="store_true", help="ring the bell when it is your turn")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `selfish` console script."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    # `bot` and `simulate` have their own parsers in the server package: hand them the rest.
    if args_in and args_in[0] == "bot":
        return _run_bot(args_in[1:])
    if args_in and args_in[0] == "simulate":
        return _run_simulate(args_in[1:])
    args = build_parser().parse_args(args_in)
    if args.command == "play":
        return play(args)
    return connect(args)


def _run_bot(argv: list[str]) -> int:
    from selfish_tui import local

    return local.run_bot(argv)


def _run_simulate(argv: list[str]) -> int:
    from selfish_tui import local

    return local.run_simulate(argv)


def play(args: argparse.Namespace) -> int:
    """`selfish play`: an embedded server on loopback, a room with bots, and the table."""
    from selfish_tui import local
    from selfish_tui.app import LocalPlan, SelfishApp
    from selfish_tui.paths import data_dir, identity_key, load_token, save_token

    name = args.name or default_name()
    key = identity_key("local", name)
    try:
        server = local.EmbeddedServer(log_file=data_dir() / "local-server.log")
        port = server.start()
    except RuntimeError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 1
    try:
        plan = LocalPlan(edition=args.edition, bots=args.bots, seed=args.seed, resume=args.resume)
        app = SelfishApp(
            "127.0.0.1",
            port,
            name,
            load_token(key),
            plan=plan,
            bell=args.bell,
            on_token=lambda token: save_token(key, token),
        )
        app.run()
    finally:
        server.stop()
    return 0


def connect(args: argparse.Namespace) -> int:
    """`selfish connect`: the lobby of a remote server."""
    from selfish_tui.app import SelfishApp
    from selfish_tui.paths import identity_key, load_token, save_token

    try:
        host, port = parse_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 2
    name = args.name or default_name()
    key = identity_key(f"{host}:{port}", name)  # one identity per server and name
    app = SelfishApp(
        host,
        port,
        name,
        load_token(key),
        bell=args.bell,
        on_token=lambda token: save_token(key, token),
    )
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
