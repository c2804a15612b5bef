"""The `selfish` console script.

    selfish play [--edition space|shipwrecked] [--bots N] [--level LEVEL] [--seed S] [--name NAME]
                 [--resume] [--variant RULE ...] [--tutorial]
    selfish connect [HOST[:PORT] | SERVER-NAME] [--name NAME] [--lan-interface ADDR ...]
                    [--join CODE | --watch CODE] [--identity FILE | --guest]
    selfish host [--name NAME] [--port P] [--lan-name NAME] [--lan-interface ADDR ...]
    selfish web [--port 8080] [--host ADDR] [--server HOST:PORT]
    selfish replay FILE | GAME --server HOST[:PORT] [--turn N] [--seat N]
    selfish export GAME --server HOST[:PORT] [-o FILE]
    selfish bot ...        (the server package's headless protocol client)
    selfish simulate ...   (the server package's engine-only self-play)

`play`, `host`, `bot` and `simulate` need the server package; they reach it through
selfish_tui.local, imported only inside their dispatch functions, so `selfish connect` runs with
``protocol`` and ``textual`` alone.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import sys
from importlib import metadata
from pathlib import Path

from protocol.messages import BOT_LEVELS
from selfish_tui import i18n, replay_cli
from selfish_tui.client import parse_address
from selfish_tui.help_format import localise_parser
from selfish_tui.i18n import _

DEFAULT_PORT = 7777

#: The bots `selfish play` seats unless told otherwise: the level whose tables move on and end
#: (the fewest turns on the start row, the shortest games) while playing to win (docs/bots.md
#: has the measurements behind the choice).
NEWCOMER_LEVEL = "expert"


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


def guest_name() -> str:
    """A name for a guest who gave none (`selfish web` players): 'Guest' and three digits."""
    return f"Guest {secrets.randbelow(900) + 100}"


def _name(text: str) -> str:
    """argparse type for --name: 1-24 printable characters, not only spaces."""
    if not 1 <= len(text) <= 24 or not text.isprintable() or not text.strip():
        raise argparse.ArgumentTypeError(_("a name is 1-24 printable characters"))
    return text


def _bots(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 4:
        raise argparse.ArgumentTypeError(_("--bots is 1-4 (tables seat 2-5)"))
    return value


class _Given(argparse.Action):
    """Store the value and note that the option was given (``args.given``): --tutorial
    refuses the options it sets itself even when they repeat a default."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.given = {*getattr(namespace, "given", ()), option_string}


