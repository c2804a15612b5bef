"""bench/load.py runs end to end: a real selfish-server and the bare baseline, measured in turn.

Only that the harness works and reports what it promises is checked here; its figures are for
people to read (docs/server.md), never asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_load_bench_measures_server_and_baseline_in_rounds() -> None:
    # 72 clients: each round's are new identities, more than one round's limits plus their
    # margin of 64 would admit
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            "--clients",
            "72",
            "--seconds",
            "1",
            "--rounds",
            "2",
            "--think",
            "0",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "round 2 of 2" in run.stdout
    out = json.loads(run.stdout.strip().splitlines()[-1])
    server, baseline = out["server"], out["baseline"]
    for result in (server, baseline):
        assert result["rounds"] == 2 and result["connected"] == 72 and result["errors"] == 0
        assert result["decisions"] > 0 and "_latencies" not in result
        assert result["decisions_per_second"] == round(
            result["decisions_window"] / result["seconds"], 1
        )
    assert server["games_finished"] == server["games_started"] > 0
    assert len(out["rounds_ratio_to_baseline"]) == 2
    assert out["ratio_to_baseline"] == round(
        server["decisions_per_second"] / baseline["decisions_per_second"], 3
    )
