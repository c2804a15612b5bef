"""Play a whole game in a real terminal (tmux), by the keys the screen shows, in either language.

A scripted person: it reads the pane (``tmux capture-pane -p``, cut into terminal cells so that
Chinese text counts two columns), finds the prompt box and the choices with their keys, waits
while a prompt is marked *new*, presses one of the keys shown (moving on more often than not),
answers the dialogs by the keys they show, opens help once mid-game and once from the game-over
dialog, and quits with the key the dialog shows. Everything it reads is looked up in the
client's own catalog for ``--lang``, so it reads the Chinese screens as it reads the English.

Two scenarios:

* default: `selfish play` (an embedded server, three bots) to the end; with ``--tutorial``,
  `selfish play --tutorial`, closing each lesson with Enter and printing when each came;
* ``--leaver``: a `selfish-server` process, and a player who connects to it
  (`selfish connect --identity FILE`), creates a room by the lobby's keys (two bots, then one
  more from the waiting room), starts it, plays ``--leave-after`` decisions, then leaves
  mid-game — ctrl+q and yes (``--how quit``) or the terminal killed (``--how kill``) — stays
  away ``--away`` seconds, connects again with the same identity file and plays to the end.
  It does not depend on what the server does with the empty seat meanwhile (with nobody else
  connected the game waits; with others there, the seat's bot takes over after the room's left
  grace and gives it back on return): it checks that the returning player is back at the same
  room's table and deciding.

It prints figures and anything that looked wrong:

* decisions made, turns, seconds; key-to-screen (until the pane changes) median and max;
* help: key to the help on screen, from the table and from the game-over dialog;
* "since your last turn" blocks seen; keys that changed nothing; cut status lines;
* with ``--leaver``: decisions before and after, seconds away, seconds from the command to the
  table and to our next prompt, and whether the room and the seat were ours again.

    python bench/tmux_play.py [--edition space] [--lang en|zh] [--size 80x24] [--seed 3]
                              [--level basic] [--session play-2] [--tutorial]
    python bench/tmux_play.py --leaver [--how quit|kill] [--leave-after 8] [--away 5]
                              [--bot-delay 1.0] [--lang zh]

Needs tmux. The game runs with its own XDG_DATA_HOME (a fresh temporary one unless given), so
no unfinished game of yours is asked about or closed; the server of ``--leaver`` keeps its
database there too and is stopped at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from selfish_tui import i18n
from selfish_tui.i18n import _, pgettext
from selfish_tui.widgets.prompt import titles

CORNERS = "┏╔╭"
VERTICALS = "┃║│"
CHOICE = re.compile(r"^([0-9a-z]) (\S.*)$")  # selfish_tui.choice_keys
CODE = re.compile(r"(?<![A-Z])([A-Z]{12}|[A-Z]{4})(?![A-Z])")
WEIGHTS = {"m": 8, "e": 3, "s": 2}


@dataclass(frozen=True)
class Words:
    """What the person reads on screen, in the game's language (from the client's catalog)."""

    titles: tuple[str, ...]
    new_mark: str
    game_over: str
    rematch: str
    help_hint: str
    help_title: str
    since: str
    yes: str
    no: str
    resume: str
    cancel: str
    play: str
    new_room: str
    dialog: str
    start: str
    strips: str
    lesson_keys: str
    offer: str
    lesson_title: str

    @staticmethod
    def of(language: str) -> Words:
        """The words of ``language`` ('en' or 'zh')."""
        i18n.set_language(language)
        try:
            return Words(
                titles=(_("Your move"), *titles().values()),
                new_mark=_("{title} · new").split("{title}")[1],
                game_over=_("Game over"),
                rematch=_("rematch"),
                help_hint="? " + _("Help"),  # the footer's key and its binding's name
                help_title=_("Selfish — help ({title})").split("{title}")[0].rstrip("(\uff08 "),
                since=pgettext("since", "Since your last turn"),
                yes=_("{yes} (y)").replace("{yes}", ""),
                no=_("{no} (n)").replace("{no}", ""),
                resume=pgettext("resume", "Resume (r)"),
                cancel=pgettext("resume", "Cancel (c)"),
                play=pgettext("choice", "Play {card}").split("{card}")[0],
                new_room=_("New room"),
                dialog=_("Turn timer"),
                start=_("Start"),
                strips=_("Strips"),
                lesson_keys=pgettext("tutorial", "Enter: go on"),
                offer=pgettext("tutorial", "Normal game (n)"),
                lesson_title=pgettext("tutorial", "Tutorial {number}/{total} · {title}").split(
                    "{number}"
                )[0],
            )
        finally:
            i18n.set_language("en")


def tmux(*args: str) -> str:
    """Run a tmux command; its output."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def cells(line: str) -> str:
    """The line with a filler after every wide character, so that string index = column."""
    out = []
    for char in line:
        out.append(char)
        if unicodedata.east_asian_width(char) in "WF":
            out.append("\0")
    return "".join(out)


