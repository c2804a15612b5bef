"""Optional native build of the rules engine (the metadata is in pyproject.toml).

``SELFISH_COMPILE=1`` compiles ``server/engine`` with mypyc, which the engine's ``mypy --strict``
typing allows: the same code, about twice as fast (docs/operations.md). It needs mypy and a C
compiler at build time, so it is off by default and meant for deployments, not editable
development installs (compiled modules would shadow edits to the ``.py`` files):

    pip install mypy && SELFISH_COMPILE=1 pip install --no-build-isolation .
"""

import os

from setuptools import setup

ext_modules = []
if os.environ.get("SELFISH_COMPILE"):
    from mypyc.build import mypycify

    ext_modules = mypycify(["server/engine"], opt_level="3")

setup(ext_modules=ext_modules)
