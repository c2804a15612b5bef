"""Play `selfish play` to the end in a real terminal (tmux), by the keys the screen shows.

A scripted person: it reads the pane (``tmux capture-pane -p``), finds the prompt box and the
choices with their keys, waits while a prompt is marked *new*, presses one of the keys shown
(moving on more often than not), answers the dialogs by the keys they show, opens help once
mid-game and once from the game-over dialog, and quits with the key the dialog shows. It
prints figures and anything that looked wrong:

* decisions made, turns, seconds; key-to-screen (until the pane changes) median and max;
* help: key to the help on screen, from the table and from the game-over dialog;
* "since your last turn" blocks seen; keys that changed nothing; cut status lines.

    python bench/tmux_play.py [--edition space] [--size 80x24] [--seed 3] [--level basic]
                              [--session play-2]

Needs tmux. The game runs with its own XDG_DATA_HOME (a fresh temporary one unless given), so
no unfinished game of yours is asked about or closed.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CORNERS = "┏╔╭"
VERTICALS = "┃║│"
TITLES = (
    "Your move",
    "Reaction",
    "Shark pick",
    "Hurricane",
    "Take a card",
    "Pay",
    "Meteoroid",
    "Swap",
    "Shark Bait",
    "Freeloader",
)
CHOICE = re.compile(r"^([0-9a-z]) (\S.*)$")  # selfish_tui.choice_keys
WEIGHTS = {"m": 8, "e": 3, "s": 2}


def tmux(*args: str) -> str:
    """Run a tmux command; its output."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def capture(session: str) -> list[str]:
    """The pane's lines as a person sees them."""
    return tmux("capture-pane", "-p", "-t", session).splitlines()


def press(session: str, key: str) -> None:
    """One key, as tmux names it."""
    tmux("send-keys", "-t", session, key)


@dataclass
class Prompt:
    """The prompt box: its title and the choices it shows, with their keys."""

    title: str
    lines: list[str]
    choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def new(self) -> bool:
        """Marked new: it takes keys after a moment."""
        return "· new" in self.title


def find_prompt(screen: list[str]) -> Prompt | None:
    """The prompt box on screen (its top border names one of TITLES), or None."""
    for top, line in enumerate(screen):
        for column, char in enumerate(line):
            if char not in CORNERS or column < 20:
                continue
            head = line[column:]
            title = next((t for t in TITLES if t in head), None)
            if title is None:
                continue
            lines = []
            for row in screen[top + 1 :]:
                if len(row) <= column or row[column] not in VERTICALS:
                    break
                inside = row[column + 1 :]
                end = max(inside.rfind(v) for v in VERTICALS)
                lines.append((inside[:end] if end >= 0 else inside).rstrip())
            prompt = Prompt(head.strip(CORNERS + "━═─┓╗╮ "), lines)
            for text in lines:
                found = CHOICE.match(text)
                if found:
                    prompt.choices.append((found.group(1), found.group(2)))
            return prompt
    return None


def pick(choices: list[tuple[str, str]], rng: random.Random) -> str:
    """A key among those shown: never a fatal one while another exists; moving on likeliest."""
    safe = [c for c in choices if "☠" not in c[1]] or choices
    weights = [WEIGHTS.get(key, 3 if label.startswith("Play") else 2) for key, label in safe]
    return rng.choices([key for key, _ in safe], weights)[0]


def changed(session: str, before: list[str], timeout: float) -> float | None:
    """Seconds until the pane differs from ``before``; None if it did not in ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if capture(session) != before:
            return time.monotonic() - start
        time.sleep(0.005)
    return None


def wait_for_text(session: str, text: str, timeout: float) -> float | None:
    """Seconds until ``text`` is on screen; None if it was not in ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if any(text in line for line in capture(session)):
            return time.monotonic() - start
        time.sleep(0.005)
    return None