#: What `selfish play --tutorial` chooses itself (selfish_tui/tutorial.py).
TUTORIAL_SETS = ("--bots", "--level", "--seed", "--variant", "--resume")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `selfish play` and `selfish connect`."""
    parser = argparse.ArgumentParser(
        prog="selfish",
        description=_("Selfish, the card game, in your terminal (Space and Shipwrecked editions)."),
        epilog=_(
            "Also: `selfish bot HOST[:PORT] ...` (headless bot clients) and "
            "`selfish simulate ...` (engine-only self-play); each has its own --help."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    play = sub.add_parser("play", help=_("a local game against bots (no setup, no network)"))
    play.add_argument("--edition", choices=["space", "shipwrecked"], default="space")
    play.add_argument(
        "--bots",
        action=_Given,
        type=_bots,
        default=3,
        metavar="N",
        help=_("number of bot opponents, 1-4 (default 3)"),
    )
    play.add_argument(
        "--level",
        action=_Given,
        choices=BOT_LEVELS,
        default=NEWCOMER_LEVEL,
        help=_(
            "how the bots play (default {level}: they search, play to win and keep the game "
            "moving; basic plays rules of thumb, random plays at random)"
        ).format(level=NEWCOMER_LEVEL),
    )
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help=_("game seed, for a game you can play again exactly"),
    )
    play.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="RULE",
        help=_("turn on a rule variant by its id (docs/rules.md, Variants: V1); may be repeated"),
    )
    play.add_argument("--name", type=_name, default=None, help=_("your name at the table"))
    play.add_argument(
        "--resume", action="store_true", help=_("continue the last unfinished local game")
    )
    play.add_argument("--bell", action="store_true", help=_("ring the bell when it is your turn"))
    play.add_argument(
        "--tutorial",
        action="store_true",
        help=_(
            "a short game against two bots that explains each step the first time it comes "
            "(one per edition: with --edition)"
        ),
    )
    _lang_option(play)
    connect = sub.add_parser(
        "connect", help=_("the lobby of a selfish-server (without an address: those on the LAN)")
    )
    connect.add_argument(
        "address",
        nargs="?",
        metavar="HOST[:PORT] | SERVER-NAME",
        help=_(
            "server address (default port {port}), or the name of a server on the "
            "LAN; without it, the servers found on the LAN are listed"
        ).format(port=DEFAULT_PORT),
    )
    connect.add_argument("--name", type=_name, default=None, help=_("your name"))
    connect.add_argument(
        "--bell", action="store_true", help=_("ring the bell when it is your turn")
    )
    _lang_option(connect)
    _lan_interface_option(connect, "browse")
    goto = connect.add_mutually_exclusive_group()
    goto.add_argument(
        "--join", type=_code, metavar="CODE", help=_("go straight to a seat in room CODE")
    )
    goto.add_argument(
        "--watch", type=_code, metavar="CODE", help=_("go straight to watching room CODE")
    )
    web = sub.add_parser("web", help=_("serve the client to web browsers (textual-serve)"))
    web.add_argument("--port", type=int, default=8080, help=_("HTTP port (default 8080)"))
    web.add_argument(
        "--host",
        default="0.0.0.0",
        help=_("address to listen on (default 0.0.0.0: every interface)"),
    )
    web.add_argument(
        "--server",
        metavar="HOST:PORT",
        default=None,
        help=_("the selfish-server browsers play on (default: an embedded one)"),
    )
    web.add_argument(
        "--max-pages",
        type=_positive,
        default=16,
        metavar="N",
        help=_("browser pages (client processes) at once, in total (default 16)"),
    )
    web.add_argument(
        "--max-pages-per-address",
        type=_positive,
        default=4,
        metavar="N",
        help=_("browser pages at once from one IP address (default 4)"),
    )
    web.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="URL",
        help=_(
            "another origin whose pages may open the game's websocket, e.g. "
            "https://play.example.org behind a TLS proxy (repeatable; the page's own is allowed)"
        ),
    )
    _lang_option(web)
    keep = connect.add_mutually_exclusive_group()
    keep.add_argument(
        "--identity",
        metavar="FILE",
        help=_("keep this player's token in FILE (default: the per-user identities file)"),
    )
    keep.add_argument(
        "--guest", action="store_true", help=_("a new player every time: keep no token")
    )
    host = sub.add_parser(
        "host", help=_("run a server for the LAN inside the client, announced, and open its lobby")
    )
    host.add_argument("--name", type=_name, default=None, help=_("your name"))
    host.add_argument(
        "--port",
        type=_port,
        default=None,
        metavar="P",
        help=_("TCP port (default {port}, or a free one if it is taken)").format(port=DEFAULT_PORT),
    )
    host.add_argument(
        "--lan-name",
        default=None,
        metavar="NAME",
        help=_("the server's name (default: your name)"),
    )
    host.add_argument("--bell", action="store_true", help=_("ring the bell when it is your turn"))
    _lan_interface_option(host, "announce")
    _lang_option(host)
    replay_cli.add_parsers(sub, _lang_option)
    return localise_parser(parser)


def _lang_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        default=None,
        help=_("the interface language: zh or en (default from LC_ALL / LC_MESSAGES / LANG)"),
    )


def _language_asked(argv: list[str]) -> str | None:
    """The ``--lang`` value in ``argv``, read before the parser is built (its help is in that
    language); None when absent or not a language (the parser then says what is wrong)."""
    for index, arg in enumerate(argv):
        value = None
        if arg == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        if value in i18n.LANGUAGES:
            return value
    return None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(_("at least 1"))
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(_("a port is 0-65535 (0: any free port)"))
    return value


def _lan_interface_option(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--lan-interface",
        action="append",
        default=[],
        metavar="ADDR",
        help=(
            _("browse on the interface with this address")
            if verb == "browse"
            else _("announce on the interface with this address")
        )
        + " "
        + _("(repeatable; default: $SELFISH_LAN_INTERFACE, comma-separated, else every interface)"),
    )


def _interfaces(args: argparse.Namespace) -> list[str] | None:
    """The LAN interfaces the flags and SELFISH_LAN_INTERFACE choose (ValueError if bad)."""
    from protocol.lan import INTERFACES_VARIABLE, choose_interfaces

    return choose_interfaces(args.lan_interface, os.environ.get(INTERFACES_VARIABLE))


def _code(text: str) -> str:
    """argparse type for a room code: 4 letters (a private room's: 12)."""
    if len(text) not in (4, 12) or not text.isascii() or not text.isalpha():
        raise argparse.ArgumentTypeError(_("a room code is 4 letters (a private room's 12)"))
    return text.upper()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `selfish` console script."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    # `bot` and `simulate` have their own parsers in the server package: hand them the rest.
    if args_in and args_in[0] == "bot":
        return _run_bot(args_in[1:])
    if args_in and args_in[0] == "simulate":
        return _run_simulate(args_in[1:])
    # The client's language (docs/i18n.md); `bot` and `simulate` above stay English.
    i18n.set_language(i18n.choose_language(_language_asked(args_in)))
    args = build_parser().parse_args(args_in)
    if args.command == "play":
        return play(args)
    if args.command == "host":
        return host(args)
    if args.command == "web":
        return _run_web(args)
    if args.command == "replay":
        return replay_cli.replay_command(args)
    if args.command == "export":
        return replay_cli.export_command(args)
    return connect(args)


def _run_web(args: argparse.Namespace) -> int:
    from selfish_tui import web

    if args.server is not None:
        try:
            host, port = parse_address(args.server, DEFAULT_PORT)
        except ValueError as exc:
            print(f"selfish: {exc}", file=sys.stderr)
            return 2
        args.server = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return web.serve(
        args.host,
        args.port,
        args.server,
        args.lang,
        max_pages=args.max_pages,
        max_pages_per_address=args.max_pages_per_address,
        origins=tuple(args.origin),
    )


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
    from selfish_tui.paths import (
        data_dir,
        first_run,
        identity_key,
        load_token,
        remember_tutorial_answer,
        save_token,
    )

    name = args.name or default_name()
    problem = local.variant_problem(args.edition, args.variant)
    if args.tutorial:
        given = set(getattr(args, "given", ()))
        given |= {"--seed"} if args.seed is not None else set()
        given |= {"--variant"} if args.variant else set()
        given |= {"--resume"} if args.resume else set()
        if given:
            problem = _("--tutorial plays a game of its own: leave out {options}").format(
                options=", ".join(o for o in TUTORIAL_SETS if o in given)
            )
    if problem:
        print(f"selfish: {problem}", file=sys.stderr)
        return 2
    key = identity_key("local", name)
    # A first run (nothing in the data directory yet) is offered the tutorial, once.
    offer = not args.tutorial and not args.resume and first_run()
    try:
        server = local.EmbeddedServer(log_file=data_dir() / "local-server.log")
        port = server.start()
    except RuntimeError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 1
    try:
        plan = LocalPlan(
            edition=args.edition,
            bots=args.bots,
            seed=args.seed,
            resume=args.resume,
            variants=tuple(args.variant),
            bot_level=args.level,
            tutorial=args.tutorial,
            offer_tutorial=offer,
        )
        app = SelfishApp(
            "127.0.0.1",
            port,
            name,
            load_token(key),
            plan=plan,
            bell=args.bell,
            on_token=lambda token: save_token(key, token),
            on_tutorial_answer=remember_tutorial_answer,
        )
        app.run()
    finally:
        server.stop()
    return 0


def host(args: argparse.Namespace) -> int:
    """`selfish host`: a server for the LAN (every interface, announced) and its lobby."""
    from protocol.lan import check_server_name
    from selfish_tui import local
    from selfish_tui.app import HostPlan, SelfishApp
    from selfish_tui.paths import data_dir, host_db_path, identity_key, load_token, save_token

    name = args.name or default_name()
    try:
        lan_name = check_server_name(args.lan_name or name)
        interfaces = _interfaces(args)
    except ValueError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 2
    log_file: Path | None = data_dir() / "host-server.log"
    ports = [args.port] if args.port is not None else [DEFAULT_PORT, 0]
    for attempt, port in enumerate(ports):
        server = local.EmbeddedServer(
            host_db_path(),
            log_file=log_file,
            announce=lan_name,
            lan_interfaces=interfaces,
            host="0.0.0.0",
            port=port,
            allow_seed=False,  # a seed reveals the deck order: not with other players around
            log_level="INFO",
        )
        log_file = None  # the log is set up once
        try:
            port = server.start()
            break
        except RuntimeError as exc:
            if attempt == len(ports) - 1:
                print(f"selfish: {exc}", file=sys.stderr)
                return 1
    try:
        plan = HostPlan(lan_name, server.addresses, server.lan_problem, server.running_games)
        app = SelfishApp(
            "127.0.0.1",
            port,
            name,
            load_token(identity_key("host", name)),
            bell=args.bell,
            on_token=lambda token: save_token(identity_key("host", name), token),
            hosting=plan,
        )
        app.run()
    finally:
        server.stop()
    return 0


def connect(args: argparse.Namespace) -> int:
    """`selfish connect`: the lobby of a server, typed or found on the LAN."""
    from selfish_tui.app import LanSearch, SelfishApp
    from selfish_tui.discovery import looks_like_address
    from selfish_tui.front_door import from_environment
    from selfish_tui.paths import identity_key, load_token, save_token

    if args.address is None or not looks_like_address(args.address):
        try:
            interfaces = _interfaces(args)
        except ValueError as exc:
            print(f"selfish: {exc}", file=sys.stderr)
            return 2
        search = LanSearch(interfaces, args.address, load_token, save_token)
        SelfishApp(None, name=args.name or default_name(), bell=args.bell, search=search).run()
        return 0
    try:
        host, port = parse_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 2
    name = args.name or (guest_name() if args.guest else default_name())
    key = identity_key(f"{host}:{port}", name)  # one identity per server and name
    identity = Path(args.identity) if args.identity else None
    goto = ("player", args.join) if args.join else ("spectator", args.watch) if args.watch else None
    app = SelfishApp(
        host,
        port,
        name,
        None if args.guest else load_token(key, identity),
        bell=args.bell,
        on_token=None if args.guest else lambda token: save_token(key, token, identity),
        goto=goto,
        front_door=from_environment(args.address),
    )
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
