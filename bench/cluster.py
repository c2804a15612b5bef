"""Cluster benchmark: one node vs two on one PostgreSQL, the PostgreSQL store beside SQLite's,
and failover after ``kill -9`` of a node.

    nice -n 10 python bench/cluster.py [--think MS] [--seconds S] [--p99 MS]
                                       [--steps N,N,...] [--store-clients N]
                                       [--failover-clients N] [--failover-think MS]
                                       [--lease S] [--no-fsync] [--only PART] [--json]
                                       [--stalls] [--autogroup-nice N]

PostgreSQL is the one ``SELFISH_BENCH_POSTGRES`` names, else one started from the binaries as
the tests start theirs (tests/postgres.py) but with fsync on, as PostgreSQL's defaults have it
(``--no-fsync`` turns it off, to see what the disk's flushes cost); every measurement gets a
new database. The load is
bench/load.py's generator (4-seat rooms of protocol clients, each acting ``--think`` ms after a
state that gives it a choice), in its own processes.

1. **Store cost**: ``--store-clients`` clients (2,000) against one node on SQLite, then one on
   PostgreSQL: the node's CPU microseconds per decision on each, and PostgreSQL's own (its
   server processes' CPU over the same run, per decision).
2. **Clients held**: for each count of ``--steps``, one node, then two nodes with half the
   clients each (a room's four clients on one node, as a TCP load balancer with per-client
   affinity would spread them), all on PostgreSQL. A count is held while act->state p99 (both
   nodes' round trips pooled) stays at or under ``--p99`` ms (50) with no error. Printed: the
   largest count each held, and their ratio; and for each step where the CPU went once every
   table is open (from one think time after the start to the end of the window), as cores:
   each node, PostgreSQL's processes, the load generator (this process and its client
   processes), their sum against the machine's cores, and the whole machine's busy cores (the
   rest is other processes').
3. **Failover**: ``--failover-clients`` bots (2,000; 2-seat tables, acting ``--failover-think`` ms
   after their state, knowing both nodes' addresses) play on node A; A is killed with SIGKILL
   mid-game. Printed: seconds from the kill until every affected game accepted a decision
   again (a bot saw a newer state; also when half and 90% of them had, and when every one
   could: its mover had the state it then acted on, its think time later), decisions lost
   (a bot's state after the failover older than one it saw before, and gaps in the stored
   decisions), clients that were not back within a minute.

``--stalls`` runs bench/stalls.py's probe in the nodes and the load generator's processes over
each window of part 2 and prints where their event loops stalled (``SELFISH_STALLS_SAMPLE=1``:
with the stacks they stalled in). ``--autogroup-nice N`` runs this session's autogroup and
PostgreSQL's at nice N: where the kernel shares the cores between sessions first, other
sessions' processes at nice 19 do not yield to this one's at nice 0.

Nodes, PostgreSQL and the load generator share this machine's cores: where the cores are the
limit (a 2-core machine), two nodes cannot do twice the work of one, and the counts held say
what the machine holds, not what the design does. The figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import cpu_split  # noqa: E402  (bench/cpu_split.py: where the CPU goes over a window)
import load  # noqa: E402  (bench/load.py: the load generator and its measurement)
import stalls  # noqa: E402  (bench/stalls.py: where an event loop's stalls come from)

from server.bots.client import CreateSpec, HeadlessBot  # noqa: E402

VARIABLE = "SELFISH_BENCH_POSTGRES"


# ---------------------------------------------------------------------- PostgreSQL


@contextmanager
def postgres(fsync: bool = True) -> Iterator[tuple[str, int | None]]:
    """(server URL, postmaster pid or None when it is not ours to measure); without ``fsync``
    our server's commits do not wait for the disk (a diagnosis only)."""
    given = os.environ.get(VARIABLE)
    if given:
        yield given, None
        return
    from tests.postgres import LocalPostgres

    folder = Path(tempfile.mkdtemp(prefix="selfish-bench-pg-"))
    server = LocalPostgres(folder)
    server.start(fsync=fsync)  # by default PostgreSQL's: a commit waits for the disk
    try:
        pid = int((server.data / "postmaster.pid").read_text().split()[0])
        yield server.url(), pid
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def new_database(url: str) -> str:
    """A new empty database on the server of ``url``; returns its URL."""
    import psycopg

    from tests.postgres import with_database

    name = "bench_" + os.urandom(5).hex()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    return with_database(url, name)


