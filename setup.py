"""Optional native build of the server (the metadata is in pyproject.toml).

``SELFISH_COMPILE=1`` compiles the rules engine and the server's request path (the modules in
``COMPILED``) with mypyc, which their ``mypy --strict`` typing allows: the same code, with about
38% less server CPU per decision (docs/operations.md, docs/server.md). It needs mypy and a C
compiler at build time, so it is off by default and meant for deployments, not editable
development installs (compiled modules would shadow edits to the ``.py`` files):

    pip install mypy && SELFISH_COMPILE=1 pip install --no-build-isolation .
"""

import os

from setuptools import setup

# What SELFISH_COMPILE=1 compiles, all mypy --strict (tests/test_compiled.py compiles the same
# list): the request path from the socket to the frames, not the command line, the bots or the
# client.
COMPILED = [
    "protocol",
    "server/engine",
    "server/wire.py",
    "server/session.py",
    "server/room.py",
    "server/lobby.py",
    "server/outbox.py",
    "server/store.py",
    "server/limits.py",
    "server/config.py",
]

if __name__ == "__main__":
    ext_modules = []
    if os.environ.get("SELFISH_COMPILE"):
        from mypyc.build import mypycify

        ext_modules = mypycify(COMPILED, opt_level="3")
    setup(ext_modules=ext_modules)