def capture(session: str) -> list[str]:
    """The pane's lines as a person sees them, one string index per terminal column."""
    return [cells(line) for line in tmux("capture-pane", "-p", "-t", f"={session}:").splitlines()]


def plain(text: str) -> str:
    """A captured line without the fillers of wide characters."""
    return text.replace("\0", "")


def press(session: str, *keys: str) -> None:
    """Keys, as tmux names them."""
    tmux("send-keys", "-t", f"={session}:", *keys)


@dataclass
class Prompt:
    """The prompt box: its title and the choices it shows, with their keys."""

    title: str
    lines: list[str]
    new: bool
    choices: list[tuple[str, str]] = field(default_factory=list)


def find_prompt(screen: list[str], words: Words) -> Prompt | None:
    """The prompt box on screen (its top border names one of the titles), or None."""
    for top, line in enumerate(screen):
        for column, char in enumerate(line):
            if char not in CORNERS or column < 20:
                continue
            head = plain(line[column:])
            title = next((t for t in words.titles if t in head), None)
            if title is None:
                continue
            lines = []
            for row in screen[top + 1 :]:
                if len(row) <= column or row[column] not in VERTICALS:
                    break
                inside = row[column + 1 :]
                end = max(inside.rfind(v) for v in VERTICALS)
                lines.append(plain(inside[:end] if end >= 0 else inside).rstrip())
            prompt = Prompt(head.strip(CORNERS + "━═─┓╗╮ "), lines, words.new_mark in head)
            for text in lines:
                found = CHOICE.match(text)
                if found:
                    prompt.choices.append((found.group(1), found.group(2)))
            return prompt
    return None


def pick(choices: list[tuple[str, str]], rng: random.Random, words: Words) -> str:
    """A key among those shown: never a fatal one while another exists; moving on likeliest."""
    safe = [c for c in choices if "☠" not in c[1]] or choices
    weights = [WEIGHTS.get(key, 3 if label.startswith(words.play) else 2) for key, label in safe]
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
        if any(text in plain(line) for line in capture(session)):
            return time.monotonic() - start
        time.sleep(0.005)
    return None


