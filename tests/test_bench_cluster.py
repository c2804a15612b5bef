"""bench/cluster.py runs end to end on a real PostgreSQL: store cost, clients held, failover.

Only that the harness works and reports what it promises is checked here; its figures are for
people to read (docs/operations.md), never asserted, except that a failover loses nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_cluster_bench_prints_its_three_measurements(postgres_server_url: str) -> None:
    command = [sys.executable, str(ROOT / "bench" / "cluster.py"), "--json"]
    command += ["--steps", "8", "--store-clients", "8", "--failover-clients", "4"]
    command += ["--seconds", "1", "--think", "200", "--failover-think", "100", "--lease", "1"]
    command += ["--stalls"]  # bench/stalls.py's probe in the nodes and the load generator
    env = {**os.environ, "SELFISH_BENCH_POSTGRES": postgres_server_url}
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    for line in ("PostgreSQL store per decision", "clients held at p99", "failover of 4"):
        assert line in run.stdout, run.stdout
    for probed in ("node0: loop lag", "node1: loop lag", "load generator: loop lag"):
        assert probed in run.stdout, run.stdout
    held = json.loads(run.stdout.strip().splitlines()[-1])["held"]["2_nodes"]["runs"][0]
    assert len(held["node_stalls"]) == 2 and held["client_stalls"]["processes"] >= 1
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(out["store"]) == {"sqlite", "postgresql"}
    assert out["failover"]["decisions_lost"] == 0 and out["failover"]["clients_failed"] == 0
