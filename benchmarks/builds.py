"""The benchmarks' one build cache: compile a program once per content, keep it between runs.

A program's folder in the cache is named after a hash of its files and its compile
command. A build runs in a private temporary folder inside the cache and is renamed
into place in one step, so two runs building the same program at once both succeed
and nobody ever runs a half-written program.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


class BuildError(RuntimeError):
    """The compiler failed; the message holds the end of its output."""


def content_key(*parts) -> str:
    """A short hash of ``parts`` (bytes, or anything with a ``str``)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def compile_program(cache: Path, name: str, files: dict, command: list, extra_key=()) -> tuple:
    """``(executable, seconds spent compiling, 0.0 on a cache hit)`` of a program.

    ``files``: ``{file name: text or bytes}`` written into the build folder; ``command``: the
    compiler and its arguments, the sources as paths relative to the build folder (it runs
    there), which must write the executable ``name``. ``extra_key``: what else the result
    depends on (a library version, header folders). Raises `BuildError`.
    """
    key = content_key(*(part for n in sorted(files) for part in (n, files[n])), *command, *extra_key)
    folder = Path(cache) / f"{name}-{key}"
    exe = folder / name
    if exe.is_file():
        return exe, 0.0
    Path(cache).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache))
    try:
        for file, text in files.items():
            (work / file).write_bytes(text if isinstance(text, bytes) else text.encode())
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=work, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            errors = [line for line in proc.stderr.splitlines() if "error" in line][:3]
            raise BuildError(f"{name} does not compile: " + (" | ".join(errors) or proc.stderr.strip()[-300:]))
        try:
            work.rename(folder)
        except OSError:  # another run installed the same build first
            if not exe.is_file():
                raise
        return exe, seconds
    finally:
        shutil.rmtree(work, ignore_errors=True)