@dataclass
class Person:
    """A scripted person at one tmux session; keeps the figures of everything it did."""

    session: str
    words: Words
    rng: random.Random
    keep: Path
    local: bool  # `selfish play` (the game-over dialog's l quits) or connected (l leaves)
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    decisions: int = 0
    summaries: int = 0
    shots: int = 0
    help_table: float | None = None
    help_over: float | None = None
    help_again: float | None = None
    code: str | None = None  # the room code the status line shows
    lessons: list[tuple[str, float]] = field(default_factory=list)  # tutorial: title, second

    def save(self, name: str, screen: list[str]) -> None:
        """Keep a screen for reading afterwards."""
        text = "\n".join(plain(line) for line in screen) + "\n"
        (self.keep / f"{self.session}-{name}.txt").write_text(text)

    def play(self, seconds: float, stop: Callable[[Prompt], bool] = lambda prompt: False) -> str:
        """Play until the game is over ('over'), ``stop(prompt)`` holds at a prompt that takes
        keys ('stopped') or ``seconds`` have passed ('timeout')."""
        words, session = self.words, self.session
        started = time.monotonic()
        seen_prompt: tuple[str, ...] | None = None
        seen_at = 0.0
        last_log: tuple[str, ...] = ()
        while time.monotonic() - started < seconds:
            screen = capture(session)
            text = "\n".join(plain(line) for line in screen)
            status = plain(screen[-2]) if len(screen) >= 2 else ""
            if status.rstrip().endswith("…"):
                self.problems.append(f"status line cut: {status.strip()!r}")
            code = CODE.search(status)
            if code and words.strips in text:
                self.code = code.group(1)
            log_now = tuple(line for line in text.splitlines() if words.since in line)
            if log_now and log_now != last_log:
                self.summaries += 1
                if self.summaries <= 3:
                    self.save(f"since-{self.summaries}", screen)
            last_log = log_now
            if words.lesson_keys in text:
                self.read_lesson(screen, started)
                continue
            if words.game_over in text and words.rematch in text:
                self.save("game-over", screen)
                self.game_over_help()
                press(session, "q")  # the dialog's "q quit" (local) or "q leave the room"
                return "over"
            if words.yes in text and words.no in text:
                # the script never picks a fatal choice while another exists: this one is forced
                press(session, "y")
                time.sleep(0.2)
                continue
            if words.resume in text and words.cancel in text:
                press(session, "n")
                time.sleep(0.2)
                continue
            if words.offer in text:
                press(session, "n")  # a fresh data directory is a first run: no tutorial
                time.sleep(0.2)
                continue
            prompt = find_prompt(screen, words)
            if prompt is None or not prompt.choices:
                time.sleep(0.05)
                continue
            shown = (prompt.title, *prompt.lines)  # marked new again after a dialog: wait again
            if shown != seen_prompt:
                seen_prompt, seen_at = shown, time.monotonic()
            if prompt.new and time.monotonic() - seen_at < 0.4:
                time.sleep(0.05)  # a person waits a moment for a prompt marked new
                continue
            if stop(prompt):
                return "stopped"
            if self.help_table is None and self.decisions == 3:
                press(session, "?")
                self.help_table = wait_for_text(session, words.help_title, 5)
                self.save("help", capture(session))
                press(session, "Escape")
                wait_for_text(session, prompt.title.split(" · ")[0], 5)
                # Back from help the prompt is marked new again and ignores keys for a moment,
                # though it reads the same: wait as for a new one.
                seen_prompt = None
                continue
            key = pick(prompt.choices, self.rng, words)
            press(session, key)
            took = changed(session, screen, 3.0)
            # Answered: the next prompt is new even if it reads the same (a second Tether).
            seen_prompt = None
            if took is None:
                self.problems.append(
                    f"key {key!r} changed nothing: {prompt.title} {prompt.choices}"
                )
                self.save(f"dead-{len(self.problems)}", screen)
            else:
                self.latencies.append(took)
                self.decisions += 1
                if self.shots < 2 and self.decisions in (10, 30):
                    self.shots += 1
                    self.save(f"mid-{self.decisions}", capture(session))
        self.save("timeout", capture(session))
        return "timeout"

    def read_lesson(self, screen: list[str], started: float) -> None:
        """A tutorial's lesson: note its title, read it a moment, close it with Enter."""
        title = ""
        for line in screen:
            text = plain(line)
            at = text.find(self.words.lesson_title)
            if at >= 0:
                title = text[at:].split("▀")[0].strip(" ▀█")
                self.lessons.append((title, time.monotonic() - started))
                self.save(f"lesson-{len(self.lessons)}", screen)
                break
        time.sleep(0.5)
        press(self.session, "Enter")
        # Closed when its title has gone (the bots' moves change the table behind it meanwhile).
        deadline = time.monotonic() + 3.0
        while title and any(title in plain(line) for line in capture(self.session)):
            if time.monotonic() > deadline:
                self.problems.append(f"Enter did not close the lesson {title!r}")
                break
            time.sleep(0.005)

    def game_over_help(self) -> None:
        """A person reads the result, then opens the help from the dialog, twice."""
        words, session = self.words, self.session
        if wait_for_text(session, words.help_hint, 5) is None:  # the footer follows the dialog
            return
        time.sleep(1.0)
        for _time in range(2):
            press(session, "?")
            opened = wait_for_text(session, words.help_title, 5)
            self.help_over = opened if self.help_over is None else self.help_over
            self.help_again = opened
            press(session, "Escape")
            wait_for_text(session, words.rematch, 5)
            time.sleep(0.5)

    def report(self, title: str, elapsed: float) -> None:
        """Print the figures."""
        print(f"{title}: {self.decisions} decisions in {elapsed:.0f} s")
        if self.latencies:
            print(
                f"  key to screen: median {1000 * statistics.median(self.latencies):.0f} ms, "
                f"max {1000 * max(self.latencies):.0f} ms (tmux capture every 5 ms)"
            )
        for name, value in (
            ("table", self.help_table),
            ("game-over dialog", self.help_over),
            ("game-over dialog, again", self.help_again),
        ):
            shown = "not opened" if value is None else f"{1000 * value:.0f} ms"
            print(f"  help from the {name}: {shown}")
        print(f"  'since your last turn' blocks seen: {self.summaries}")
        for title, second in self.lessons:
            print(f"  lesson at {second:5.1f} s: {title}")


