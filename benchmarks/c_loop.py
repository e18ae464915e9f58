"""Time the generated C per call in a C loop (no Python), and the Python runtime per call.

Usage: python -m benchmarks.c_loop [--robots panda talos] [--flags "-O2 -g0 -std=c99"]

For each robot: generation time (trace, emit), compile time, C source size, then
per operation the generated C's time per call (median over rounds of a loop over
64 precomputed random states), the CompiledSolver's time per single-state Python
call, and its per-state time on a 10,000-state batch. Prints Markdown tables.

`build_c_bench` / `run_c_bench` (and the `BENCH_C` / `BODY` templates) are also
what benchmarks/bench.py times C loops with: rbdgen's and adam's CasADi C.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from tests.robots import ROBOTS

from .builds import compile_program

OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "gravity", "velocity_product_forces",
       "forward_dynamics_crba")
STATES = 64

#: benchmarks/placement.h, for the programs' text (str.format: braces doubled); each timed round first moves
#: the program's code to other physical pages (`bench_place_code`), so that the rounds sample its placements.
PLACEMENT = (Path(__file__).with_name("placement.h")).read_text().replace("{", "{{").replace("}", "}}")

BENCH_C = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
@PLACEMENT@
{includes}
{arrays}
/* -DBENCH_THREAD_CLOCK: the thread's CPU time (on a machine shared with other work), else wall time */
#ifdef BENCH_THREAD_CLOCK
#define BENCH_CLOCK CLOCK_THREAD_CPUTIME_ID
#else
#define BENCH_CLOCK CLOCK_MONOTONIC
#endif
static double now(void) {{ struct timespec t; clock_gettime(BENCH_CLOCK, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }}
static int cmp(const void *a, const void *b) {{ double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }}
/* usage: bench [ROUNDS [TARGET_MS [DUMP]]]: ROUNDS timed rounds per operation (default {rounds});
   TARGET_MS > 0 calibrates the repeat count so that a round lasts about that long (default: {reps}
   repeats); DUMP names a file that gets every operation's results at every state (float64). */
int main(int argc, char **argv)
{{
    double sink = 0;
    int r, i, rounds = argc > 1 ? atoi(argv[1]) : {rounds};
    long rep, reps, fixed_reps = {reps};
    double target = argc > 2 ? 1e-3 * atof(argv[2]) : 0, *t = malloc(sizeof(double) * (rounds > 0 ? rounds : 1));
    FILE *dump = argc > 3 ? fopen(argv[3], "wb") : NULL;
    if (rounds < 1 || !t || (argc > 3 && !dump)) {{ fprintf(stderr, "bad arguments\n"); return 2; }}
{bodies}
    if (dump) fclose(dump);
    fprintf(stderr, "%.17g\n", sink);
    free(t);
    return 0;
}}
""".replace("@PLACEMENT@", PLACEMENT)

BODY = r"""
    {{
        static double out[{STATES}][{out_size}];
        reps = fixed_reps;
        if (target > 0) {{  /* calibrate (and warm up) */
            for (reps = 1;; reps *= 2) {{
                double t0 = now();
                for (rep = 0; rep < reps; ++rep)
                    for (i = 0; i < {STATES}; ++i)
                        {timed_call};
                if (now() - t0 >= 0.5 * target || reps > (1L << 30)) break;
            }}
            reps *= 2;
        }}
        for (r = 0; r < rounds; ++r) {{
            double t0;
            bench_place_code();
            t0 = now();
            for (rep = 0; rep < reps; ++rep)
                for (i = 0; i < {STATES}; ++i)
                    {timed_call};
            t[r] = (now() - t0) / (reps * {STATES});
            sink += out[r % {STATES}][0];
        }}
        printf("{op}");
        for (r = 0; r < rounds; ++r) printf(" %.6f", t[r] * 1e6);
        printf("\n");
        if (dump) {{
            for (i = 0; i < {STATES}; ++i) {call};
            fwrite(out, sizeof(double), {STATES} * {out_size}, dump);
        }}
    }}
"""


def c_array(name, values):
    flat = ", ".join(repr(float(v)) for v in np.ravel(values))
    return f"static const double {name}[{np.size(values)}] = {{{flat}}};"


def bench_operations(generated, ops=OPS) -> list:
    """The generated functions of ``ops`` in that order (the order of a dump), named after the prefix:
    ``op``, or ``<op>_<link>`` for each generated link of an operation on a link."""
    functions = generated.manifest["operations"]
    return [name for op in ops for name, fn in functions.items() if fn.get("operation", name) == op]


