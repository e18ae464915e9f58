"""Speed-up of ``threads=`` on large batches of a compiled solver (Panda inverse and forward dynamics).

Each round times one call with ``threads=1`` and one with ``--threads`` (default: every core),
one after the other, so both see the same machine load; the table gives the median time per
state of each and the median of the rounds' ratios.

    python -m benchmarks.threads [--sizes 10000 1000000] [--rounds 7] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from rbdgen.threads import cores
from tests.robots import ROBOTS

OPS = ("inverse_dynamics", "forward_dynamics")


def rounds(call, n: int, threads: int, count: int) -> tuple:
    """(median seconds per state with one thread, with ``threads``, median ratio) over ``count`` rounds."""
    serial, split, ratios = [], [], []
    for _ in range(count):
        t0 = time.perf_counter()
        call(1)
        t1 = time.perf_counter()
        call(threads)
        t2 = time.perf_counter()
        serial.append((t1 - t0) / n)
        split.append((t2 - t1) / n)
        ratios.append((t1 - t0) / (t2 - t1))
    return statistics.median(serial), statistics.median(split), statistics.median(ratios)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=cores())
    p.add_argument("--flags", default=" ".join(rbdgen.solver.DEFAULT_FLAGS))
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    args = p.parse_args(argv)
    robot = ROBOTS["panda"]
    solver = rbdgen.generate(robot.path, prefix="panda").compile(flags=tuple(args.flags.split()), cache=args.cache,
                                                                 validate=False)
    print(f"Panda, {args.threads} threads against 1 ({cores()} cores), flags {args.flags}: ns per state, "
          f"median of {args.rounds} rounds\n")
    print("| operation | states | 1 thread | threads | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for n in args.sizes:
        st = random_states(solver, n, seed=3)
        out = np.empty((n, solver.generalized_count))
        for op in OPS:
            def call(threads, op=op):
                st.call(solver, op, threads=threads, out=out)

            call(args.threads)  # warm: pages of `out` and of the inputs, the thread pool
            one, many, ratio = rounds(call, n, args.threads, args.rounds)
            print(f"| {op} | {n:,} | {1e9 * one:.0f} | {1e9 * many:.0f} | {ratio:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
