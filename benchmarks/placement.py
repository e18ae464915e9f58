"""How much the generated C's speed depends on the physical pages its code lies in.

    python -m benchmarks.placement [--robots panda solo12 g1 talos] [--rounds 41]

Per robot and set of flags, one C loop program (`c_loop.build_c_bench`, 64 random states, the thread's
CPU-time clock) whose every timed round first moves the program's code to other physical pages
(`placement.h`): per operation the median time per call over the rounds, the 90th percentile, the
slowest, and how many rounds ran more than 5% slower than the median. Where the code of an operation is
larger than the instruction cache, a round on unlucky pages runs up to 45% slower with the same bytes at
the same addresses (docs/benchmarks.md, "Where the code lies"). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np

import rbdgen
from tests.robots import ROBOTS

from .c_loop import build_c_bench, run_c_bench

OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics")
FLAGS = ("-O2 -g0 -std=c99 -fno-math-errno -DBENCH_THREAD_CLOCK",
         "-O3 -march=native -g0 -std=c99 -fno-math-errno -DBENCH_THREAD_CLOCK")


def placement_rows(name: str, flags: str, rounds: int) -> list:
    """The table's rows of one robot and set of flags."""
    robot = ROBOTS[name]
    generated = rbdgen.generate(robot.path, floating=robot.floating, ops=list(OPS))
    with tempfile.TemporaryDirectory() as cache:
        exe, _ = build_c_bench(generated, flags.split(), cache, ops=OPS)
        times = run_c_bench(exe, rounds=rounds, target_ms=20)
    rows = []
    for op in OPS:
        t = np.array(times[op])
        median = float(np.median(t))
        rows.append(f"| {name} | `{flags.replace(' -DBENCH_THREAD_CLOCK', '')}` | {op} | {median:.3f} | "
                    f"{np.percentile(t, 90):.3f} | {t.max():.3f} | {int(np.sum(t > 1.05 * median))} of {len(t)} |")
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "solo12", "g1", "talos"], choices=sorted(ROBOTS))
    p.add_argument("--rounds", type=int, default=41, help="timed rounds, each on other pages (default %(default)s)")
    args = p.parse_args(argv)
    print("| robot | flags | operation | median (us) | 90th percentile (us) | slowest (us) | rounds > 1.05 x median |")
    print("|---|---|---|---:|---:|---:|---:|")
    for flags in FLAGS:
        for name in args.robots:
            print("\n".join(placement_rows(name, flags, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