def postgres_cpu(postmaster: int | None) -> float:
    """CPU seconds of the PostgreSQL server's processes so far (NaN if not ours)."""
    if postmaster is None:
        return float("nan")
    return sum(
        seconds
        for pid, (parent, seconds) in cpu_split.processes().items()
        if postmaster in (pid, parent)
    )


# ---------------------------------------------------------------------- the scheduler


def autogroup(pid: int | str = "self") -> int | None:
    """The nice of ``pid``'s autogroup (None without autogroups). With
    ``kernel.sched_autogroup_enabled`` the scheduler first shares the cores between sessions
    (one autogroup each, by its own nice), and a process's nice counts only inside its session:
    another session's processes at nice 19 take as much as this one's at nice 0."""
    try:
        with open(f"/proc/{pid}/autogroup") as fh:
            return int(fh.read().rsplit("nice", 1)[1])
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def autogroup_nice(nice: int | None, postmaster: int | None) -> Iterator[None]:
    """With ``nice``: this session's autogroup (the nodes and the load generator: the
    session of this process) and PostgreSQL's (pg_ctl starts it in a session of its own) at
    ``nice`` meanwhile, then this session's back as it was. Negative values need root."""
    before = autogroup()
    if nice is None or before is None:
        yield
        return
    targets = ["self"] + ([str(postmaster)] if postmaster is not None else [])
    for target in targets:
        Path(f"/proc/{target}/autogroup").write_text(str(nice))
    try:
        yield
    finally:
        Path("/proc/self/autogroup").write_text(str(before))


# ---------------------------------------------------------------------- nodes


STALLS = "stalls.json"  # a probed node's summary (bench/stalls.py), in its folder


def node_argv(workdir: Path, clients: int, db: str, lease: float, probe: bool = False) -> list[str]:
    """bench/load.py's selfish-server command line, on ``db``, with leases of ``lease`` s;
    with ``probe``, run through bench/stalls.py (its summary in ``workdir``/STALLS)."""
    argv = load.server_argv(workdir, clients, (f"lease_seconds = {lease!r}",))
    argv[argv.index("--db") + 1] = db
    if probe:
        argv = [sys.executable, str(HERE / "stalls.py"), str(workdir / STALLS), *argv[1:]]
    return argv


def start_nodes(
    workdir: Path, count: int, clients: int, db: str, lease: float, probe: bool = False
) -> list[Any]:
    """``count`` nodes on ``db``, each in its own folder (its config file)."""
    nodes = []
    for index in range(count):
        folder = workdir / f"node{index}-{os.urandom(3).hex()}"
        folder.mkdir()
        argv = node_argv(folder, clients, db, lease, probe)
        nodes.append(load.start_target(f"node{index}", argv, folder, "listening on"))
    return nodes


def node_stalls(node: Any) -> dict[str, Any]:
    """A stopped probed node's summary (bench/stalls.py), or {} without one."""
    path = node.log.parent / STALLS
    return dict(json.loads(path.read_text())) if path.exists() else {}


