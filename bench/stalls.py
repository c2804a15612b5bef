"""Where an event loop's stalls come from: a probe for a benchmark's processes.

    python bench/stalls.py OUT.json ARGS...   # selfish-server ARGS, with the probe

:class:`Probe` times each cyclic garbage collection (``gc.callbacks``, by generation; with the
objects it found unreachable, which only the collector frees: reference cycles) and runs a
lag probe on the event loop: a callback due every ``period`` seconds notes how late it ran. A
late tick (a *stall*, over ``STALL_MS``) is split by where the loop's thread was meanwhile, from
``/proc/thread-self/schedstat``: running (a slow callback, the collector), waiting for a core
(the scheduler gave it to another process), or neither (blocked: a system call, a lock, the GIL
held by another thread); and the collector's share of it is noted. bench/load.py's client
processes and bench/cluster.py's nodes run it with ``--stalls``; the server runs it through the
command line above, which forgets the figures so far on SIGUSR1 (a window starts), stops on
SIGUSR2 (it ends) and writes their summary to ``OUT.json`` when the server stops.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

PERIOD = 0.005  # seconds between the lag probe's ticks
STALL_MS = 20.0  # a tick this late is a stall, split by cause
SAMPLE_FRAMES = 10  # innermost frames of a stalled loop's stack noted


def _schedstat() -> tuple[float, float]:
    """(seconds on a core, seconds waiting for one) of the calling thread so far."""
    try:
        with open("/proc/thread-self/schedstat") as fh:
            running, waiting, _ = fh.read().split()
    except OSError:  # no schedstat (another OS, a kernel without it)
        return math.nan, math.nan
    return int(running) / 1e9, int(waiting) / 1e9


class Probe:
    """The collector's pauses and the loop's lag, in the process and loop it was started in."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}  # ms, by generation
        self.freed: dict[int, int] = {0: 0, 1: 0, 2: 0}  # unreachable objects it found (cycles)
        self.lags: list[float] = []  # ms each tick ran late
        self.stalls: list[dict[str, float]] = []
        self._gc_start = 0.0
        self._gc_total = 0.0  # seconds in the collector so far
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0
        self._at: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
        self.stacks: Counter[tuple[str, ...]] = Counter()  # where a stalled loop was
        self._sampler: threading.Thread | None = None
        self._stopping = threading.Event()

    def start(self, loop: asyncio.AbstractEventLoop, sample: bool = False) -> None:
        """Time the collector and probe ``loop`` (call it on the loop's thread); with
        ``sample``, a thread notes every ``PERIOD`` where the loop's thread is while it is over
        ``STALL_MS`` / 2 late (:attr:`stacks`)."""
        gc.callbacks.append(self._gc)
        self._loop = loop
        self._tick_next(time.perf_counter())
        if sample:
            ident = threading.get_ident()
            self._sampler = threading.Thread(target=self._sample, args=(ident,), daemon=True)
            self._sampler.start()

    def _sample(self, ident: int) -> None:
        while not self._stopping.wait(PERIOD):
            if (time.perf_counter() - self._due) * 1000 < STALL_MS / 2:
                continue
            frame = sys._current_frames().get(ident)
            if frame is None:
                continue
            where = traceback.extract_stack(frame)[-SAMPLE_FRAMES:]
            self.stacks[tuple(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in where)] += 1

    def reset(self) -> None:
        """Forget the figures so far (a measurement's window starts)."""
        self.pauses = {0: [], 1: [], 2: []}
        self.freed = {0: 0, 1: 0, 2: 0}
        self.lags = []
        self.stalls = []
        self.stacks = Counter()

    def stop(self) -> None:
        """Stop probing (the figures stay)."""
        self._stopping.set()
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_start = now
        else:
            self._gc_total += now - self._gc_start
            self.pauses[int(info["generation"])].append((now - self._gc_start) * 1000)
            self.freed[int(info["generation"])] += int(info["collected"])

    def _tick_next(self, now: float) -> None:
        assert self._loop is not None
        running, waiting = _schedstat()
        self._at = (now, running, waiting, self._gc_total)
        self._due = now + PERIOD
        self._handle = self._loop.call_later(PERIOD, self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        lag = max(0.0, now - self._due) * 1000
        self.lags.append(lag)
        if lag > STALL_MS:
            before, running0, waiting0, gc0 = self._at
            running, waiting = _schedstat()
            wall = now - before
            self.stalls.append(
                {
                    "at": now,
                    "ms": lag,
                    "running_ms": (running - running0) * 1000,
                    "waiting_ms": (waiting - waiting0) * 1000,
                    "blocked_ms": (wall - (running - running0) - (waiting - waiting0)) * 1000,
                    "gc_ms": (self._gc_total - gc0) * 1000,
                }
            )
        self._tick_next(now)

    def summary(self) -> dict[str, Any]:
        """The figures: the collections by generation (count, total and largest pause, ms), the
        lag's p50/p99/max (ms), and the stalls' count and causes summed (ms)."""
        lags = sorted(self.lags)
        causes = ("running_ms", "waiting_ms", "blocked_ms", "gc_ms")
        return {
            "gc": {
                str(g): {
                    "count": len(p),
                    "total_ms": round(sum(p), 1),
                    "max_ms": round(max(p, default=0.0), 1),
                    "freed": self.freed[g],
                }
                for g, p in self.pauses.items()
            },
            "lag_ms_p50": round(_rank(lags, 0.50), 2),
            "lag_ms_p99": round(_rank(lags, 0.99), 2),
            "lag_ms_max": round(lags[-1] if lags else math.nan, 1),
            "stalls": len(self.stalls),
            "stall_ms": round(sum(s["ms"] for s in self.stalls), 1),
            **{f"stall_{cause}": round(sum(s[cause] for s in self.stalls), 1) for cause in causes},
            "worst": sorted(
                ({k: round(v, 1) for k, v in s.items() if k != "at"} for s in self.stalls),
                key=lambda s: -s["ms"],
            )[:5],
            "stacks": [[n, list(where)] for where, n in self.stacks.most_common(12)],
        }


def _rank(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    return values[max(0, math.ceil(q * len(values)) - 1)]


def merge(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Several processes' summaries as one: counts and sums added, maxima and p99s the
    largest (a p99 of p99s: the worst process's)."""
    if not summaries:
        return {}
    out: dict[str, Any] = {"processes": len(summaries), "gc": {}}
    for g in ("0", "1", "2"):
        parts = [s["gc"][g] for s in summaries]
        out["gc"][g] = {
            "count": sum(p["count"] for p in parts),
            "total_ms": round(sum(p["total_ms"] for p in parts), 1),
            "max_ms": max(p["max_ms"] for p in parts),
            "freed": sum(p.get("freed", 0) for p in parts),
        }
    for key in ("lag_ms_p50", "lag_ms_p99", "lag_ms_max"):
        out[key] = max(s[key] for s in summaries)
    for key in summaries[0]:
        if key.startswith("stall"):
            out[key] = round(sum(s[key] for s in summaries), 1)
    out["worst"] = sorted((w for s in summaries for w in s["worst"]), key=lambda w: -w["ms"])[:5]
    return out


def describe(name: str, s: dict[str, Any]) -> str:
    """One line for a summary (see :meth:`Probe.summary` and :func:`merge`)."""
    if not s:
        return f"{name}: no probe"
    gc_part = ", ".join(
        f"gen{g} {p['count']}x max {p['max_ms']:g} ms freeing {p.get('freed', 0)} objects"
        for g, p in s["gc"].items()
        if p["count"]
    )
    return (
        f"{name}: loop lag p50 {s['lag_ms_p50']:g} p99 {s['lag_ms_p99']:g} max "
        f"{s['lag_ms_max']:g} ms; GC {gc_part or 'none'}; {s['stalls']:g} stalls > "
        f"{STALL_MS:g} ms totalling {s['stall_ms']:g} ms: running {s['stall_running_ms']:g}, "
        f"waiting for a core {s['stall_waiting_ms']:g}, blocked {s['stall_blocked_ms']:g} "
        f"(of which GC {s['stall_gc_ms']:g})"
    )


def describe_stacks(s: dict[str, Any], top: int = 8) -> list[str]:
    """The ``top`` stacks a stalled loop was seen in most (with ``SELFISH_STALLS_SAMPLE``),
    innermost frame last, each with its samples."""
    return [
        f"{n} samples: " + " < ".join(reversed(where)) for n, where in s.get("stacks", [])[:top]
    ]


def _server(out: Path, argv: list[str]) -> int:
    """Run ``selfish-server`` with a probe on its loop; write the summary to ``out``."""
    from server import cli

    serve = cli.serve
    probe = Probe()

    async def probed(*args: Any, **kwargs: Any) -> int:
        loop = asyncio.get_running_loop()
        probe.start(loop, sample=bool(os.environ.get("SELFISH_STALLS_SAMPLE")))
        loop.add_signal_handler(signal.SIGUSR1, probe.reset)  # the window starts
        loop.add_signal_handler(signal.SIGUSR2, probe.stop)  # and ends
        try:
            return await serve(*args, **kwargs)
        finally:
            probe.stop()
            out.write_text(json.dumps(probe.summary()))

    cli.serve = probed
    return cli.main(argv)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(_server(Path(sys.argv[1]), sys.argv[2:]))
