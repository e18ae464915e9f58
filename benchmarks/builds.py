"""The benchmarks' build cache: compile a program once per content, keep it between runs.

A program is an entry of `rbdgen.build.cached` (the extension modules' cache): keyed by a
hash of its files and its compile command, built in a private temporary folder inside the
cache, renamed into place in one step and checked against its record (size, SHA-256)
before each use, so two runs building the same program at once both succeed and nobody
ever runs a half-written or damaged program.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from rbdgen import build
from rbdgen.errors import BuildError

__all__ = ["BuildError", "compile_program"]


def compile_program(cache: Path, name: str, files: dict, command: list, extra_key=(), missing=None) -> tuple:
    """``(executable, seconds spent compiling, 0.0 on a cache hit)`` of a program.

    ``files``: ``{file name: text or bytes}`` written into the build folder; ``command``: the
    compiler and its arguments, the sources as paths relative to the build folder (it runs
    there), which must write the executable ``name``. ``extra_key``: what else the result
    depends on (a library version, header folders). ``missing``: where the cache lacks the
    program, a `BuildError` with this text instead of a build (a build too long to start
    unasked). Raises `BuildError`.
    """
    key = build.digest(*(part for n in sorted(files) for part in (n, files[n])), *command, *extra_key)
    seconds = 0.0

    def make(folder: Path) -> Path:  # only where the cache lacks a usable entry
        nonlocal seconds
        if missing is not None:
            raise BuildError(f"{name} is not in the cache {cache}: {missing}")
        for file, text in files.items():
            (folder / file).write_bytes(text if isinstance(text, bytes) else text.encode())
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            errors = [line for line in proc.stderr.splitlines() if "error" in line][:3]
            raise BuildError(f"{name} does not compile: " + (" | ".join(errors) or proc.stderr.strip()[-300:]))
        return folder / name

    return build.cached(Path(cache), f"{name}-{key}", name, make), seconds
