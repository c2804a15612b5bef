"""The `selfish` command line's parser: its commands, options and their checks, and the
defaults they fall back on (the player's name, the port, the newcomer's bots)."""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
from importlib import metadata

from protocol.messages import BOT_LEVELS
from selfish_tui import i18n
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
        nargs="*",
        metavar="HOST[:PORT][,HOST[:PORT]...] | SERVER-NAME",
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
        "--guest",
        action="store_true",
        help=_("play as a guest: a new player every time, no token kept, no record or rating"),
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
    _replay_parsers(sub)
    return localise_parser(parser)


def _replay_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `replay` and `export` commands (selfish_tui/replay_cli.py runs them)."""
    replay = sub.add_parser(
        "replay", help=_("watch a finished game: an exported file, or a game on a server")
    )
    replay.add_argument(
        "target",
        metavar="FILE | GAME",
        help=_("an exported file, or with --server the game's number"),
    )
    replay.add_argument(
        "--server", metavar="HOST[:PORT]", default=None, help=_("the server that kept the game")
    )
    replay.add_argument(
        "--turn", type=_positive, default=None, metavar="N", help=_("open at the start of turn N")
    )
    replay.add_argument(
        "--seat",
        type=_positive,
        default=None,
        metavar="N",
        help=_("open from seat N's view (default: your own seat, else seat 1)"),
    )
    _identity_options(replay)
    _lang_option(replay)
    export = sub.add_parser("export", help=_("write a finished game on a server to a file"))
    export.add_argument("game", type=game_number, metavar="GAME", help=_("the game's number"))
    export.add_argument(
        "--server", metavar="HOST[:PORT]", required=True, help=_("the server that kept the game")
    )
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help=_("the file to write (default selfish-game-GAME.json; - writes to the output)"),
    )
    _identity_options(export)
    _lang_option(export)


def _identity_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help=_("your name (whose stored identity to use)"))
    parser.add_argument(
        "--identity",
        metavar="FILE",
        default=None,
        help=_("the player's token is kept in FILE (default: the per-user identities file)"),
    )


def _lang_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        default=None,
        help=_("the interface language: zh or en (default from LC_ALL / LC_MESSAGES / LANG)"),
    )


def language_asked(argv: list[str]) -> str | None:
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


def chosen_interfaces(args: argparse.Namespace) -> list[str] | None:
    """The LAN interfaces the flags and SELFISH_LAN_INTERFACE choose (ValueError if bad)."""
    from protocol.lan import INTERFACES_VARIABLE, choose_interfaces

    return choose_interfaces(args.lan_interface, os.environ.get(INTERFACES_VARIABLE))


def _code(text: str) -> str:
    """argparse type for a room code: 4 letters (a private room's: 12)."""
    if len(text) not in (4, 12) or not text.isascii() or not text.isalpha():
        raise argparse.ArgumentTypeError(_("a room code is 4 letters (a private room's 12)"))
    return text.upper()


def game_number(text: str) -> int:
    """argparse type for a game's number ("12" or "#12")."""
    digits = text.removeprefix("#")
    if not digits.isascii() or not digits.isdigit():
        raise argparse.ArgumentTypeError(_("a game's number is a whole number, such as 12"))
    return int(digits)