def client_env(data: str) -> str:
    """The environment every command of the run starts with."""
    return (
        f"env XDG_DATA_HOME={shlex.quote(data)} SELFISH_LAN_INTERFACE=127.0.0.1 "
        f"{shlex.quote(sys.executable)} -m selfish_tui.cli"
    )


def start_session(session: str, width: int, height: int, command: str) -> None:
    """A fresh tmux session running ``command`` (then a shell pause, to read what it left)."""
    tmux("kill-session", "-t", f"={session}")
    tmux("new", "-d", "-s", session, "-x", str(width), "-y", str(height), command + "; sleep 30")


def play_local(args: argparse.Namespace, words: Words, keep: Path, data: str) -> int:
    """`selfish play` to the end."""
    width, height = (int(n) for n in args.size.split("x"))
    command = f"{client_env(data)} play --edition {args.edition} --name Tester --lang {args.lang}"
    command += " --tutorial" if args.tutorial else f" --level {args.level} --seed {args.seed}"
    start_session(args.session, width, height, command)
    person = Person(args.session, words, random.Random(args.seed), keep, local=True)
    started = time.monotonic()
    ended = person.play(args.seconds)
    if ended != "over":
        person.problems.append("the game did not end in time")
    elapsed = time.monotonic() - started
    time.sleep(1.0)
    still = [plain(line) for line in capture(args.session) if line.strip()]
    quit_ok = not any(words.game_over in line for line in still)
    tmux("kill-session", "-t", f"={args.session}")
    tutorial = ", tutorial" if args.tutorial else ""
    person.report(f"{args.edition} {args.lang} {args.size}{tutorial}", elapsed)
    print(f"  quit from the game-over dialog: {'yes' if quit_ok else 'NO'}")
    return finish(person, keep, args.session, quit_ok)


def finish(person: Person, keep: Path, session: str, ok: bool) -> int:
    """Print the problems; the exit status."""
    for problem in dict.fromkeys(person.problems):
        print(f"  PROBLEM: {problem}")
    print(f"  screens kept in {keep}/{session}-*.txt")
    return 0 if not person.problems and ok else 1


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(data: str, bot_delay: float) -> tuple[subprocess.Popen[bytes], int]:
    """A `selfish-server` process on loopback with its database under ``data``."""
    port = free_port()
    config = Path(data) / "bench-server.toml"
    config.write_text(f"bot_delay = {bot_delay}\n")
    log = open(Path(data) / "bench-server.log", "wb")  # noqa: SIM115 (the process keeps it)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(Path(data) / "bench-server.sqlite3"),
            "--config",
            str(config),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server, port
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    raise SystemExit(f"selfish-server did not start (see {data}/bench-server.log)")


def create_room(person: Person, edition: str) -> bool:
    """From the lobby, by its keys: a new room of 4 seats and 2 bots (the dialog's defaults),
    the edition chosen, one more bot added in the waiting room, and started."""
    words, session = person.words, person.session
    if wait_for_text(session, words.new_room, 15) is None:
        person.problems.append("the lobby did not show")
        return False
    press(session, "n")
    if wait_for_text(session, words.dialog, 5) is None:
        person.problems.append("the new-room dialog did not open")
        return False
    time.sleep(0.3)
    if edition == "shipwrecked":
        press(session, "Enter")  # open the edition's list
        time.sleep(0.3)
        press(session, "Down")
        time.sleep(0.2)
        press(session, "Enter")
        time.sleep(0.3)
    # Shift+Tab from the first field (the edition) wraps to the last one, the Create button,
    # whatever rows lie between.
    press(session, "BTab")
    time.sleep(0.1)
    press(session, "Enter")
    if wait_for_text(session, words.start, 5) is None:
        person.problems.append("the waiting room did not show")
        person.save("no-waiting-room", capture(session))
        return False
    time.sleep(0.5)
    press(session, "a")  # the fourth seat: a basic bot
    time.sleep(0.5)
    press(session, "s")
    if wait_for_text(session, words.strips, 10) is None:
        person.problems.append("the game did not start")
        person.save("no-start", capture(session))
        return False
    return True


