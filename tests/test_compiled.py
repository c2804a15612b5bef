"""The optional mypyc build (setup.py, SELFISH_COMPILE=1) plays the same games, byte for byte.

Compiles a copy of the modules in setup.py's ``COMPILED`` with mypyc (``bench/compiled_build.py``,
the copy ``bench/load.py --compiled`` runs) and plays seeded bot games in
a subprocess that imports the compiled modules, and again on the pure-Python modules: every view,
every state frame a server would send and every final state must be the same, so a deployment
that compiles them runs the same game, only faster. The protocol's tests and the server's own
tests of play, lobby, reconnection, timers, storage and bad input then run against the compiled
copy (some code compiles but runs differently: a ClassVar in a dataclass body becomes a field under
mypyc, a method cannot live in a class attribute, a compiled session is one of mypyc's own
classes, which cannot extend asyncio.Protocol safely or be weakly referenced).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))  # the compiled copy bench/load.py --compiled runs
from compiled_build import compiled_tree  # noqa: E402

PLAY = """
import hashlib, json, random, sys
from server import wire
from server.engine import Game, rules
from server.engine.bots import choose
for module in (rules, wire):
    assert module.__file__.endswith(".so") == (sys.argv[1] == "compiled"), module.__file__
out = {}
for edition in ("space", "shipwrecked"):
    for seed in range(6):
        game = Game(edition, ["a", "b", "c", "d"], seed)
        rng = random.Random(seed)
        digest = hashlib.sha256()
        frames = None
        while not game.over:
            frames = wire.StateFrames(game, "ROOM", len(game.decisions), frames)
            for seat in (None, 0, 1, 2, 3):
                digest.update(frames.frame(seat))
            seat = game.pending_seats()[0]
            view = game.view(seat)
            digest.update(json.dumps(view, sort_keys=True).encode())
            game.apply(seat, choose("basic", view, rng))
        out[f"{edition}/{seed}"] = [digest.hexdigest(), game.snapshot()]
print(json.dumps(out, sort_keys=True))
"""


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler")  # fmt: skip
def test_the_compiled_build_plays_exactly_the_same_games(tmp_path: Path) -> None:
    pytest.importorskip("mypyc")
    tree = compiled_tree(cache=tmp_path)
    library = next(tree.glob("*__mypyc*.so"))
    built = library.stat().st_mtime_ns
    assert compiled_tree(cache=tmp_path) == tree  # built once per version of the sources
    assert library.stat().st_mtime_ns == built
    for tests in ("tests/server", "tests/protocol"):
        shutil.copytree(ROOT / tests, tree / tests,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "tests" / "__init__.py", tree / "tests")
    compiled = _play(tree, "compiled")
    pure = _play(ROOT, "pure")
    assert set(compiled) == set(pure)
    for key in pure:  # the views seen along each game (hashed) and the final state
        assert compiled[key] == pure[key], key
    # the protocol and the server, compiled, under their own tests (those that run the server in
    # the test's process)
    suite = ["tests/protocol", *(f"tests/server/test_{name}.py" for name in SERVER_TESTS)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    check = subprocess.run([sys.executable, "-c", CHECK], cwd=tree, capture_output=True,
                           text=True, timeout=60, env=env)  # fmt: skip
    assert check.returncode == 0, check.stderr[-2000:]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *suite],
        cwd=tree, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


# Every module setup.py compiles is loaded from its native library, not from its .py file.
CHECK = """
import importlib, pathlib
from setup import COMPILED
for path in COMPILED:
    files = [pathlib.Path(path)] if path.endswith(".py") else pathlib.Path(path).glob("*.py")
    for file in files:
        name = ".".join(file.with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        assert module.__file__.endswith(".so"), module.__file__
from server.tcp import build
assert build() == "compiled"  # what selfish-server logs at start
"""

# The server's test modules that run against the compiled copy: the faults tests also look for
# dropped sessions among the collector's objects (a compiled session is one of mypyc's own
# classes) and start selfish-server processes, which import the compiled copy through PYTHONPATH.
SERVER_TESTS = ["play", "lobby", "reconnect", "timers", "store", "bad_input", "wire", "handshake",
                "faults"]  # fmt: skip


def _play(path: Path, kind: str) -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", PLAY, kind], cwd=path, capture_output=True,
                         text=True, timeout=300, env={"PYTHONPATH": str(path)})  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    return result
