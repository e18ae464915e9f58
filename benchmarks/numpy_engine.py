"""Time of `rbdgen.NumpySolver`: per call on one state, and per state on a large batch.

One state: each operation called again and again on one random state (the engine
traces an operation into straight-line Python at its first calls; the one-time cost
of that is reported apart), and the same call by the NumPy pass (the engine's path
for large batches, and for one state before the straight-line path), in alternating
rounds: the fastest round of each in microseconds per call, and the median of the
rounds' ratios. Batch: each operation on one batch of ``--batch`` random states (random base
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
    """One state: (the first calls until the straight-line function exists, then a call of it, and a call of
    the NumPy pass (the engine's path before it), the median ratio of the two), in microseconds.

    The two are timed in alternation, round by round, so that both see the same machine load.
    """
    start = time.perf_counter()
    for _ in range(getattr(s, "trace_after", 1)):
        st.call(s, op, 0, loads=loads)
    first = time.perf_counter() - start
    numpy_pass = rbdgen.NumpySolver(s.model)
    numpy_pass.small = 0
    straight, passes, ratios = [], [], []
    for _ in range(rounds):
        a = per_call(lambda: st.call(s, op, 0, loads=loads), rounds=1, target=0.01)
        b = per_call(lambda: st.call(numpy_pass, op, 0, loads=loads), rounds=1, target=0.01)
        straight.append(a)
        passes.append(b)
        ratios.append(b / a)
    return 1e6 * first, min(straight), min(passes), statistics.median(ratios)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=10_000, help="states per batch (default 10000; 0: none)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per batch operation, median reported (default 3)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per one-state operation, least reported")
    parser.add_argument("--robots", nargs="+", default=["panda", "talos"], choices=list(ROBOTS), metavar="ROBOT")
    parser.add_argument("--json", type=Path, help="save the numbers here")
    parser.add_argument("--before", type=Path, help="a --json file of another version: adds 'before' columns")
    args = parser.parse_args(argv)

    cases = [(op, False) for op in rbdgen.DYNAMICS] + [("inverse_dynamics", True), ("forward_dynamics", True)]
    results, sizes = {}, {}
    for name in args.robots:
        robot = ROBOTS[name]
        s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating))
        sizes[name] = (s.joint_count, s.generalized_count)
        st = random_states(s, max(args.batch, 1), seed=1, load_links=LOAD_LINKS[name])
        for op, loads in cases:
            key = f"{name} {op}{' + loads' if loads else ''}"
            first, single, numpy_pass, speedup = time_single(s, op, st, loads, args.rounds)
            batch = 1e6 * time_batch(s, op, st, loads, args.repeat) if args.batch else None
            results[key] = {"single": single, "NumPy pass": numpy_pass, "speed-up": speedup, "first": first,
                            "batch": batch}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    before = json.loads(args.before.read_text()) if args.before else {}

    def cell(value):
        return "n/a" if value is None else f"{value:.3g}" if value < 10 else f"{value:.0f}"

    print(f"NumpySolver, microseconds: one state per call, straight-line (single) and by the NumPy pass, "
          f"least of {args.rounds} alternating rounds, and the median of their ratios; the first "
          f"{getattr(rbdgen.NumpySolver, 'trace_after', 1)} calls together (the trace); per state of a {args.batch}-state "
          f"batch (median of {args.repeat}) (NumPy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs)\n")
    columns = ["single", "NumPy pass", "speed-up", "first", "batch"]
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