def play_leaver(args: argparse.Namespace, words: Words, keep: Path, data: str) -> int:
    """A player who leaves mid-game and comes back with the same identity file."""
    width, height = (int(n) for n in args.size.split("x"))
    server, port = start_server(data, args.bot_delay)
    identity = Path(data) / "tester-identity.json"
    command = (
        f"{client_env(data)} connect 127.0.0.1:{port} --name Tester "
        f"--identity {shlex.quote(str(identity))} --lang {args.lang}"
    )
    person = Person(args.session, words, random.Random(args.seed), keep, local=False)
    ok = False
    started = time.monotonic()
    try:
        start_session(args.session, width, height, command)
        if not create_room(person, args.edition):
            return finish(person, keep, args.session, False)
        ended = person.play(args.seconds, stop=lambda prompt: person.decisions >= args.leave_after)
        before = person.decisions
        code_before = person.code
        if ended != "stopped":
            person.problems.append(f"the game ended before the leave ({ended})")
            return finish(person, keep, args.session, False)
        person.save("before-leaving", capture(args.session))
        if args.how == "quit":
            press(args.session, "C-q")
            if wait_for_text(args.session, words.yes, 5) is None:
                person.problems.append("ctrl+q asked nothing mid-game")
            press(args.session, "y")
            time.sleep(1.0)  # the client says goodbye and exits; the pane's shell waits
        tmux("kill-session", "-t", f"={args.session}")  # with --how kill: the terminal goes
        left_at = time.monotonic()
        time.sleep(args.away)
        away = time.monotonic() - left_at
        back_at = time.monotonic()
        start_session(args.session, width, height, command)
        drawn = wait_for_text(args.session, "─", 30)  # the client's first frame (a border)
        table = wait_for_text(args.session, words.strips, 30)
        table = None if table is None else table + (drawn or 0.0)
        reached = person.play(30, stop=lambda prompt: True)  # our next prompt
        prompt_in = time.monotonic() - back_at if reached == "stopped" else None
        person.save("after-coming-back", capture(args.session))
        same_room = person.code == code_before and code_before is not None
        # A server whose bots take a dropped seat may have played the game out meanwhile.
        ended = reached if reached == "over" else person.play(args.seconds)
        elapsed = time.monotonic() - started
        if ended != "over":
            person.problems.append("the game did not end in time")
        if table is None:
            person.problems.append("the table did not come back")
        if not same_room:
            person.problems.append(
                f"another room after coming back: {code_before} -> {person.code}"
            )
        time.sleep(1.0)
        press(args.session, "C-q")  # the lobby: nothing runs, so ctrl+q quits at once
        time.sleep(1.0)
        quit_ok = words.new_room not in "\n".join(plain(x) for x in capture(args.session))
        person.report(
            f"{args.edition} {args.lang} {args.size}, leaver ({args.how}, bots "
            f"{args.bot_delay:g} s)",
            elapsed,
        )
        print(
            f"  decisions before leaving: {before}, after coming back: {person.decisions - before}"
        )
        print(f"  away: {away:.1f} s (room {code_before})")
        shown = "not shown" if table is None else f"{table:.2f} s"
        first = "not drawn" if drawn is None else f"{drawn:.2f} s"
        prompt = "not reached" if prompt_in is None else f"{prompt_in:.2f} s"
        print(f"  back, from the command: first frame {first}, table {shown}, our prompt {prompt}")
        print(f"  same room after coming back: {'yes' if same_room else 'NO'}")
        print(f"  quit at the end: {'yes' if quit_ok else 'NO'}")
        ok = quit_ok and same_room
    finally:
        tmux("kill-session", "-t", f"={args.session}")
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    return finish(person, keep, args.session, ok)


def main() -> int:
    """Play one game and print what was seen."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="space")
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default="en")
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--level", default="basic", help="the bots' level (basic)")
    parser.add_argument("--session", default="play-2")
    parser.add_argument("--data", default=None, help="XDG_DATA_HOME for the game")
    parser.add_argument("--seconds", type=float, default=900.0)
    parser.add_argument("--keep", default="/tmp/play-tmux", help="where to save screens")
    parser.add_argument("--leaver", action="store_true", help="leave mid-game and come back")
    parser.add_argument("--tutorial", action="store_true", help="play `selfish play --tutorial`")
    parser.add_argument("--how", choices=["quit", "kill"], default="quit")
    parser.add_argument("--leave-after", type=int, default=8, metavar="N")
    parser.add_argument("--away", type=float, default=5.0, metavar="SECONDS")
    parser.add_argument("--bot-delay", type=float, default=1.0, metavar="SECONDS")
    args = parser.parse_args()
    data = args.data or tempfile.mkdtemp(prefix="selfish-tmux-")
    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    words = Words.of(args.lang)
    if args.leaver:
        return play_leaver(args, words, keep, data)
    return play_local(args, words, keep, data)


if __name__ == "__main__":
    os.environ.setdefault("SELFISH_LAN_INTERFACE", "127.0.0.1")
    sys.exit(main())