def main() -> int:
    """Play one game and print what was seen."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="space")
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--level", default="basic", help="the bots' level (basic)")
    parser.add_argument("--session", default="play-2")
    parser.add_argument("--data", default=None, help="XDG_DATA_HOME for the game")
    parser.add_argument("--seconds", type=float, default=900.0)
    parser.add_argument("--keep", default="/tmp/play-tmux", help="where to save screens")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    data = args.data or tempfile.mkdtemp(prefix="selfish-tmux-")
    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    command = (
        f"env XDG_DATA_HOME={shlex.quote(data)} SELFISH_LAN_INTERFACE=127.0.0.1 "
        f"{shlex.quote(sys.executable)} -m selfish_tui.cli play --edition {args.edition} "
        f"--level {args.level} --seed {args.seed} --name Tester; sleep 30"
    )
    tmux("kill-session", "-t", args.session)
    tmux("new", "-d", "-s", args.session, "-x", str(width), "-y", str(height), command)
    rng = random.Random(args.seed)
    started = time.monotonic()
    latencies: list[float] = []
    problems: list[str] = []
    decisions = 0
    summaries = 0
    help_table: float | None = None
    help_over: float | None = None
    help_again: float | None = None
    seen_prompt: tuple[str, ...] | None = None
    seen_at = 0.0
    last_log: tuple[str, ...] = ()
    shots = 0

    def save(name: str, screen: list[str]) -> None:
        (keep / f"{args.session}-{name}.txt").write_text("\n".join(screen) + "\n")

    while time.monotonic() - started < args.seconds:
        screen = capture(args.session)
        text = "\n".join(screen)
        status = screen[-2] if len(screen) >= 2 else ""
        if status.rstrip().endswith("…"):
            problems.append(f"status line cut: {status.strip()!r}")
        log_now = tuple(line for line in screen if "Since your last turn" in line)
        if log_now and log_now != last_log:
            summaries += 1
            if summaries <= 3:
                save(f"since-{summaries}", screen)
        last_log = log_now
        if "Game over" in text and "view the board" in text:
            save("game-over", screen)
            if "? help" in text:
                time.sleep(1.0)  # a person reads the result first
                for _ in range(2):
                    press(args.session, "?")
                    opened = wait_for_text(args.session, "Selfish — help", 5)
                    help_over = opened if help_over is None else help_over
                    help_again = opened
                    press(args.session, "Escape")
                    wait_for_text(args.session, "view the board", 5)
                    time.sleep(0.5)
            press(args.session, "l")  # the dialog shows "l quit" in local play
            break
        if "(y)" in text and "(n)" in text:
            # the script never picks a fatal choice while another exists: this one is forced
            press(args.session, "y")
            time.sleep(0.2)
            continue
        if "(r)" in text and "(c)" in text:
            press(args.session, "n")
            time.sleep(0.2)
            continue
        prompt = find_prompt(screen)
        if prompt is None or not prompt.choices:
            time.sleep(0.05)
            continue
        shown = (prompt.title, *prompt.lines)  # marked new again after a dialog: wait again
        if shown != seen_prompt:
            seen_prompt, seen_at = shown, time.monotonic()
        if prompt.new and time.monotonic() - seen_at < 0.4:
            time.sleep(0.05)  # a person waits a moment for a prompt marked new
            continue
        if help_table is None and decisions == 3:
            press(args.session, "?")
            help_table = wait_for_text(args.session, "Selfish — help", 5)
            save("help", capture(args.session))
            press(args.session, "Escape")
            wait_for_text(args.session, prompt.title.split(" · ")[0], 5)
            # Back from help the prompt is marked new again and ignores keys for a moment
            # (issue 14 item 1), though it reads the same: wait as for a new one.
            seen_prompt = None
            continue
        key = pick(prompt.choices, rng)
        press(args.session, key)
        took = changed(args.session, screen, 3.0)
        # Answered: the next prompt is new even if it reads the same (a second Tether in a row).
        seen_prompt = None
        if took is None:
            problems.append(f"key {key!r} changed nothing: {prompt.title} {prompt.choices}")
            save(f"dead-{len(problems)}", screen)
        else:
            latencies.append(took)
            decisions += 1
            if shots < 2 and decisions in (10, 30):
                shots += 1
                save(f"mid-{decisions}", capture(args.session))
    else:
        problems.append("the game did not end in time")
        save("timeout", capture(args.session))
    elapsed = time.monotonic() - started
    time.sleep(1.0)
    still = [line for line in capture(args.session) if line.strip()]
    quit_ok = not any("Game over" in line for line in still)
    tmux("kill-session", "-t", args.session)
    print(f"{args.edition} {args.size}: {decisions} decisions in {elapsed:.0f} s")
    if latencies:
        print(
            f"  key to screen: median {1000 * statistics.median(latencies):.0f} ms, "
            f"max {1000 * max(latencies):.0f} ms (tmux capture every 5 ms)"
        )
    for name, value in (
        ("table", help_table),
        ("game-over dialog", help_over),
        ("game-over dialog, again", help_again),
    ):
        shown = "not opened" if value is None else f"{1000 * value:.0f} ms"
        print(f"  help from the {name}: {shown}")
    print(f"  'since your last turn' blocks seen: {summaries}")
    print(f"  quit from the game-over dialog: {'yes' if quit_ok else 'NO'}")
    for problem in dict.fromkeys(problems):
        print(f"  PROBLEM: {problem}")
    print(f"  screens kept in {keep}/{args.session}-*.txt")
    return 0 if not problems and quit_ok else 1


if __name__ == "__main__":
    os.environ.setdefault("SELFISH_LAN_INTERFACE", "127.0.0.1")
    sys.exit(main())
