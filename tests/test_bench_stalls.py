"""bench/stalls.py's probe sees what stops an event loop: the collector's pauses by generation
(with what they freed), and a loop whose thread is blocked, as a stall with its cause. Its
figures are for people to read (docs/operations.md); only that it tells these apart is checked
here."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _stalls() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stalls", ROOT / "bench" / "stalls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_probe_counts_collections_and_splits_a_blocked_loops_stall() -> None:
    stalls = _stalls()

    async def probed() -> dict[str, Any]:
        probe = stalls.Probe()
        probe.start(asyncio.get_running_loop(), sample=True)
        await asyncio.sleep(0.05)
        cycle: list[Any] = []
        cycle.append(cycle)  # garbage only the collector frees
        del cycle
        gc.collect()  # a full collection, in the loop's thread
        time.sleep(0.3)  # the loop's thread blocked (as by a synchronous round trip)
        await asyncio.sleep(0.05)
        probe.stop()
        summary: dict[str, Any] = probe.summary()
        return summary

    summary = asyncio.run(probed())
    assert summary["gc"]["2"]["count"] >= 1 and summary["gc"]["2"]["freed"] >= 1
    assert summary["stalls"] >= 1 and summary["lag_ms_max"] > stalls.STALL_MS
    assert summary["stall_blocked_ms"] > summary["stall_running_ms"]  # asleep, not running
    assert any("probed" in " ".join(where) for _, where in summary["stacks"])  # where it was
    merged = stalls.merge([summary, summary])
    assert merged["processes"] == 2 and merged["stalls"] == 2 * summary["stalls"]
    assert merged["gc"]["2"]["freed"] == 2 * summary["gc"]["2"]["freed"]
    assert "loop lag" in stalls.describe("node0", merged)
