"""A compiled copy of the server for the benchmarks: ``python bench/compiled_build.py`` prints its
directory, building it first if the sources changed.

The copy holds ``server/`` and ``protocol/`` with the modules of setup.py's ``COMPILED`` built by
mypyc, as ``SELFISH_COMPILE=1 pip install .`` builds them (docs/operations.md), so a benchmark
can measure the compiled build from a development checkout without installing it: put the
directory first on ``PYTHONPATH`` (``bench/load.py --compiled`` does). Copies live in
``$XDG_CACHE_HOME/selfish-bench`` (else ``~/.cache/selfish-bench``), one per version of the
sources, so a second run starts at once. Building needs mypy and a C compiler (about a minute).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("server", "protocol")
# Besides the packages: setup.py names the modules to compile, pyproject.toml holds mypy's
# settings for them.
FILES = ("setup.py", "pyproject.toml")


def cache_root() -> Path:
    """Where the compiled copies are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "selfish-bench"


def _sources() -> list[Path]:
    found = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    return found + [ROOT / name for name in FILES]


def source_digest() -> str:
    """A digest of every source the copy is built from, and of the Python and mypy versions."""
    import mypy.version  # only to build: an ImportError here says mypy is missing

    digest = hashlib.sha256(f"{sys.version}|{mypy.version.__version__}".encode())
    for path in _sources():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def compiled_tree(cache: Path | None = None) -> Path:
    """The directory of the compiled copy of the current sources, built if not there yet."""
    sys.path.insert(0, str(ROOT))
    try:
        from setup import COMPILED
    finally:
        sys.path.remove(str(ROOT))
    dest = (cache or cache_root()) / f"compiled-{source_digest()}"
    if (dest / "BUILT").exists():
        return dest
    work = dest.with_name(dest.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, work / package,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for name in FILES:
        shutil.copy(ROOT / name, work / name)
    build = subprocess.run([sys.executable, "-m", "mypyc", *COMPILED], cwd=work,
                           capture_output=True, text=True)  # fmt: skip
    if build.returncode != 0:
        raise RuntimeError("mypyc failed:\n" + (build.stdout + build.stderr)[-4000:])
    shutil.rmtree(work / "build", ignore_errors=True)  # the C sources and objects: not needed
    (work / "BUILT").write_text(" ".join(COMPILED) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    work.rename(dest)
    return dest


def main() -> int:
    """Print the directory of the compiled copy (building it when needed)."""
    try:
        print(compiled_tree())
    except (ImportError, RuntimeError) as exc:
        print(f"cannot build the compiled copy: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