def measure_nodes(
    nodes: list[Any],
    clients: int,
    seconds: float,
    think: float,
    drain: float,
    postmaster: int | None = None,
    probe: bool = False,
) -> dict[str, Any]:
    """bench/load.py's measurement of every node at once (clients split evenly), pooled; and
    where the CPU went over the window once every table is open (``cpu``, cores: each node,
    PostgreSQL's processes when ``postmaster`` is ours, the load generator: this process and
    its client processes). With ``probe`` the client processes run bench/stalls.py's probe
    (``client_stalls``) and the nodes' probes (started with it) cover the window, from the go."""
    share = clients // len(nodes) // load.SEATS * load.SEATS
    procs = max(1, min(2, share // 400 or 1))
    results: list[dict[str, Any]] = [{} for _ in nodes]
    went = threading.Barrier(len(nodes) + 1)  # every node's window started

    def run(index: int) -> None:
        results[index] = load.measure(
            nodes[index], share, seconds, think, procs, drain, on_go=went.wait, probe=probe
        )

    roots = {node.name: node.proc.pid for node in nodes}
    if postmaster is not None:
        roots["PostgreSQL"] = postmaster
    readings: list[cpu_split.Reading] = []

    def sample() -> None:
        went.wait()
        go = time.monotonic()
        if probe:
            for node in nodes:
                node.proc.send_signal(signal.SIGUSR1)  # bench/stalls.py: the window starts
        # the tables open spread over one think time (bench/load.py): the window after it
        time.sleep(min(think / 1000, seconds / 2))
        readings.append(cpu_split.read(roots, rest="load generator"))
        time.sleep(max(0.0, go + seconds - time.monotonic()))
        readings.append(cpu_split.read(roots, rest="load generator"))
        if probe:  # before the games in play end and the clients leave (not measured)
            for node in nodes:
                node.proc.send_signal(signal.SIGUSR2)  # bench/stalls.py: the window ends

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(nodes))]
    threads.append(threading.Thread(target=sample))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies = sorted(x for r in results for x in r[load.LATENCIES])
    before, after = readings
    return {
        "clients": share * len(nodes),
        "connected": sum(r["connected"] for r in results),
        "decisions_per_second": round(sum(r["decisions_per_second"] for r in results), 1),
        "decisions": sum(r["decisions"] for r in results),
        "rtt_ms_p50": round(load.percentile(latencies, 0.50), 2),
        "rtt_ms_p99": round(load.percentile(latencies, 0.99), 2),
        "errors": sum(r["errors"] for r in results),
        "server_cpu_seconds_play": round(sum(r["server_cpu_seconds_play"] for r in results), 2),
        "server_cpu_us_per_decision": round(
            sum(r["server_cpu_seconds_play"] for r in results)
            / max(1, sum(r["decisions"] for r in results))
            * 1e6,
            1,
        ),
        "cpu_seconds": round(after.at - before.at, 1),
        "cpu": {name: round(cores, 3) for name, cores in cpu_split.split(before, after).items()},
        "client_stalls": stalls.merge([r["client_stalls"] for r in results if r["client_stalls"]]),
    }


# ---------------------------------------------------------------------- 1. store cost


def store_cost(args: argparse.Namespace, workdir: Path, url: str, pm: int | None) -> dict[str, Any]:
    """One node on SQLite, then one on PostgreSQL, under the same load."""
    out: dict[str, Any] = {}
    for engine in ("sqlite", "postgresql"):
        db = str(workdir / "store.sqlite3") if engine == "sqlite" else new_database(url)
        (node,) = start_nodes(workdir, 1, args.store_clients, db, args.lease)
        try:
            # read while the node's sessions live: a backend's CPU leaves /proc with it
            before = postgres_cpu(pm)
            result = measure_nodes([node], args.store_clients, args.seconds, args.think, 2.0)
            pg = postgres_cpu(pm) - before
        finally:
            node.stop()
        decisions = max(1, result["decisions"])
        result["postgres_cpu_us_per_decision"] = round(pg / decisions * 1e6, 1)
        out[engine] = result
        print(
            f"store {engine}: {result['connected']} clients, {result['decisions']} decisions, "
            f"node CPU {result['server_cpu_us_per_decision']} us/decision, PostgreSQL's "
            f"processes {result['postgres_cpu_us_per_decision']} us/decision, act->state p99 "
            f"{result['rtt_ms_p99']} ms",
            flush=True,
        )
    lite, pg = out["sqlite"], out["postgresql"]
    node_extra = pg["server_cpu_us_per_decision"] - lite["server_cpu_us_per_decision"]
    print(
        f"PostgreSQL store per decision: node +{node_extra:.1f} us beside SQLite's "
        f"({pg['server_cpu_us_per_decision']} vs {lite['server_cpu_us_per_decision']}), plus "
        f"{pg['postgres_cpu_us_per_decision']} us in PostgreSQL itself"
    )
    return out


