"""The JAX functions (`Generated.jax`) jitted and vmapped over a batch, against the generated C's batch.

For each robot, operation and variant (`VARIANTS`: the emitted structure, `rbdgen.codegen.emit_jax.STRUCTURES`;
the whole batch in one ``jax.vmap`` or chunks of 4096 states in turn; XLA's fusion on or off, the module's
``batch``; XLA's default schedule instead of the module's memory-optimised one): the jit time (tracing, lowering
and XLA's compilation for the batch) in wall-clock and in CPU seconds, the time per state of the compiled
function (median of the rounds, each round running it and the C batch with one thread in turn), and, on the same
states, the C batch with ``--threads``; JAX / C is the ratio of wall-clock times and of CPU times (on a loaded
machine the CPU times tell more: XLA's compilation runs on one thread); every JAX result is checked against the
C batch (largest difference relative to the largest entry). float64 (``jax_enable_x64``). The load average is
printed at the start and at the end. XLA's runtime decides per process how it spreads the work over the cores:
``--processes N`` measures each robot in N fresh processes in turn, one table row each; ``--xla-threads 1``
gives XLA's CPU runtime one thread (``PJRT_NPROC``).

    python -m benchmarks.jax_batch [--robots panda solo12 talos] [--ops forward_dynamics ...]
        [--variants flat/chunks/unfused ...] [--states 102400] [--rounds 3] [--processes 1] [--xla-threads 1]
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen.testing import random_states
from rbdgen.threads import cores
from tests.robots import ROBOTS

OPS = ("forward_dynamics", "inverse_dynamics_derivatives", "forward_dynamics_derivatives")

#: XLA's default schedule in place of the module's (``CPU_COMPILER_OPTIONS``).
DEFAULT_SCHEDULE = {"xla_cpu_scheduler_type": "CPU_SCHEDULER_TYPE_DEFAULT"}

#: structure/batching/fusion[/schedule]: ``batch(f, chunk, fuse)`` of the module of that structure, with those
#: of the module's ``CPU_COMPILER_OPTIONS`` replaced.
VARIANTS = {"flat/vmap/fused": ("flat", None, True, {}), "flat/vmap/unfused": ("flat", None, False, {}),
            "flat/chunks/unfused": ("flat", 4096, False, {}), "parts/chunks/unfused": ("parts", 4096, False, {}),
            "flat/chunks/fused": ("flat", 4096, True, {}),
            "flat/chunks/unfused/default-schedule": ("flat", 4096, False, DEFAULT_SCHEDULE)}


def median_times(calls: dict, rounds: int) -> dict:
    """``name -> (median wall-clock seconds, median CPU seconds of the process)`` of each of ``calls``, called in
    turn in each round (interleaved: on a shared machine each round's load weighs on all alike)."""
    times = {name: ([], []) for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            times[name][0].append(time.perf_counter() - start)
            times[name][1].append(time.process_time() - start_cpu)
    return {name: (statistics.median(wall), statistics.median(cpu)) for name, (wall, cpu) in times.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "solo12", "talos"])
    p.add_argument("--ops", nargs="+", default=list(OPS))
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    p.add_argument("--states", type=int, default=102_400)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=cores())
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    p.add_argument("--processes", type=int, default=1, help="fresh processes per robot, in turn")
    p.add_argument("--xla-threads", type=int, help="threads of XLA's CPU runtime (PJRT_NPROC; default: one a core)")
    p.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)  # one process of --processes: its rows
    args = p.parse_args(argv)
    if args.xla_threads:
        os.environ["PJRT_NPROC"] = str(args.xla_threads)  # read when jax makes its CPU client; --processes' too
    try:
        import jax
    except ImportError:
        print("jax is not installed: pip install 'rbdgen[jax]'", file=sys.stderr)
        return 2
    jax.config.update("jax_enable_x64", True)
    n = args.states
    if not args.rows:
        print(f"{n:,} states, float64, jax {jax.__version__} on {jax.devices()[0].platform}, {cores()} cores; "
              f"C batch -O2, 1 thread and {args.threads}; ns per state (median of {args.rounds} rounds, JAX and "
              f"the C batch on 1 thread interleaved); load average {os.getloadavg()[0]:.1f}; {args.processes} "
              f"process(es) per robot; threads of XLA's CPU runtime: {os.environ.get('PJRT_NPROC', 'one a core')}\n")
        print("| robot | operation | statements | variant | jit [s] | jit CPU [s] | JAX | C batch | C threads | "
              "JAX / C | JAX / C, CPU | max rel. diff |")
        print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    for name in args.robots:
        if args.processes > 1:
            child = [sys.executable, "-m", "benchmarks.jax_batch", "--rows", "--robots", name, "--ops", *args.ops,
                     "--variants", *args.variants, "--states", str(n), "--rounds", str(args.rounds),
                     "--threads", str(args.threads), "--cache", str(args.cache)]
            for _ in range(args.processes):
                subprocess.run(child, check=True)
            continue
        robot = ROBOTS[name]
        options = {} if robot.floating is None else {"floating": robot.floating}
        generated = rbdgen.generate(robot.path, ops=args.ops, prefix=name, **options)
        solver = generated.compile(cache=args.cache, validate=False)
        states = random_states(solver, n, seed=5)
        flat = states.flat()
        for op in args.ops:
            count = sum(v for k, v in generated.manifest["operations"][op]["counts"].items() if k != "calls")
            c_result = states.call(solver, op, threads=1)
            many = median_times({"C": lambda: states.call(solver, op, threads=args.threads)}, args.rounds)["C"][0]
            names = list(c_result) if isinstance(c_result, dict) else None  # a Jacobian's parts, by name
            expected = np.concatenate([np.asarray(c_result[k]).reshape(n, -1) for k in names], axis=1) if names \
                else np.asarray(c_result).reshape(n, -1)
            for variant in args.variants:
                structure, chunk, fuse, replaced = VARIANTS[variant]
                module = generated.jax(structure)
                module.CPU_COMPILER_OPTIONS.update(replaced)  # this module's own
                function = getattr(module, op)
                inputs = [jax.numpy.asarray(flat[a]) for a in inspect.signature(function).parameters
                          if a != "loads"]
                start, start_cpu = time.perf_counter(), time.process_time()
                compiled = module.batch(function, chunk, fuse).lower(*inputs).compile()
                jit, jit_cpu = time.perf_counter() - start, time.process_time() - start_cpu
                result = jax.block_until_ready(compiled(*inputs))
                times = median_times({"JAX": lambda: jax.block_until_ready(compiled(*inputs)),
                                      "C": lambda: states.call(solver, op, threads=1)}, args.rounds)
                (run, run_cpu), (one, one_cpu) = times["JAX"], times["C"]
                keys = names or [k for k in result if k != "status"]  # one output
                got = np.concatenate([np.asarray(result[k]).reshape(n, -1) for k in keys], axis=1)
                diff = np.max(np.abs(got - expected)) / np.max(np.abs(expected))
                print(f"| {name} | {op} | {count:,} | {variant} | {jit:.1f} | {jit_cpu:.1f} | {1e9 * run / n:,.0f} | "
                      f"{1e9 * one / n:,.0f} | {1e9 * many / n:,.0f} | {run / one:.1f}x | {run_cpu / one_cpu:.1f}x | "
                      f"{diff:.1e} |", flush=True)
    if not args.rows:
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[2]:.1f} (15 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
