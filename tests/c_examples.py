"""Building and running the C programs of examples/ against a folder generated as their READMEs say."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TEST_FLAGS

ROOT = Path(__file__).resolve().parents[1]
PANDA = ROOT / "generated" / "panda" / "panda.urdf"
SOLO = ROOT / "generated" / "solo" / "solo12.urdf"


def build(work: Path, example: str, frames: tuple, ops: tuple, robot: Path = PANDA, options: tuple = ()) -> Path:
    """Generate the robot's folder (``rbdgen generate ROBOT OPTIONS --no-compile --frames ... --ops ...``,
    the Panda by default) in ``work`` and compile ``examples/<example>/main.c`` against it at -O1 with
    warnings as errors."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    folder = work / "generated"
    subprocess.run([sys.executable, "-m", "rbdgen", "-q", "generate", str(robot), *options, "-o", str(folder),
                    "--no-compile", "--frames", *frames, "--ops", *ops], check=True)
    sources = sorted(str(p) for p in folder.glob("*.c"))
    program = work / example
    subprocess.run([cc, *TEST_FLAGS, "-Wall", "-Wextra", "-Werror", "-I", str(folder),
                    str(ROOT / "examples" / example / "main.c"), *sources, "-lm", "-o", str(program)], check=True)
    return program


def run(program: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, timeout=60)


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def parse(stdout: str) -> dict:
    """``{first word: [the numbers of each line starting with it]}`` ("t 0.02 r 0.5": [0.02, 0.5])."""
    rows = {}
    for line in stdout.splitlines():
        key, *words = line.split()
        rows.setdefault(key, []).append([float(w) for w in words if _is_number(w)])
    return rows
