"""The server bots' pace as a person at the table sees it.

Plays `selfish play`'s table (one person, three basic bots, an embedded server on loopback)
with a scripted person who takes ``--think`` seconds per decision, and times every log line
as it arrives. For each ``bot_delay`` it prints:

* lines per round: how many log lines scroll by between two turns of ours;
* seconds per bot turn, and the person's wait from their last act to their next turn;
* lines per second while bots act, and how long a bot's line stays in view in the log panel
  (8 rows at 80x24, 26 at 120x40; one row per line, which is the best case) before newer lines
  push it out: the median, and the share of lines that stay at least ``--read`` seconds (the
  time to read a line of about eight words).

Figures only (no assertions). Run it on a quiet machine for the docs; say when not.

    python bench/pace.py [--delays 0.3,0.6,1.0] [--turns 6] [--think 1.0] [--edition space]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field

from protocol.client import ClientConnection, Events, State, Welcome
from protocol.messages import Act, CreateRoom
from selfish_tui.local import EmbeddedServer
from server.bots.levels import choose

LOG_ROWS = {"80x24": 8, "120x40": 26}


@dataclass
class Timeline:
    """When each log line arrived, whose it was, and when our turns began."""

    lines: list[tuple[float, int | None]] = field(default_factory=list)  # (time, actor seat)
    our_turns: list[float] = field(default_factory=list)
    our_acts: list[float] = field(default_factory=list)
    bot_turns: list[tuple[float, float]] = field(default_factory=list)  # (start, end)


async def play(delay: float, turns: int, think: float, edition: str, seed: int) -> Timeline:
    """One game until ``turns`` turns of ours have begun (or it ends)."""
    timeline = Timeline()
    rng = random.Random(seed)
    with EmbeddedServer(":memory:", bot_delay=delay) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        conn = ClientConnection()
        conn.hello("Person")
        writer.write(conn.data_to_send())
        created = False
        turn_of: int | None = None
        turn_started = 0.0
        answered = -1
        last_turn = -1
        while len(timeline.our_turns) < turns:
            data = await reader.read(65536)
            if not data:
                break
            now = time.monotonic()
            for event in conn.receive_data(data):
                if isinstance(event, Welcome) and not created:
                    created = True
                    room = CreateRoom(
                        edition=edition, seats=4, public=False, bots=3, autostart=True, seed=seed
                    )
                    conn.send(room)
                    writer.write(conn.data_to_send())
                elif isinstance(event, Events) and not event.history:
                    for line in event.events:
                        if line.key == "turn":
                            if turn_of not in (None, 0):
                                timeline.bot_turns.append((turn_started, now))
                            player = line.args["player"]
                            assert isinstance(player, int)
                            turn_of = player
                            turn_started = now
                        timeline.lines.append((now, turn_of))
                elif isinstance(event, State):
                    public = event.view.public
                    if public.over:
                        return timeline
                    if event.view.legal and event.version != answered:
                        if public.active == 0 and public.turn != last_turn:
                            last_turn = public.turn
                            timeline.our_turns.append(now)
                        answered = event.version
                        await asyncio.sleep(think)
                        view = event.view.to_wire()  # the engine's bots read the wire form
                        choice = view["legal"].index(choose("basic", view, rng))
                        conn.send(Act(room=event.room, version=event.version, choice=choice))
                        writer.write(conn.data_to_send())
                        timeline.our_acts.append(time.monotonic())
        writer.close()
    return timeline


def report(delay: float, timeline: Timeline, rows: int, read: float) -> str:
    """One line of figures for one delay."""
    bot_lines = [(t, seat) for t, seat in timeline.lines if seat not in (None, 0)]
    times = [t for t, _ in timeline.lines]
    in_view = []
    for t, _ in bot_lines:
        index = times.index(t)
        later = times[index + rows] if index + rows < len(times) else None
        if later is not None:
            # a line stays until `rows` newer ones have come, or until our turn opens (then
            # the person reads the summary and the log at leisure)
            ours = [s for s in timeline.our_turns if s > t]
            in_view.append(min(later, ours[0]) - t if ours else later - t)
    rounds = max(1, len(timeline.our_turns) - 1)
    per_round = (
        sum(1 for t, _ in timeline.lines if timeline.our_turns[0] <= t < timeline.our_turns[-1])
        / rounds
        if len(timeline.our_turns) > 1
        else float("nan")
    )
    bot_turn = [end - start for start, end in timeline.bot_turns]
    # from our last act of a turn to the start of our next turn
    waits = []
    for start in timeline.our_turns[1:]:
        acts = [a for a in timeline.our_acts if a < start]
        if acts:
            waits.append(start - acts[-1])
    active = sum(bot_turn) or 1.0
    short = sum(1 for v in in_view if v < read)
    return (
        f"bot_delay {delay:4.2f} s: {per_round:5.1f} lines/round, "
        f"{statistics.median(bot_turn) if bot_turn else 0:4.1f} s/bot turn, "
        f"wait for our turn {statistics.median(waits) if waits else 0:4.1f} s, "
        f"{len(bot_lines) / active:4.1f} lines/s while bots act, "
        f"a bot line in view (log {rows} rows) median "
        f"{statistics.median(in_view) if in_view else float('nan'):4.1f} s, "
        f"{100 * short / max(1, len(in_view)):3.0f}% under {read:g} s"
    )


def main() -> None:
    """Run the games and print one line per delay and terminal size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="0.3,0.6,1.0")
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--read", type=float, default=2.0)
    parser.add_argument("--edition", default="space")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    for delay in (float(d) for d in args.delays.split(",")):
        timeline = asyncio.run(play(delay, args.turns, args.think, args.edition, args.seed))
        for size, rows in LOG_ROWS.items():
            print(f"{args.edition} {size} " + report(delay, timeline, rows, args.read))


if __name__ == "__main__":
    main()