# ---------------------------------------------------------------------- 2. clients held


def held(args: argparse.Namespace, workdir: Path, url: str, pm: int | None) -> dict[str, Any]:
    """The largest step each cluster size holds within the p99 bound, and where the CPU went
    at each step."""
    out: dict[str, Any] = {}
    for size in args.nodes:
        best = 0
        runs = []
        for clients in args.steps:
            db = new_database(url)
            nodes = start_nodes(workdir, size, clients, db, args.lease, args.stalls)
            try:
                result = measure_nodes(
                    nodes, clients, args.seconds, args.think, 2.0, pm, args.stalls
                )
            finally:
                for node in nodes:
                    node.stop()
            if args.stalls:
                result["node_stalls"] = [node_stalls(node) for node in nodes]
            ok = result["rtt_ms_p99"] <= args.p99 and result["errors"] == 0
            result["load_average"] = round(os.getloadavg()[0], 2)
            runs.append(result)
            print(
                f"{size} node(s), {result['connected']} clients: p99 {result['rtt_ms_p99']} ms, "
                f"{result['decisions_per_second']} decisions/s, errors {result['errors']} -> "
                + ("held" if ok else "not held")
                + f" (load average {result['load_average']:.2f})\n  "
                + cpu_split.describe(result["cpu"], result["cpu_seconds"], os.cpu_count() or 1),
                flush=True,
            )
            if args.stalls:
                for node, summary in zip(nodes, result["node_stalls"], strict=True):
                    print("  " + stalls.describe(node.name, summary))
                    for line in stalls.describe_stacks(summary):
                        print("    " + line)
                print("  " + stalls.describe("load generator", result["client_stalls"]))
                worst = [("client", w) for w in result["client_stalls"].get("worst", [])]
                for node, summary in zip(nodes, result["node_stalls"], strict=True):
                    worst += [(node.name, w) for w in summary.get("worst", [])]
                print("  worst stalls: " + "; ".join(f"{n} {w}" for n, w in worst), flush=True)
            if not ok:
                break
            best = clients
        out[f"{size}_nodes"] = {"held": best, "runs": runs}
    if len(args.nodes) < 2:
        return out
    one, two = out["1_nodes"]["held"], out["2_nodes"]["held"]
    ratio = two / one if one else float("nan")
    print(
        f"clients held at p99 <= {args.p99:g} ms, think {args.think:g} ms: one node {one}, "
        f"two nodes {two} ({ratio:.2f}x; goal 1.7x)"
    )
    out["ratio"] = round(ratio, 2)
    return out


# ---------------------------------------------------------------------- 3. failover


@dataclass
class TimedBot(HeadlessBot):
    """A bot that notes when it saw each state (monotonic seconds, version)."""

    seen: list[tuple[float, int]] = field(default_factory=list)
    over: list[float] = field(default_factory=list)  # when it saw each game_over

    async def _on_state(self, state: Any) -> None:
        self.seen.append((time.monotonic(), int(state.version)))
        await super()._on_state(state)

    def _on_game_over(self, over: Any) -> None:
        self.over.append(time.monotonic())
        super()._on_game_over(over)


