"""Where a machine's CPU goes during a benchmark window: each group of processes' CPU (utime +
stime from /proc, children included as they stand at each reading) as cores, beside the whole
machine's busy time (/proc/stat), whose rest is other processes', and the part of it spent at a
positive nice (processes that yield the CPU to the benchmark's, which run at nice 0).

A group is a root process and every process under it. A process that ends inside the window
takes its CPU with it (a PostgreSQL backend of a closed connection): the figures are a floor.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Reading:
    """CPU seconds so far: of each group, and of the whole machine (busy, every core; and of
    that, at a positive nice)."""

    at: float  # time.monotonic()
    groups: dict[str, float]
    machine: float
    niced: float


def processes() -> dict[int, tuple[int, float]]:
    """Every process: pid -> (parent pid, CPU seconds so far)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        table[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return table


def subtree(table: Mapping[int, tuple[int, float]], root: int) -> set[int]:
    """``root`` and every process under it in ``table``."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in table and pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def machine_busy() -> tuple[float, float]:
    """CPU seconds every core of the machine spent busy so far (/proc/stat: all but idle and
    iowait), and of those, in processes of positive nice."""
    with open("/proc/stat") as fh:
        ticks = [int(x) for x in fh.readline().split()[1:]]
    idle = ticks[3] + ticks[4]
    return (sum(ticks[:8]) - idle) / CLK_TCK, ticks[1] / CLK_TCK


def read(roots: Mapping[str, int], rest: str | None = None) -> Reading:
    """The CPU of each group named in ``roots`` (its root pid's subtree); with ``rest``, a
    group of that name holds this process's subtree but for the other groups' processes."""
    table = processes()
    taken: set[int] = set()
    groups = {}
    for name, root in roots.items():
        pids = subtree(table, root)
        taken |= pids
        groups[name] = sum(table[pid][1] for pid in pids)
    if rest is not None:
        pids = subtree(table, os.getpid()) - taken
        groups[rest] = sum(table[pid][1] for pid in pids)
    return Reading(time.monotonic(), groups, *machine_busy())


def split(before: Reading, after: Reading) -> dict[str, float]:
    """Cores each group used between two readings, their ``sum``, the ``machine``'s busy
    cores, the ``others`` (the machine's less the groups') and of the machine's, those at a
    positive nice (``niced``)."""
    seconds = max(1e-9, after.at - before.at)
    cores = {
        name: (after.groups[name] - before.groups.get(name, 0.0)) / seconds for name in after.groups
    }
    total = sum(cores.values())
    machine = (after.machine - before.machine) / seconds
    niced = (after.niced - before.niced) / seconds
    return {**cores, "sum": total, "machine": machine, "others": machine - total, "niced": niced}


def describe(cores: Mapping[str, float], seconds: float, available: int) -> str:
    """One line: each group's cores, their sum against ``available``, the machine's."""
    groups = ", ".join(
        f"{name} {value:.2f}"
        for name, value in cores.items()
        if name not in ("sum", "machine", "others", "niced")
    )
    return (
        f"CPU over {seconds:.0f} s, as cores: {groups}; sum {cores['sum']:.2f} of {available}; "
        f"whole machine busy {cores['machine']:.2f} (others {cores['others']:.2f}, of which "
        f"{cores['niced']:.2f} at a positive nice)"
    )
