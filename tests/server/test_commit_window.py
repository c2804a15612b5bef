"""The group commit's window (server.net.outbox, ``commit_window``): a flush comes at the end
of the tick when the last one is at least a window old, else once it is; several ticks' decisions
then share one commit, and each state is written only once its decision is committed. On a
fake loop whose clock the test moves: no sleeps."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from server.net.outbox import Outbox
from server.store.store import Store

WINDOW = 0.004


class FakeLoop:
    """A loop whose callbacks run when the test says: ``call_soon`` ones at the tick's end,
    ``call_at`` ones once the clock has reached their time."""

    def __init__(self) -> None:
        self.now = 100.0
        self.soon: list[Callable[[], None]] = []
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def time(self) -> float:
        return self.now

    def call_soon(self, callback: Callable[[], None]) -> object:
        self.soon.append(callback)
        return None

    def call_at(self, when: float, callback: Callable[[], None]) -> object:
        self.timers.append((when, callback))
        return None

    def end_tick(self) -> None:
        """Run what the tick left to its end."""
        soon, self.soon = self.soon, []
        for callback in soon:
            callback()

    def advance(self, seconds: float) -> None:
        """Move the clock and run the timers due by then."""
        self.now += seconds
        due = [timer for timer in self.timers if timer[0] <= self.now]
        self.timers = [timer for timer in self.timers if timer[0] > self.now]
        for _, callback in sorted(due, key=lambda timer: timer[0]):
            callback()


class Connection:
    """A client connection that notes, as each frame is written, how many decisions another
    connection to the database sees committed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.queued: list[bytes] = []
        self.written: list[tuple[bytes, int]] = []

    def flush(self) -> None:
        self.write(self.take())

    def take(self) -> list[bytes]:
        out, self.queued = self.queued, []
        return out

    def write(self, frames: list[bytes]) -> None:
        with sqlite3.connect(self.path) as reader:
            (count,) = reader.execute("SELECT count(*) FROM decisions").fetchone()
        self.written.extend((frame, count) for frame in frames)


class Table:
    """A store batched by an outbox on a fake loop, one connection, one game."""

    def __init__(self, path: Path, window: float) -> None:
        self.loop = FakeLoop()
        self.store = Store(str(path))
        self.outbox = Outbox(self.store, window, self.loop)
        self.conn = Connection(path)
        self.game = self.store.create_game("ABCD", "space", ["a", "b"], [], {}, 1, 0)
        self.store.commit()
        self.decisions = 0

    def decide(self) -> None:
        """One decision and the state it produces, as a room's act does."""
        n = self.decisions
        self.decisions += 1
        self.store.append_decision(self.game, n, n % 2, {"do": "play", "card": n}, "human")
        self.conn.queued.append(f"state {n + 1}".encode())
        self.outbox.queue(self.conn)


def test_an_idle_server_commits_and_writes_at_the_end_of_the_tick(tmp_path: Path) -> None:
    table = Table(tmp_path / "db.sqlite3", WINDOW)
    table.decide()
    assert table.conn.written == [] and table.loop.timers == []
    table.loop.end_tick()
    assert table.conn.written == [(b"state 1", 1)]
    table.loop.advance(WINDOW)  # a window later: at the end of the tick again
    table.decide()
    assert table.loop.timers == []
    table.loop.end_tick()
    assert table.conn.written[-1] == (b"state 2", 2)
    table.store.close()


def test_ticks_within_a_window_share_one_commit_made_before_their_states(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path / "db.sqlite3", WINDOW)
    table.decide()
    table.loop.end_tick()  # flushed at 100.0
    table.loop.advance(0.001)
    table.decide()
    table.loop.end_tick()
    assert table.loop.timers == [(100.0 + WINDOW, table.outbox.flush)]
    table.loop.advance(0.001)
    table.decide()  # joins the flush already set
    table.loop.end_tick()
    assert len(table.loop.timers) == 1
    table.loop.advance(0.001)
    assert table.conn.written == [(b"state 1", 1)]  # nothing before the window's end
    table.loop.advance(0.001)  # the window ends: one commit holds both decisions
    assert table.conn.written == [(b"state 1", 1), (b"state 2", 3), (b"state 3", 3)]
    table.store.close()


def test_without_a_window_every_tick_commits(tmp_path: Path) -> None:
    table = Table(tmp_path / "db.sqlite3", 0.0)
    for _ in range(3):
        table.decide()
        table.loop.end_tick()
    assert table.loop.timers == []
    assert table.conn.written == [(b"state 1", 1), (b"state 2", 2), (b"state 3", 3)]
    table.store.close()


def test_a_flush_now_within_the_window_leaves_the_set_flush_nothing_to_do(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path / "db.sqlite3", WINDOW)
    table.decide()
    table.loop.end_tick()
    table.decide()
    table.outbox.flush_now()  # a connection closes: its last frames go out at once
    assert table.conn.written == [(b"state 1", 1), (b"state 2", 2)]
    table.loop.advance(WINDOW)  # the flush set for the window's end finds nothing
    assert table.conn.written == [(b"state 1", 1), (b"state 2", 2)]
    table.decide()  # and the next one waits for a window after flush_now's
    assert table.loop.timers == [] and table.loop.soon == [table.outbox.flush]
    table.loop.end_tick()
    assert table.conn.written[-1] == (b"state 3", 3)
    table.store.close()
