"""Time per state of `rbdgen.NumpySolver` on a large batch.

Each operation runs on one batch of random states (random base poses for a floating
robot); the reported figure is the median over ``--repeat`` runs of the batch time
divided by the batch size, in microseconds per state.

    python -m benchmarks.numpy_engine --batch 10000 --robots panda talos
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from tests.robots import LOAD_LINKS, ROBOTS


def time_operation(s, op, st, loads, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        st.call(s, op, loads=loads)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / st.n


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=10_000, help="states per batch (default 10000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per operation, median reported (default 3)")
    parser.add_argument("--robots", nargs="+", default=["panda", "talos"], choices=list(ROBOTS), metavar="ROBOT")
    args = parser.parse_args(argv)

    cases = [(op, False) for op in rbdgen.OPERATIONS] + [("inverse_dynamics", True), ("forward_dynamics", True)]
    results = {}
    sizes = {}
    for name in args.robots:
        robot = ROBOTS[name]
        s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating))
        sizes[name] = (s.joint_count, s.generalized_count)
        st = random_states(s, args.batch, seed=1, load_links=LOAD_LINKS[name])
        for op, loads in cases:
            results[name, op, loads] = time_operation(s, op, st, loads, args.repeat)

    print(f"NumpySolver, batch of {args.batch} states, median of {args.repeat} runs, microseconds per state "
          f"(NumPy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs)\n")
    header = " | ".join(f"{n} (J={sizes[n][0]}, G={sizes[n][1]})" for n in args.robots)
    print(f"| operation | {header} |")
    print("|---|" + "---:|" * len(args.robots))
    for op, loads in cases:
        label = op + (" + loads" if loads else "")
        print(f"| {label} | " + " | ".join(f"{1e6 * results[n, op, loads]:.2f}" for n in args.robots) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
