"""The one module of the client that imports ``server``.

* :class:`EmbeddedServer` runs a real Selfish server on loopback in a background thread, for
  `selfish play` (and the client's tests). Any local account can reach its port, so the game is
  a private room (`selfish play` creates it so): its 12-letter code is the secret that lets one
  in, known to the client only (the server answers ``no_such_room`` alike for a wrong code and
  a room one is not in, never lists it, and gives its replay to its players only); the
  database and log that hold the code are the account's own (mode 0600). It uses the server's
  own SQLite store at a per-user path, so local games are saved like any other and
  `selfish play --resume` continues one.
* With ``announce=`` it is what `selfish host` runs: listening on every interface and announced
  on the LAN (server/announce.py); :meth:`EmbeddedServer.running_games` tells the app whether
  quitting would stop games.
* :func:`run_bot` and :func:`run_simulate` are what `selfish bot ...` and `selfish simulate ...`
  dispatch to; keeping them here means every import of ``server`` by the client lives in this
  file (tests/test_import_graph.py checks that), and `selfish connect` never loads it.

A thread (not the app's own event loop) hosts the server so that bots thinking or the store
committing never stall the interface, and so that the server starts and stops independently of
the Textual app's lifetime.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from selfish_tui.i18n import _
from selfish_tui.paths import local_db_path
from server.config import SHARED_ADDRESS, ServerConfig
from server.store.database_lock import DatabaseBusy


class EmbeddedServer:
    """A selfish server on 127.0.0.1 (a free port) in a daemon thread. Use as a context manager.

    ``db`` is the SQLite path (":memory:" keeps nothing); ``settings`` override any other
    :class:`~server.config.ServerConfig` field (tests use ``bot_delay=0``). ``announce`` is the
    name to announce on the LAN, on ``lan_interfaces`` (None: every interface).
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        log_file: str | os.PathLike[str] | None = None,
        announce: str | None = None,
        lan_interfaces: list[str] | None = None,
        **settings: Any,
    ) -> None:
        path = str(db if db is not None else local_db_path())
        # A chosen seed reveals the deck order; that is fine on one's own machine.
        defaults: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": 0,
            "db": path,
            "allow_seed": True,
            "log_level": "WARNING",
            # every client of a local server comes from 127.0.0.1: limits per address would
            # only make the player pay for the embedded bots' and tests' connections
            **SHARED_ADDRESS,
        }
        defaults.update(settings)
        self.config = ServerConfig(**defaults)
        self.log_file = log_file
        self.announce = announce
        self.lan_interfaces = lan_interfaces
        self.lan_problem: str | None = None  # why the server is not announced, if it is not
        self.addresses: list[str] = []  # "host:port" others can type (with announce=)
        self.port = 0
        self._running: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="selfish-server", daemon=True)

    def start(self, timeout: float = 15.0) -> int:
        """Start the server; return its port once it accepts connections. Raises RuntimeError
        with one sentence for a person: another process serves this database, or the server
        could not start."""
        try:
            self._private_files()
        except OSError as exc:
            raise RuntimeError(
                _("cannot use {path}: {error}").format(path=exc.filename, error=_reason(exc))
            ) from None
        if self.log_file is not None:
            self._log_to_file(Path(self.log_file))
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError(_("the game server inside the client did not start in time"))
        if isinstance(self._error, DatabaseBusy):  # one server per database (server.tcp)
            raise RuntimeError(_busy_message(self._error)) from None
        if self._error is not None:
            raise RuntimeError(
                _("the game server inside the client could not start: {error}").format(
                    error=_reason(self._error)
                )
            ) from None
        return self.port

    def _private_files(self) -> None:
        """Keep the database and the log to this account (mode 0600, their folder 0700): they
        hold the private room's code, which is what lets one into it."""
        paths = [Path(p) for p in (self.config.db, self.log_file) if p and p != ":memory:"]
        old = os.umask(0o077)
        try:
            for path in paths:
                path.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(OSError):  # not ours to change: leave it
                    path.parent.chmod(0o700)
                    path.touch(exist_ok=True)
                    path.chmod(0o600)
        finally:
            os.umask(old)

    def _log_to_file(self, path: Path) -> None:
        """Send the server's log to a file: on the terminal it would tear through the
        interface (Python prints unhandled warnings to stderr, where Textual draws)."""
        logger = logging.getLogger("selfish")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(self.config.log_level)
        logger.propagate = False

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (saving everything) and wait for its thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread.is_alive():
            self._thread.join(timeout)

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to start(); the thread must not die silently
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        from server.net.tcp import start_server

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        running = await start_server(self.config)
        self._running = running
        self.port = int(running.port)
        announcer = None
        try:
            if self.announce is not None:
                from server.announce import Announcer

                announcer = Announcer(running, self.announce, self.lan_interfaces)
                self.addresses = [_with_port(a, self.port) for a in announcer.addresses]
                try:
                    await announcer.start()
                except Exception as exc:  # those who type the address can still join
                    self.lan_problem = str(exc) or type(exc).__name__
                    announcer = None
            self._ready.set()
            await self._stop.wait()
        finally:
            if announcer is not None:
                await announcer.stop()
            await running.stop()

    def running_games(self) -> int:
        """How many games are being played on the server right now."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._running is None:
            return 0

        async def count() -> int:
            from server.rooms.room import Status

            return sum(1 for r in self._running.lobby.rooms.values() if r.status == Status.PLAYING)

        try:
            return asyncio.run_coroutine_threadsafe(count(), loop).result(timeout=2.0)
        except Exception:  # the server is stopping: nothing left to lose by quitting
            return 0


def _busy_message(busy: DatabaseBusy) -> str:
    """Why a second `selfish play` (or host) on the same home cannot start, and what to do."""
    if busy.pid is None:
        return _(
            "another Selfish is already using {path}: quit it first, or give this one a home "
            "of its own (XDG_DATA_HOME=DIR)"
        ).format(path=busy.path)
    return _(
        "another Selfish (process {pid}) is already using {path}: quit it first, or give "
        "this one a home of its own (XDG_DATA_HOME=DIR)"
    ).format(pid=busy.pid, path=busy.path)


def _reason(exc: BaseException) -> str:
    """An exception as a short phrase for a person (never a traceback)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    text = str(exc).strip()
    return text or type(exc).__name__


