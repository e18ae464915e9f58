"""Size and simplification time of `rbdgen.symbolic`: where SymPy stops being reasonable.

For spatial serial arms of 1 to N revolute joints (axes z, y, y, x, z, y..., offsets along all three
axes, full inertias: nothing cancels by symmetry) and test robots (UR5), each operation's
`expression_size` (the outputs written out as trees), the joint angles it depends on, the cost the guard
compares with `MAX_SIMPLIFY_COST`, and the seconds of conversion and of simplification
(`Equations.simplified`), each case in a child process stopped after ``--limit`` seconds.

    python -m benchmarks.symbolic [--joints 4] [--robots ur5] [--ops mass_matrix gravity] [--limit 300]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from queue import Empty

import rbdgen
from rbdgen.codegen.symbolic import MAX_SIMPLIFY_COST, symbolic
from tests.robots import path

AXES = ((0, 0, 1), (0, 1, 0), (0, 1, 0), (1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0))


def spatial_arm(n: int) -> rbdgen.RobotModel:
    """A serial arm of ``n`` revolute joints without symmetries (see the module docstring)."""
    builder = rbdgen.RobotBuilder(f"arm{n}").add_link("base")
    parent = "base"
    for k in range(n):
        name = f"l{k + 1}"
        builder.add_link(name, 1.0 + 0.25 * k, (0.05, 0.02 * (k + 1), 0.15),
                         ((0.03, 0.001, 0.002), (0.001, 0.025, 0.003), (0.002, 0.003, 0.02)))
        builder.add_joint(f"j{k + 1}", "revolute", parent, name, xyz=(0.1, 0.02, 0.3) if k else (0, 0, 0.1),
                          axis=AXES[k % len(AXES)])
        parent = name
    return builder.build()


def _run(model, op, queue):
    start = time.perf_counter()
    equations = symbolic(model, op, simplify=False)
    converted = time.perf_counter() - start
    queue.put(("converted", (equations.size, equations.angles), converted))
    start = time.perf_counter()
    equations.simplified()
    queue.put(("simplified", time.perf_counter() - start))


def measure(model, op, limit: float) -> tuple:
    """(expression size, conversion seconds, simplification seconds or None past ``limit``)."""
    queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=_run, args=(model, op, queue))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
    elif child.exitcode:
        raise RuntimeError(f"{model.name} {op}: the measurement failed (exit code {child.exitcode}; see above)")
    results = []
    while True:
        try:
            results.append(queue.get(timeout=1))
        except Empty:
            break
    if not results:
        return None, None, None
    _, size, converted = results[0]
    return size, converted, results[1][1] if len(results) > 1 else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--joints", type=int, default=4)
    p.add_argument("--ops", nargs="+", default=["mass_matrix", "gravity", "velocity_product_forces",
                                                 "inverse_dynamics"])
    p.add_argument("--robots", nargs="*", default=["ur5"], help="test robots measured after the arms")
    p.add_argument("--limit", type=float, default=300.0)
    args = p.parse_args(argv)
    print(f"guard: MAX_SIMPLIFY_COST = {MAX_SIMPLIFY_COST}")
    print("| robot | J | operation | expression size | angles | cost | convert [s] | simplify [s] |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    models = [spatial_arm(n) for n in range(1, args.joints + 1)] + [rbdgen.load_urdf(path(r)) for r in args.robots]
    for model in models:
        n = model.joint_count
        for op in args.ops:
            size, converted, simplified = measure(model, op, args.limit)
            if size is None:
                print(f"| {model.name} | {n} | {op} | | | | > {args.limit:.0f} | |", flush=True)
                continue
            (size, angles), cell = size, f"> {args.limit:.0f}" if simplified is None else f"{simplified:.2f}"
            print(f"| {model.name} | {n} | {op} | {size} | {angles} | {size * 2**angles} | {converted:.2f} | {cell} |",
                  flush=True)


if __name__ == "__main__":
    main()
