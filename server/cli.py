"""``selfish-server``: run the game server until SIGTERM/SIGINT.

Settings come from ServerConfig defaults, then ``--config FILE`` (TOML, keys named like the
ServerConfig fields, optionally under ``[server]``), then the flags.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.config import DEFAULT_PORT, ServerConfig, default_db_path, load_toml

log = logging.getLogger("selfish.server")


def build_parser() -> argparse.ArgumentParser:
    """The ``selfish-server`` argument parser (every flag defaults to 'not given')."""
    p = argparse.ArgumentParser(prog="selfish-server", description="The Selfish game server.")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument(
        "--db",
        help=f"SQLite file (default {default_db_path()}; ':memory:' = none), or a "
        "postgresql://USER@HOST/DB URL (a cluster's nodes share one)",
    )
    p.add_argument("--log-level", help="DEBUG, INFO (default), WARNING or ERROR")
    p.add_argument("--config", metavar="FILE", help="TOML file with settings; flags win")
    p.add_argument(
        "--announce",
        action="store_true",
        help="announce the server on the LAN (DNS-SD _selfish._tcp), so `selfish connect` lists it",
    )
    p.add_argument(
        "--lan-name", metavar="NAME", help="the name to announce (default: this machine's name)"
    )
    p.add_argument(
        "--lan-interface",
        action="append",
        default=[],
        metavar="ADDR",
        help="announce on the interface with this address (repeatable; default: "
        "$SELFISH_LAN_INTERFACE, comma-separated, else every interface)",
    )
    p.add_argument(
        "--ssh-port", type=int, help="also serve the client over SSH on this port (default: off)"
    )
    p.add_argument(
        "--ssh-auth",
        choices=["open", "keys"],
        help="open (default): anyone, no password; keys: only --ssh-authorized-keys",
    )
    p.add_argument(
        "--ssh-authorized-keys", metavar="FILE", help="authorized_keys file for --ssh-auth keys"
    )
    p.add_argument(
        "--recompute-ratings",
        action="store_true",
        help="rebuild every record and rating from the stored games, print the time it took "
        "and how many differed, and exit (stop the server first)",
    )
    return p


def recompute_ratings(path: str) -> int:
    """``--recompute-ratings``: 0 when the numbers came out as stored, 1 when some differed
    (they are the recomputed ones now)."""
    from server.store.store import Store

    store = Store(path)
    try:
        start = time.perf_counter()
        games, differ = store.recompute_ratings()
        seconds = time.perf_counter() - start
    finally:
        store.close()
    print(f"recomputed the records and ratings of {games} finished games in {seconds:.1f} s")
    print(f"{differ} standings differed from the stored ones" if differ else "same numbers")
    return 1 if differ else 0


@dataclass
class LanSettings:
    """What ``--announce`` asks for: the name, and the interfaces (None: every one)."""

    name: str
    interfaces: list[str] | None


def lan_settings(args: argparse.Namespace) -> LanSettings | None:
    """The announcement the flags ask for (None without ``--announce``); ValueError if bad."""
    from protocol.lan import INTERFACES_VARIABLE, check_server_name, choose_interfaces

    if not args.announce:
        return None
    # The machine's name without its domain, which would only make it long.
    default = socket.gethostname().split(".")[0].strip()[:40] or "Selfish"
    name = check_server_name(args.lan_name or default)
    interfaces = choose_interfaces(args.lan_interface, os.environ.get(INTERFACES_VARIABLE))
    return LanSettings(name, interfaces)


def make_config(args: argparse.Namespace) -> ServerConfig:
    """Defaults < config file < flags."""
    # values checked by load_toml and argparse; ServerConfig takes each by its own type
    settings: dict[str, Any] = {"host": "0.0.0.0", "db": default_db_path()}
    if args.config:
        settings.update(load_toml(args.config))
    for key in ("host", "port", "db", "log_level", "ssh_port", "ssh_auth", "ssh_authorized_keys"):
        value = getattr(args, key)
        if value is not None:
            settings[key] = value
    return ServerConfig(**settings)


# Generation-0 threshold of the cyclic garbage collector for the server process (default 700).
GC_THRESHOLD = 20_000


def tune_gc() -> None:
    """Run the cyclic collector less often. Every decision allocates hundreds of short-lived
    containers (views, messages) that reference counting frees anyway; with the default
    threshold the collector runs about ten times a second under load and its full collections
    stop the event loop for up to 77 ms with 2,000 clients (bench/load.py). Objects made at
    start-up (modules, card tables, resumed games) are frozen out of the collector's scans."""
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, gen1, gen2)


async def serve(config: ServerConfig, lan: LanSettings | None = None) -> int:
    """Run until a signal asks to stop; then shut down gracefully."""
    from server.net.tcp import start_server

    running = await start_server(config)
    announcer = None
    if lan is not None:
        from server.announce import Announcer

        announcer = Announcer(running, lan.name, lan.interfaces)
        try:
            await announcer.start()
        except Exception as exc:  # the server still serves those who type its address
            print(f"selfish-server: cannot announce on the LAN: {exc}", file=sys.stderr)
            announcer = None
    gateway = None
    if config.ssh_port >= 0:
        from server.gateway.server import start_gateway

        try:
            gateway = await start_gateway(running, config)
        except BaseException:
            await running.stop()
            raise
    tune_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # Signal handlers are unavailable on some platforms (Windows): Ctrl-C still works there.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    print(f"selfish-server listening on {config.host}:{running.port}", file=sys.stderr, flush=True)
    if announcer is not None:
        print(
            f"selfish-server announced on the LAN as {announcer.name!r}",
            file=sys.stderr,
            flush=True,
        )
    if gateway is not None:
        where = f"{config.ssh_host or config.host}:{gateway.port}"
        print(f"selfish-server SSH gateway on {where}", file=sys.stderr, flush=True)
    await stop.wait()
    log.info("signal received")
    if announcer is not None:
        await announcer.stop()
    if gateway is not None:
        await gateway.stop()  # its clients say goodbye before the game server stops
    await running.stop()
    return 0


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (a faster loop, not a dependency; ``pip install
    'selfish-tui[fast]'``), else None: the standard asyncio loop. ``SELFISH_NO_UVLOOP=1`` keeps
    the standard loop even when uvloop is installed (to compare, or to rule it out)."""
    if os.environ.get("SELFISH_NO_UVLOOP"):
        return None
    try:
        import uvloop  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``selfish-server`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["admin"]:  # selfish-server admin ...: see server/admin.py
        from server.admin import main as admin_main

        return admin_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        config = make_config(args)
        lan = lan_settings(args)
    except (OSError, ValueError, TypeError) as exc:
        print(f"selfish-server: bad configuration: {exc}", file=sys.stderr)
        return 2
    level = getattr(logging, str(config.log_level).upper(), None)
    if not isinstance(level, int):
        print(f"selfish-server: unknown log level {config.log_level!r}", file=sys.stderr)
        return 2
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(message)s")
    if args.recompute_ratings:
        try:
            return recompute_ratings(config.db)
        except sqlite3.Error as exc:
            print(f"selfish-server: cannot recompute: {exc}", file=sys.stderr)
            return 1
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            return runner.run(serve(config, lan))
    except (OSError, sqlite3.Error, ValueError) as exc:  # port taken, database in use, ...
        print(f"selfish-server: cannot start: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