def build_c_bench(generated, flags, cache, data=None, reps=200, rounds=15, ops=OPS, one_output=False) -> tuple:
    """``(executable, compile seconds, 0.0 on a cache hit)`` of a C loop over the generated functions.

    ``data``: the states as the C's flat inputs (`rbdgen.testing.States.flat`; default: `STATES`
    random states), embedded in the program. The program prints one line per function
    (`bench_operations`), ``<function> <us per call of each round>``; see BENCH_C for its
    arguments. It is built in the ``cache`` folder (`builds.compile_program`). The timed
    loops write each state's result to its own row, or with ``one_output`` all to the first
    (as a C++ loop reusing one ``pinocchio::Data`` does); the dump has every state's.
    """
    model, prefix = generated.model, generated.prefix
    data = random_states(model, STATES, seed=0).flat() if data is None else data
    states = data["q"].shape[0]
    arrays = "\n".join(c_array(f"in_{k}", v) for k, v in data.items() if k != "loads")
    sizes = generated.manifest["sizes"]
    functions = generated.manifest["operations"]
    bodies = []
    for name in bench_operations(generated, ops):
        args = "".join(f"in_{n} + i * {sizes[n]}, " if n != "loads" else "NULL, " for n in functions[name]["inputs"])
        offsets = np.cumsum([0] + [sizes[out] for out in functions[name]["outputs"]])  # outputs side by side
        outs = ", ".join(f"out[%(row)s] + {offset}" for offset in offsets[:-1])
        call = f"{prefix}_{name}({args}{outs})"
        bodies.append(BODY.format(STATES=states, out_size=offsets[-1], op=name, call=call % {"row": "i"},
                                  timed_call=call % {"row": "0" if one_output else "i"}))
    program = BENCH_C.format(includes=f'#include "{prefix}.h"', arrays=arrays, bodies="".join(bodies),
                             rounds=rounds, reps=reps)
    files = {name: text for name, text in generated.files.items() if name.endswith((".c", ".h"))}
    return compile_program(cache, f"c-bench-{prefix}", {**files, "bench.c": program},
                           ["gcc", *flags, "-o", f"c-bench-{prefix}", "bench.c", *generated.c_sources, "-I.", "-lm"])


def run_c_bench(exe, rounds=None, target_ms=None, dump=None) -> dict:
    """Run a `build_c_bench` program: ``{op: [us per call of each round]}`` (``dump``: results file)."""
    cmd = [str(exe)]
    if rounds is not None or target_ms is not None or dump is not None:
        cmd += [str(rounds or 15), str(target_ms or 0)] + ([str(dump)] if dump is not None else [])
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: [float(x) for x in line.split()[1:]] for line in text.splitlines() if line.strip()}


def c_loop_times(generated, flags, reps) -> dict:
    """Median time per call (us) of each operation in a C loop over `STATES` random states."""
    with tempfile.TemporaryDirectory() as tmp:
        exe, _ = build_c_bench(generated, flags, tmp, reps=reps)
        times = run_c_bench(exe)
    return {op: float(np.median(t)) for op, t in times.items()}


def python_times(solver, model) -> tuple[dict, dict]:
    """Time per state (us) of the solver's methods from Python: one state per call, and 10,000-state batches."""
    single, batch = {}, {}
    for N, table in ((1, single), (10_000, batch)):
        st = random_states(model, N, seed=1)
        for op in OPS:
            fn, args = getattr(solver, op), st.args(op, 0 if N == 1 else None)
            reps = 2000 if N == 1 else 3
            fn(*args)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn(*args)
                times.append((time.perf_counter() - t0) / (reps * N))
            table[op] = 1e6 * sorted(times)[2]
    return single, batch


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "talos"])
    p.add_argument("--flags", default=" ".join(rbdgen.build.DEFAULT_FLAGS))
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    flags = shlex.split(args.flags)
    print(f"flags: {' '.join(flags)}\n")
    print("| robot | op | C loop (us/call) | Python single (us/call) | Python batch 10k (us/state) |")
    print("|---|---|---:|---:|---:|")
    build_rows = []
    for name in args.robots:
        robot = ROBOTS[name]
        t0 = time.perf_counter()
        generated = rbdgen.generate(robot.path, floating=robot.floating)
        total_gen = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.perf_counter()
            solver = generated.compile(flags=flags, cache=cache, validate=False)
            compile_s = time.perf_counter() - t0
            c_times = c_loop_times(generated, flags, args.reps)
            single, batch = python_times(solver, generated.model)
        for op in OPS:
            print(f"| {name} | {op} | {c_times[op]:.3f} | {single[op]:.2f} | {batch[op]:.3f} |")
        size = sum(len(generated.files[n].encode()) for n in generated.c_sources) / 1024
        build_rows.append(f"| {name} | {generated.timings['trace']:.2f} | {generated.timings['emit']:.2f} | "
                          f"{total_gen:.2f} | {compile_s:.1f} | {size:.0f} |")
    print("\n| robot | trace (s) | emit (s) | generate total (s) | compile (s) | C source (KiB) |")
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(build_rows))


if __name__ == "__main__":
    main()
