"""The optional mypyc build (setup.py, SELFISH_COMPILE=1) plays the same games, byte for byte.

Compiles a copy of ``server/engine`` and ``server/wire.py`` with mypyc and plays seeded bot games
in a subprocess that imports the compiled modules, and again on the pure-Python modules: every
view, every state frame a server would send and every final state must be the same, so a
deployment that compiles them runs the same game, only faster.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # setup.py's list of compiled modules
from setup import COMPILED  # noqa: E402

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
def test_the_compiled_engine_plays_exactly_the_same_games(tmp_path: Path) -> None:
    pytest.importorskip("mypyc")
    (tmp_path / "server").mkdir()
    for name in ("__init__.py", "wire.py"):
        shutil.copy(ROOT / "server" / name, tmp_path / "server")
    for package in ("server/engine", "protocol"):  # protocol: imported by wire, not compiled
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    build = subprocess.run([sys.executable, "-m", "mypyc", *COMPILED], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    compiled = _play(tmp_path, "compiled")
    pure = _play(ROOT, "pure")
    assert set(compiled) == set(pure)
    for key in pure:  # the views seen along each game (hashed) and the final state
        assert compiled[key] == pure[key], key


def _play(path: Path, kind: str) -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", PLAY, kind], cwd=path, capture_output=True,
                         text=True, timeout=300, env={"PYTHONPATH": str(path)})  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    return result