async def _failover(args: argparse.Namespace, workdir: Path, db: str) -> dict[str, Any]:
    # 2-seat tables: twice the rooms per client that bench/load.py's settings allow for
    a, b = start_nodes(workdir, 2, 2 * args.failover_clients, db, args.lease)
    others = (("127.0.0.1", b.port),)
    tables: list[tuple[TimedBot, TimedBot]] = []
    runs: list[asyncio.Task[Any]] = []
    try:
        for table in range(args.failover_clients // 2):
            codes: asyncio.Queue[str] = asyncio.Queue()
            host = TimedBot(
                "127.0.0.1",
                a.port,
                name=f"H{table}",
                others=others,
                act_delay=args.think / 1000,
                reconnect=60.0,
                seed=table,
                create=CreateSpec("space", 2, 0),
                on_room=codes.put_nowait,
            )
            runs.append(asyncio.create_task(host.run()))
            code = await asyncio.wait_for(codes.get(), 30)
            guest = TimedBot(
                "127.0.0.1",
                a.port,
                name=f"G{table}",
                others=others,
                act_delay=args.think / 1000,
                reconnect=60.0,
                seed=10_000 + table,
                room=code,
            )
            runs.append(asyncio.create_task(guest.run()))
            tables.append((host, guest))
        while sum(1 for h, g in tables if len(h.seen) + len(g.seen) >= 6) < len(tables):
            await asyncio.sleep(0.1)
        killed = time.monotonic()
        a.proc.send_signal(signal.SIGKILL)
        # A table whose game ended before the kill has nothing to fail over: left out (its
        # bots may still be leaving: a leave cut off by the kill is sent again, and answered
        # without a state).
        ended = {i // 2 for i, run in enumerate(runs) if run.done()}
        ended |= {i for i, pair in enumerate(tables) if any(bot.over for bot in pair)}
        tables = [pair for i, pair in enumerate(tables) if i not in ended]
        # Until every bot is back (a state after the kill) and every game went on (a newer
        # state than any seen before it), or a minute passed; the games need not end.
        waiting = list(tables)  # checked again only until each went on: the bots need the CPU
        while time.monotonic() - killed < 60 and waiting:
            waiting = [pair for pair in waiting if not _went_on(*pair, killed)]
            await asyncio.sleep(0.1)
        for run in runs:
            run.cancel()
        outcomes = await asyncio.gather(*runs, return_exceptions=True)
    finally:
        a.stop()
        b.stop()
    failed = sum(1 for pair in tables for bot in pair if not any(t >= killed for t, _ in bot.seen))
    # why the bots that stopped did (a cancelled one was still playing)
    reasons = Counter(
        str(outcome)[:80]
        for outcome in outcomes
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError)
    )
    recoveries = []  # seconds from the kill until each game went on
    # ... and until it could: the state the decision that moved it on was made from
    ready = []
    lost = 0
    for host, guest in tables:
        before = max(v for bot in (host, guest) for t, v in bot.seen if t < killed)
        after = [t for bot in (host, guest) for t, v in bot.seen if t >= killed and v > before]
        if after:
            went_on = min(after)
            recoveries.append(went_on - killed)
            ready.append(
                max(
                    (t for bot in (host, guest) for t, _ in bot.seen if killed <= t < went_on),
                    default=went_on,
                )
                - killed
            )
        for bot in (host, guest):
            mine = [v for t, v in bot.seen if t < killed]
            later = [v for t, v in bot.seen if t >= killed]
            if mine and later and later[0] < mine[-1]:
                lost += mine[-1] - later[0]
    lost += stored_gaps(db)
    recoveries.sort()
    ready.sort()
    return {
        "clients": 2 * len(tables),
        "tables_ended_before_the_kill": len(ended),
        "recovery_seconds": round(recoveries[-1] if recoveries else 0.0, 2),
        "recovery_seconds_p50": round(load.percentile(recoveries, 0.50), 2),
        "recovery_seconds_p90": round(load.percentile(recoveries, 0.90), 2),
        "ready_seconds": round(ready[-1] if ready else 0.0, 2),
        "decisions_lost": lost,
        "clients_failed": failed,
        "failure_reasons": dict(reasons),
    }


def _went_on(host: TimedBot, guest: TimedBot, killed: float) -> bool:
    """Both bots saw a state after the kill, and one a newer state than any before it."""
    before = max(v for bot in (host, guest) for t, v in bot.seen if t < killed)
    back = all(any(t >= killed for t, _ in bot.seen) for bot in (host, guest))
    return back and any(t >= killed and v > before for bot in (host, guest) for t, v in bot.seen)


def stored_gaps(db: str) -> int:
    """Decision numbers missing in the stored games (0: every game's are 0..n-1)."""
    import psycopg

    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT game, count(*), max(n) FROM decisions GROUP BY game")
        return sum(int(top) + 1 - int(count) for _, count, top in rows.fetchall())


def failover(args: argparse.Namespace, workdir: Path, url: str) -> dict[str, Any]:
    """Kill node A under the bots; print the figures."""
    result = asyncio.run(_failover(args, workdir, new_database(url)))
    print(
        f"failover of {result['clients']} clients (lease {args.lease:g} s): every affected game "
        f"took a decision again after {result['recovery_seconds']} s (goal <= 10; half of them "
        f"after {result['recovery_seconds_p50']} s, 90% after {result['recovery_seconds_p90']} "
        f"s; every one could, its mover back in its seat with a state to act on, after "
        f"{result['ready_seconds']} s: the rest is the bots' think time); decisions "
        f"lost {result['decisions_lost']} (must be 0); clients that did not come back "
        f"{result['clients_failed']} (goal 0)"
        + (f"; bots stopped by: {result['failure_reasons']}" if result["failure_reasons"] else "")
    )
    return result


# ---------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and print their figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--think", type=float, default=5000.0, help="ms from a state to the act (5000)")
    p.add_argument("--seconds", type=float, default=20.0, help="window of each load run (20)")
    p.add_argument("--p99", type=float, default=50.0, help="act->state p99 bound in ms (50)")
    p.add_argument(
        "--steps",
        default="1000,2000,4000,5000,6000,7000,8000,10000",
        help="client counts tried in turn, until one is not held (1000,2000,4000,...,10000)",
    )
    p.add_argument(
        "--nodes",
        type=lambda text: sorted({int(n) for n in text.split(",")} & {1, 2}),
        default=[1, 2],
        help="clients held: the cluster sizes measured (1,2; one alone to split a long run)",
    )
    p.add_argument("--store-clients", type=int, default=2000, help="clients of part 1 (2000)")
    p.add_argument("--failover-clients", type=int, default=2000, help="bots of part 3, even (2000)")
    p.add_argument("--failover-think", type=float, default=1000.0, help="bots' ms per act (1000)")
    p.add_argument("--lease", type=float, default=5.0, help="nodes' lease_seconds (5)")
    p.add_argument(
        "--no-fsync",
        action="store_true",
        help="start PostgreSQL with fsync off: what the disk's flushes cost (a diagnosis)",
    )
    p.add_argument(
        "--only",
        action="append",
        choices=["store", "held", "failover"],
        help="run only this part (repeatable; default: all three)",
    )
    p.add_argument(
        "--stalls",
        action="store_true",
        help="clients held: run bench/stalls.py's probe in the nodes and the load generator's "
        "processes, and print their collector pauses, loop lag and stalls by cause",
    )
    p.add_argument(
        "--autogroup-nice",
        type=int,
        help="run this session's autogroup and PostgreSQL's at this nice (where the kernel "
        "groups processes by session: other sessions' nice 19 does not yield to this one's "
        "nice 0; negative values need root)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object last")
    args = p.parse_args(argv)
    parts = set(args.only or ["store", "held", "failover"])
    args.steps = [max(load.SEATS, int(n) // load.SEATS * load.SEATS) for n in args.steps.split(",")]
    out: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="selfish-cluster-") as tmp,
        postgres(not args.no_fsync) as (url, pm),
        autogroup_nice(args.autogroup_nice, pm),
    ):
        workdir = Path(tmp)
        print(
            f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
            f"autogroups: this session's nice {autogroup()}, PostgreSQL's "
            f"{autogroup(pm) if pm is not None else '-'}",
            flush=True,
        )
        if "store" in parts:
            out["store"] = store_cost(args, workdir, url, pm)
        if "held" in parts:
            out["held"] = held(args, workdir, url, pm)
        if "failover" in parts:
            args.think = args.failover_think
            out["failover"] = failover(args, workdir, url)
    out["cores"] = os.cpu_count()
    if args.json:
        print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
