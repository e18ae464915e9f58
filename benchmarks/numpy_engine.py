"""Time of `rbdgen.NumpySolver`: per call on one state, and per state on a large batch.

One state: each operation called again and again on one random state (the engine
traces an operation into straight-line Python at its first calls; the one-time cost
of that is reported apart), the fastest of ``--rounds`` rounds in microseconds per
call. Batch: each operation on one batch of ``--batch`` random states (random base
poses for a floating robot), the median over ``--repeat`` runs of the batch time
divided by the batch size, in microseconds per state.

    python -m benchmarks.numpy_engine --robots panda talos [--json after.json] [--before before.json]

``--before`` adds the columns of a ``--json`` file saved by another version of rbdgen
(run this script with that version importable).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from tests.robots import LOAD_LINKS, ROBOTS

from .call_paths import per_call


def time_batch(s, op, st, loads, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        st.call(s, op, loads=loads)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / st.n


def time_single(s, op, st, loads, rounds):
    """(first calls until the engine's straight-line function exists, each later call), in microseconds."""
    start = time.perf_counter()
    for _ in range(getattr(s, "trace_after", 1)):
        st.call(s, op, 0, loads=loads)
    warm = time.perf_counter() - start
    return 1e6 * warm, per_call(lambda: st.call(s, op, 0, loads=loads), rounds=rounds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=10_000, help="states per batch (default 10000; 0: none)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per batch operation, median reported (default 3)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per one-state operation, least reported")
    parser.add_argument("--robots", nargs="+", default=["panda", "talos"], choices=list(ROBOTS), metavar="ROBOT")
    parser.add_argument("--json", type=Path, help="save the numbers here")
    parser.add_argument("--before", type=Path, help="a --json file of another version: adds 'before' columns")
    args = parser.parse_args(argv)

    cases = [(op, False) for op in rbdgen.OPERATIONS] + [("inverse_dynamics", True), ("forward_dynamics", True)]
    results, sizes = {}, {}
    for name in args.robots:
        robot = ROBOTS[name]
        s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating))
        sizes[name] = (s.joint_count, s.generalized_count)
        st = random_states(s, max(args.batch, 1), seed=1, load_links=LOAD_LINKS[name])
        for op, loads in cases:
            key = f"{name} {op}{' + loads' if loads else ''}"
            first, single = time_single(s, op, st, loads, args.rounds)
            batch = 1e6 * time_batch(s, op, st, loads, args.repeat) if args.batch else None
            results[key] = {"single": single, "first": first, "batch": batch}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    before = json.loads(args.before.read_text()) if args.before else {}

    def cell(value):
        return "n/a" if value is None else f"{value:.3g}" if value < 10 else f"{value:.0f}"

    print(f"NumpySolver, microseconds: one state per call (least of {args.rounds} rounds, after the first "
          f"calls), the first calls together, and per state of a {args.batch}-state batch (median of "
          f"{args.repeat}) (NumPy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs)\n")
    columns = ["single", "first", "batch"]
    head = [f"{c} before | {c}" for c in columns] if before else columns
    print("| robot, operation | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(columns) * (2 if before else 1)))
    for key, row in results.items():
        cells = [f"{cell(before.get(key, {}).get(c))} | {cell(row[c])}" if before else cell(row[c]) for c in columns]
        print(f"| {key} | " + " | ".join(cells) + " |")
    print("\n" + ", ".join(f"{n}: J={j}, G={g}" for n, (j, g) in sizes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
