"""The ``selfish bot`` command line: its arguments, checked, and the run of one
:class:`~server.bots.client.HeadlessBot`. The finished games go to the caller's ``on_result``
(the selfish CLI words them for a person: selfish_tui/reports.py)."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Callable

from protocol.messages import BOT_LEVELS, EDITIONS, MAX_SEATS, MIN_SEATS, TIMERS
from server.bots.client import BotError, CreateSpec, GameResult, HeadlessBot, parse_address
from server.config import DEFAULT_PORT


def _seconds(text: str) -> float:
    """A positive number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("seconds must be above 0 and at most 60")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``selfish bot`` argument parser."""
    p = argparse.ArgumentParser(
        prog="selfish bot", description="A headless client that plays through the protocol."
    )
    p.add_argument(
        "address",
        metavar="HOST[:PORT][,HOST[:PORT]...]",
        help=f"server (default port {DEFAULT_PORT}); a cluster's nodes separated by commas",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--create",
        metavar="EDITION",
        choices=EDITIONS,
        help="create a room of this edition (space or shipwrecked)",
    )
    what.add_argument("--room", metavar="CODE", help="join this room as a player")
    p.add_argument(
        "--seats",
        type=int,
        default=2,
        choices=range(MIN_SEATS, MAX_SEATS + 1),
        help="table size with --create (default 2)",
    )
    p.add_argument(
        "--server-bots",
        type=int,
        default=0,
        metavar="M",
        help="with --create: seats the server fills with its own bots",
    )
    p.add_argument("--timer", type=int, default=0, choices=TIMERS, help="turn timer, seconds")
    p.add_argument("--level", choices=BOT_LEVELS, default="basic", help="how this bot plays")
    p.add_argument(
        "--budget",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="with --level expert: search time per decision (default 0.4)",
    )
    p.add_argument("--games", type=int, default=1, metavar="K", help="games to play (default 1)")
    p.add_argument("--name", default=None, help="player name (default bot-NNNN)")
    p.add_argument("--delay", type=float, default=0.0, help="think time per decision, seconds")
    p.add_argument(
        "--max-rate",
        type=float,
        default=15.0,
        help="decisions per second at most (default 15, under the server's limit)",
    )
    return p


def bot_main(argv: list[str], on_result: Callable[[GameResult], None] | None = None) -> int:
    """Entry point of ``selfish bot``; each finished game goes to ``on_result``. Returns the
    exit status."""
    args = build_parser().parse_args(argv)
    try:
        (host, port), *others = [parse_address(a) for a in args.address.split(",") if a]
    except ValueError:
        print(f"selfish bot: bad address {args.address!r}", file=sys.stderr)
        return 2
    if args.create and not 0 <= args.server_bots < args.seats:
        print("selfish bot: --server-bots must be 0 .. seats-1", file=sys.stderr)
        return 2
    create = (
        CreateSpec(args.create, args.seats, args.server_bots, args.timer) if args.create else None
    )
    bot = HeadlessBot(
        host,
        port,
        name=args.name or f"bot-{random.randrange(10_000):04d}",
        level=args.level,
        seconds=args.budget,
        create=create,
        room=args.room.upper() if args.room else None,
        games=max(1, args.games),
        act_delay=args.delay,
        max_rate=max(0.1, args.max_rate),
        on_result=on_result,
        on_room=(lambda code: print(f"room {code}", file=sys.stderr, flush=True)),
        others=tuple(others),
    )
    try:
        asyncio.run(bot.run())
    except BotError as exc:
        print(f"selfish bot: {exc}", file=sys.stderr)
        return 1
    except (ConnectionError, OSError) as exc:
        print(f"selfish bot: cannot reach {host}:{port}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
