"""Running a benchmark's ``--quick`` mode (a harness check, never a speed measurement) from a test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_quick(module: str, cache: Path) -> str:
    """The standard output of ``python -m benchmarks.<module> --quick --cache <cache>``, which must succeed."""
    proc = subprocess.run([sys.executable, "-m", f"benchmarks.{module}", "--quick", "--cache", str(cache)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"{module}.py --quick failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def table_cells(stdout: str, robot: str, label: str) -> list:
    """The cells after the robot and the row label of the table row ``| robot | label | ... |``."""
    match = re.search(rf"^\| {robot} \| {re.escape(label)} \| (.*)\|$", stdout, re.M)
    assert match, f"no row for {robot} {label}"
    return [c.strip() for c in match.group(1).split("|")]
