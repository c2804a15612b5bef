"""What each `selfish` command runs: the app with its controller (a local game, a hosted
server, a server's lobby or the LAN's servers), the web front door, and the server package's
bot and simulate commands.

`play`, `host`, `bot` and `simulate` need the server package; they reach it through
selfish_tui.local, imported only inside these functions, so `selfish connect` runs with
``protocol`` and ``textual`` alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from selfish_tui.arguments import (
    DEFAULT_PORT,
    TUTORIAL_SETS,
    chosen_interfaces,
    default_name,
    guest_name,
)
from selfish_tui.client import parse_address, parse_addresses
from selfish_tui.i18n import _


def web(args: argparse.Namespace) -> int:
    """`selfish web`: the client served to browsers, on a given server or an embedded one."""
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


def bot(argv: list[str]) -> int:
    """`selfish bot`: the server package's headless bot clients."""
    from selfish_tui import local

    return local.run_bot(argv)


def simulate(argv: list[str]) -> int:
    """`selfish simulate`: the server package's engine-only self-play."""
    from selfish_tui import local

    return local.run_simulate(argv)


def play(args: argparse.Namespace) -> int:
    """`selfish play`: an embedded server on loopback, a room with bots, and the table."""
    from selfish_tui import local
    from selfish_tui.app import SelfishApp
    from selfish_tui.controllers.controller import Login
    from selfish_tui.controllers.local_game import LocalGame, LocalPlan
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
        login = Login("127.0.0.1", port, load_token(key), lambda token: save_token(key, token))
        game = LocalGame(plan, login, on_tutorial_answer=remember_tutorial_answer)
        SelfishApp(game, name=name, bell=args.bell).run()
    finally:
        server.stop()
    return 0


def host(args: argparse.Namespace) -> int:
    """`selfish host`: a server for the LAN (every interface, announced) and its lobby."""
    from protocol.lan import check_server_name
    from selfish_tui import local
    from selfish_tui.app import SelfishApp
    from selfish_tui.controllers.controller import Login
    from selfish_tui.controllers.hosting import Hosting, HostPlan
    from selfish_tui.paths import data_dir, host_db_path, identity_key, load_token, save_token

    name = args.name or default_name()
    try:
        lan_name = check_server_name(args.lan_name or name)
        interfaces = chosen_interfaces(args)
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
        key = identity_key("host", name)
        login = Login("127.0.0.1", port, load_token(key), lambda token: save_token(key, token))
        SelfishApp(Hosting(plan, login), name=name, bell=args.bell).run()
    finally:
        server.stop()
    return 0


def connect(args: argparse.Namespace) -> int:
    """`selfish connect`: the lobby of a server, typed or found on the LAN."""
    from selfish_tui.app import SelfishApp
    from selfish_tui.controllers.controller import Login
    from selfish_tui.controllers.lan_search import LanSearch
    from selfish_tui.controllers.remote_lobby import RemoteLobby
    from selfish_tui.discovery import looks_like_address
    from selfish_tui.front_door import from_environment
    from selfish_tui.paths import identity_key, load_token, save_token

    # several addresses (a cluster's nodes): comma-separated, or given one after another
    args.address = ",".join(args.address) or None
    if args.address is None or not looks_like_address(args.address):
        try:
            interfaces = chosen_interfaces(args)
        except ValueError as exc:
            print(f"selfish: {exc}", file=sys.stderr)
            return 2
        search = LanSearch(interfaces, args.address, load_token, save_token)
        SelfishApp(search, name=args.name or default_name(), bell=args.bell).run()
        return 0
    try:
        (host, port), *others = parse_addresses(args.address, DEFAULT_PORT)
    except ValueError as exc:
        print(f"selfish: {exc}", file=sys.stderr)
        return 2
    name = args.name or (guest_name() if args.guest else default_name())
    key = identity_key(f"{host}:{port}", name)  # one identity per server and name
    identity = Path(args.identity) if args.identity else None
    goto = ("player", args.join) if args.join else ("spectator", args.watch) if args.watch else None
    if args.guest:  # a new player every time: no token read, none kept, no record
        login = Login(host, port, guest=True, others=tuple(others))
    else:
        login = Login(
            host,
            port,
            load_token(key, identity),
            lambda token: save_token(key, token, identity),
            others=tuple(others),
        )
    lobby = RemoteLobby(login, front_door=from_environment(args.address), goto=goto)
    SelfishApp(lobby, name=name, bell=args.bell).run()
    return 0