def _with_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def run_bot(argv: list[str]) -> int:
    """`selfish bot ...`: the headless protocol client from the server package, each finished
    game printed in the active language."""
    from selfish_tui.reports import game_line
    from server.bots.command import bot_main

    return int(bot_main(argv, lambda result: print(game_line(result), flush=True)) or 0)


def run_simulate(argv: list[str]) -> int:
    """`selfish simulate ...`: engine-only self-play from the server package, its summary
    printed in the active language."""
    from selfish_tui.reports import simulation_lines
    from server.bots.simulate import main

    return int(main(argv, simulation_lines) or 0)


def variant_problem(edition: str, variants: list[str]) -> str | None:
    """Why ``variants`` cannot be played in ``edition`` (the engine's own message), or None:
    `selfish play --variant` refuses a bad id before it starts a server."""
    from server.engine import Edition, check_variants

    try:
        check_variants(Edition(edition), variants)
    except ValueError as exc:
        return str(exc)
    return None


class ReplayRefused(ValueError):
    """A record the engine cannot re-play (a tampered or damaged file): one sentence for a
    person in the active language."""


class Replayer:
    """A finished game re-played by the engine, read as plain data one moment at a time.

    Frame 0 is the start; frame ``k`` is the board after the first ``k`` decisions. Making one
    re-plays the whole record at once, so a changed seed or decision list is refused before
    anything is shown (:class:`ReplayRefused`, at the first decision that no longer fits the
    game, or because the game does not end where the record does); the frames themselves are
    built when first asked for, by a second game stepping forward, and kept.

    Everything it returns is msgpack-safe data of the wire's shapes (views, event maps, card
    maps), so the client's replay model (selfish_tui/replay.py) never sees an engine object.
    """

    def __init__(
        self,
        edition: str,
        names: list[str],
        seed: int,
        decisions: list[Any],
        variants: list[str] | tuple[str, ...] = (),
        *,
        check: str | None = None,
        rules: int | None = None,
    ) -> None:
        """Re-play the record; ``check`` is its final-state digest (``rules``: the engine's
        rules version it was played under), refused when the game ends in another state."""
        from server.engine import RULES_VERSION, EngineError, Game, digest
        from server.engine.cards import CATALOGUE, GAME_DECKS, Edition
        from server.engine.views import card_dict

        if rules is not None and rules != RULES_VERSION:
            raise ReplayRefused(
                _(
                    "the record was played under rules version {theirs}; this program plays "
                    "version {ours}"
                ).format(theirs=rules, ours=RULES_VERSION)
            )

        try:
            game = Game(edition, names, seed, variants=variants)
            self._setup = (edition, list(names), seed, tuple(game.variants))
        except (ValueError, TypeError) as exc:
            raise ReplayRefused(
                _("the record's setup cannot be played: {error}").format(error=_reason(exc))
            ) from None
        self.decisions: list[tuple[int, dict[str, Any]]] = []
        self.turns: list[int] = [game.turn]  # the turn each frame stands in
        self._log_ends: list[int] = [len(game.log)]  # where each frame's events end
        for index, pair in enumerate(decisions):
            if (
                not isinstance(pair, list | tuple)
                or len(pair) != 2
                or not isinstance(pair[0], int)
                or isinstance(pair[0], bool)
                or not isinstance(pair[1], dict)
            ):
                raise ReplayRefused(
                    _("decision {number} of the record is not a seat and a choice").format(
                        number=index + 1
                    )
                )
            seat, choice = pair
            try:
                game.apply(seat, choice)
            except (EngineError, TypeError):
                raise ReplayRefused(
                    _(
                        "decision {number} of the record is not a legal move there: the file "
                        "was changed or damaged"
                    ).format(number=index + 1)
                ) from None
            self.decisions.append((seat, dict(choice)))
            self.turns.append(game.turn)
            self._log_ends.append(len(game.log))
        if not game.over:
            raise ReplayRefused(
                _("the record stops before the end of its game: the file was changed or damaged")
            )
        if check is not None and digest(game) != check:
            raise ReplayRefused(
                _(
                    "the game does not end as the record's check says: its seed or decisions "
                    "were changed"
                )
            )
        self._whole = game
        self.winner: int | None = game.winner
        self.final: dict[str, Any] = game.snapshot()
        self.cards = {card.id: card_dict(card) for card in GAME_DECKS[Edition(edition)]}
        self.catalogue: dict[str, dict[str, str]] = dict(CATALOGUE[Edition(edition).value])
        self._frames: list[dict[str, Any]] = []
        self._walker = Game(edition, names, seed, variants=variants)

    def __len__(self) -> int:
        """How many frames there are (one more than decisions)."""
        return len(self.turns)

    def events(self, start: int, end: int) -> list[dict[str, Any]]:
        """The events of frames ``start`` to ``end - 1`` (what each frame's decision set off;
        frame 0's are the deal): ``{"to", "full", "public"}``, ``full`` as the seats in ``to``
        read it (everyone when ``to`` is None), ``public`` as the others do (the secret args
        left out)."""
        log = self._whole.log
        first = self._log_ends[start - 1] if start > 0 else 0
        out = []
        for event in log[first : self._log_ends[end - 1]]:
            full = _event_map(event, event.to[0] if event.to else None)
            out.append(
                {
                    "to": None if event.to is None else list(event.to),
                    "full": full,
                    "public": full if event.to is None else _event_map(event, None),
                }
            )
        return out

    def frame(self, index: int) -> dict[str, Any]:
        """The board at frame ``index`` (0 <= index < len): ``public`` (the spectator view),
        ``seats`` (the seat part of each seat's view: hand, resources, decision, legal),
        ``hands`` (every hand, card ids), ``draw`` / ``loc_draw`` (the piles' card ids, the
        next to be drawn first) and ``decision`` (the [seat, choice] taken from here, or
        None at the end)."""
        from server.engine.search import state_of

        game = self._walker
        while len(self._frames) <= index:
            at = len(self._frames)
            state = state_of(game)
            decision = self.decisions[at] if at < len(self.decisions) else None
            self._frames.append(
                {
                    "public": game.public_view(),
                    "seats": [game.seat_view(seat) for seat in range(state.seats)],
                    "hands": [[card.id for card in hand] for hand in state.hands],
                    "draw": [card.id for card in reversed(state.draw)],
                    "loc_draw": [loc.id for loc in reversed(state.loc_draw)],
                    "decision": None if decision is None else [decision[0], dict(decision[1])],
                }
            )
            if decision is not None:
                game.apply(*decision)
        return self._frames[index]


def _event_map(event: Any, seat: int | None) -> dict[str, Any]:
    """An engine event as ``seat`` (None: a spectator) may read it, in the wire's form: kind,
    key, seat and the args that reader may see (cards as maps, cells as [col, row])."""
    from server.engine.events import wire_value

    args = {name: wire_value(value) for name, value in event.visible_args(seat).items()}
    return {"kind": event.kind, "key": event.key, "seat": event.seat, "args": args}
