"""Python-level cost of each way to call a compiled solver (Panda inverse dynamics).

Usage: python -m benchmarks.call_paths [--json FILE] [--before FILE] [--flags "-O2 ..."]

Times one `CompiledSolver.inverse_dynamics` call per call kind (plain arrays, keywords,
``out=``, float32, integers, lists, batches of 1 and 64 states, ``mask=``, `Load`
objects, dense loads) and the generated C in a C loop, and prints a Markdown table of
microseconds per call (per state for the 64-state batches; the fastest of 15 rounds). ``--json`` saves the
numbers; ``--before`` adds a column from a file saved by another version (run it with
that version of rbdgen importable, e.g. ``PYTHONPATH=old/checkout``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

import rbdgen
from tests.robots import ROBOTS

from .c_loop import c_loop_times

BATCH = 64


def per_call(fn, states: int = 1, rounds: int = 15, target: float = 0.02) -> float:
    """The time of ``fn()`` in microseconds, divided by ``states``: the least over ``rounds``
    (the least disturbed round: these are Python-level costs, and machines are shared)."""
    reps = 1
    while True:  # calibrate: a round lasts about ``target`` seconds
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        if time.perf_counter() - t0 > target / 4:
            break
        reps *= 2
    reps *= 4
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        times.append((time.perf_counter() - t0) / reps)
    return 1e6 * min(times) / states


def call_kinds(solver) -> dict:
    """``{call kind: (function of no arguments, states per call)}`` on random Panda states."""
    rng = np.random.default_rng(0)
    J, L = solver.joint_count, solver.link_count
    q, qd, qdd = (rng.uniform(-1, 1, J) for _ in range(3))
    Q, QD, QDD = (rng.uniform(-1, 1, (BATCH, J)) for _ in range(3))
    out, out_batch = np.empty(J), np.empty((BATCH, J))
    dense = np.zeros((L, 6))
    dense[-1] = rng.normal(size=6)
    objects = [rbdgen.Load(solver.link_names[-1], dense[-1, :3], dense[-1, 3:])]
    mask = rng.uniform(size=BATCH) < 0.5
    ID = solver.inverse_dynamics
    f32 = [x.astype(np.float32) for x in (q, qd, qdd)]
    ints = [np.round(x).astype(np.int64) for x in (q, qd, qdd)]
    lists = [x.tolist() for x in (q, qd, qdd)]
    return {
        "one state, float64 arrays": (lambda: ID(q, qd, qdd), 1),
        "keywords q=, qd=, qdd=": (lambda: ID(q=q, qd=qd, qdd=qdd), 1),
        "out=": (lambda: ID(q, qd, qdd, out=out), 1),
        "float32 arrays": (lambda: ID(*f32), 1),
        "int64 arrays": (lambda: ID(*ints), 1),
        "lists": (lambda: ID(*lists), 1),
        "dense loads (L, 6)": (lambda: ID(q, qd, qdd, loads=dense), 1),
        "one Load object": (lambda: ID(q, qd, qdd, loads=objects), 1),
        "batch of 1": (lambda: ID(Q[:1], QD[:1], QDD[:1]), 1),
        f"batch of {BATCH} (per state)": (lambda: ID(Q, QD, QDD), BATCH),
        f"batch of {BATCH}, out= (per state)": (lambda: ID(Q, QD, QDD, out=out_batch), BATCH),
        f"batch of {BATCH}, mask= (per state)": (lambda: ID(Q, QD, QDD, mask=mask), BATCH),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", type=Path, help="save the numbers here")
    p.add_argument("--before", type=Path, help="a --json file of another version: adds a 'before' column")
    p.add_argument("--flags", default=" ".join(rbdgen.solver.DEFAULT_FLAGS))
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    args = p.parse_args()
    flags = tuple(args.flags.split())
    robot = ROBOTS["panda"]
    generated = rbdgen.generate(robot.path, prefix="panda")
    solver = generated.compile(flags=flags, cache=args.cache, validate=False)
    times = {"C loop (per state)": c_loop_times(generated, flags, reps=2000)["inverse_dynamics"]}
    for kind, (fn, states) in call_kinds(solver).items():
        try:
            times[kind] = per_call(fn, states)
        except TypeError:  # a call this version does not support
            times[kind] = None
    if args.json:
        args.json.write_text(json.dumps(times, indent=1))
    before = json.loads(args.before.read_text()) if args.before else {}

    def cell(value):
        return "n/a" if value is None else f"{value:.2f}"

    print(f"Panda inverse_dynamics, {rbdgen.__version__}, flags {' '.join(flags)}: us per call\n")
    print("| call kind | " + ("before | after |" if before else "us |"))
    print("|---|" + ("---:|---:|" if before else "---:|"))
    for kind, value in times.items():
        print(f"| {kind} | " + (f"{cell(before.get(kind))} | " if before else "") + f"{cell(value)} |")


if __name__ == "__main__":
    main()
