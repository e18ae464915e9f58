"""Time the generated C per call in a C loop (no Python), and the Python runtime per call.

Usage: python benchmarks/c_loop.py [--robots panda talos] [--flags "-O2 -g0 -std=c99"]

For each robot: generation time (trace, emit), compile time, C source size, then
per operation the generated C's time per call (median over rounds of a loop over
64 precomputed random states), the CompiledSolver's time per single-state Python
call, and its per-state time on a 10,000-state batch. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import rbdgen  # noqa: E402
from rbdgen.algorithms.operations import SIGNATURES, input_names  # noqa: E402
from robots import ROBOTS  # noqa: E402

OPS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "gravity", "velocity_product_forces",
       "forward_dynamics_crba")
STATES = 64

BENCH_C = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "{prefix}.h"
{arrays}
static double now(void) {{ struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }}
static int cmp(const void *a, const void *b) {{ double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }}
int main(void)
{{
    double sink = 0;
    int r, i, rep;
{bodies}
    printf("%.17g\n", sink);
    return 0;
}}
"""

BODY = r"""
    {{
        double t[{rounds}];
        static double out[{STATES}][{out_size}];
        for (r = 0; r < {rounds}; ++r) {{
            double t0 = now();
            for (rep = 0; rep < {reps}; ++rep)
                for (i = 0; i < {STATES}; ++i)
                    {prefix}_{op}({args}out[i]);
            t[r] = (now() - t0) / ({reps} * {STATES});
            sink += out[r % {STATES}][0];
        }}
        qsort(t, {rounds}, sizeof(double), cmp);
        printf("{op} %.4f\n", t[{rounds} / 2] * 1e6);
    }}
"""


def c_array(name, values):
    flat = ", ".join(repr(float(v)) for v in np.ravel(values))
    return f"static const double {name}[{np.size(values)}] = {{{flat}}};"


def c_loop_times(generated, flags, reps) -> dict:
    model, prefix = generated.model, generated.prefix
    rng = np.random.default_rng(0)
    J, G, L = model.joint_count, model.generalized_count, len(model.links)
    quat = rng.normal(size=(STATES, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    data = {"base": np.hstack([rng.normal(size=(STATES, 3)), quat, rng.normal(size=(STATES, 12))]),
            "q": rng.uniform(-np.pi, np.pi, (STATES, J)), "qd": rng.normal(size=(STATES, J)),
            "qdd": rng.normal(size=(STATES, J)), "tau": rng.normal(size=(STATES, G)),
            "loads": np.zeros((STATES, 6 * L))}
    data["tau"] = rbdgen.NumpySolver(model).inverse_dynamics(
        *([rbdgen.BaseState(data["base"][:, :3], quat, data["base"][:, 7:13], data["base"][:, 13:])]
          if model.floating else []), data["q"], data["qd"], data["qdd"])
    arrays = "\n".join(c_array(f"in_{k}", v) for k, v in data.items())
    sizes = generated.manifest["sizes"]
    bodies = []
    for op in OPS:
        if op not in generated.manifest["operations"]:
            continue
        args = "".join(f"in_{n} + i * {sizes[n]}, " if n != "loads" else "NULL, "
                       for n in input_names(op, model.floating))
        (out,) = SIGNATURES[op][1]
        bodies.append(BODY.format(rounds=15, reps=reps, STATES=STATES, out_size=sizes[out], prefix=prefix, op=op,
                                  args=args))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        generated.write(tmp)
        (tmp / "bench.c").write_text(BENCH_C.format(prefix=prefix, arrays=arrays, bodies="".join(bodies)))
        subprocess.run(["gcc", *flags, "-o", str(tmp / "bench"), str(tmp / "bench.c"), str(tmp / f"{prefix}.c"),
                        "-I", str(tmp), "-lm"], check=True)
        text = subprocess.run([str(tmp / "bench")], check=True, capture_output=True, text=True).stdout
    return {line.split()[0]: float(line.split()[1]) for line in text.splitlines()[:-1]}


def python_times(solver, model) -> tuple[dict, dict]:
    rng = np.random.default_rng(1)
    J, G = model.joint_count, model.generalized_count
    single, batch = {}, {}
    for N, table in ((1, single), (10_000, batch)):
        q = rng.uniform(-1, 1, (N, J))
        base = ()
        if model.floating:
            base = (rbdgen.BaseState(np.zeros((N, 3)), np.tile([0, 0, 0, 1.0], (N, 1)), np.zeros((N, 6))),)
        args = {"q": q, "qd": q, "qdd": q, "tau": np.zeros((N, G))}
        for op in OPS:
            names = [n for n in SIGNATURES[op][0] if n != "loads"]
            call_args = base + tuple(args[n][0] if N == 1 else args[n] for n in names)
            if N == 1 and base:
                call_args = (rbdgen.BaseState(np.zeros(3), [0, 0, 0, 1.0]),) + call_args[1:]
            fn = getattr(solver, op)
            reps = 2000 if N == 1 else 3
            fn(*call_args)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn(*call_args)
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
        size = len(generated.files[f"{generated.prefix}.c"].encode()) / 1024
        build_rows.append(f"| {name} | {generated.timings['trace']:.2f} | {generated.timings['emit']:.2f} | "
                          f"{total_gen:.2f} | {compile_s:.1f} | {size:.0f} |")
    print("\n| robot | trace (s) | emit (s) | generate total (s) | compile (s) | C source (KiB) |")
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(build_rows))


if __name__ == "__main__":
    main()
