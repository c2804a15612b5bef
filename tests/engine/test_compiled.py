"""The optional mypyc build of the engine (setup.py, SELFISH_COMPILE=1) plays the same games.

Compiles a copy of ``server/engine`` with mypyc and replays seeded bot games in a subprocess that
imports the compiled modules: every view and every final state must equal the pure-Python
engine's, so a deployment that compiles the engine is the same game, only faster.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
import hashlib, json, random, sys
from server.engine import Game
from server.engine import rules
from server.engine.bots import choose
assert rules.__file__.endswith(".so") == (sys.argv[1] == "compiled"), rules.__file__
out = {}
for edition in ("space", "shipwrecked"):
    for seed in range(6):
        game = Game(edition, ["a", "b", "c", "d"], seed)
        rng = random.Random(seed)
        digest = hashlib.sha256()
        while not game.over:
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
    shutil.copy(ROOT / "server" / "__init__.py", tmp_path / "server")
    shutil.copytree(ROOT / "server" / "engine", tmp_path / "server" / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    build = subprocess.run([sys.executable, "-m", "mypyc", "server/engine"], cwd=tmp_path,
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
