"""Worst normwise relative errors of rbdgen against Pinocchio and dynibo 0.5.2.

For each robot and operation, random states (random base poses for floating robots,
loads on several links for the operations that take them) are evaluated in one
batch and compared state by state with both references (`rbdgen.testing.references`):
the NumPy engine, and with ``--compiled`` also the generated C (`CompiledSolver`,
double and float builds) against the NumPy engine and Pinocchio. The last table gives
the worst forward-dynamics round trip ``FD(ID(qdd))`` next to Pinocchio's own
``aba(rnea(qdd))`` on the same states.

Errors are ``||ours - ref|| / ||ref||`` (Frobenius for the mass matrix).

    python -m benchmarks.accuracy --samples 200 --robots panda talos
    python -m benchmarks.accuracy --samples 20 --robots panda solo12 --compiled
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import rbdgen
from rbdgen.testing import load_reference, random_states
from rbdgen.testing.compare import call_reference, rel_error, roundtrip_errors
from tests.robots import LOAD_LINKS, ROBOTS

#: Operations that take loads.
LOAD_OPERATIONS = ("gravity", "inverse_dynamics", "forward_dynamics", "forward_dynamics_crba")


def worst(got, expected_of, n) -> float:
    """The worst ``rel_error(got[i], expected_of(i))`` over ``n`` states."""
    return max(rel_error(got[i], expected_of(i)) for i in range(n))


def evaluate(name: str, samples: int, seed: int, compiled: dict):
    """Rows ``(robot, operation, {column: worst error})`` and the round-trip row of one robot.

    ``compiled``: ``{precision: CompiledSolver}`` to compare too (may be empty).
    """
    robot = ROBOTS[name]
    s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating))
    refs = {"Pinocchio": load_reference(robot.path, robot.floating, "pinocchio"),
            "dynibo": load_reference(robot.path, robot.floating, "dynibo")}
    st = random_states(s, samples, seed=seed, load_links=LOAD_LINKS[name])
    rows = []
    cases = [(op, False) for op in rbdgen.DYNAMICS] + [(op, True) for op in LOAD_OPERATIONS]
    for op, loads in cases:
        ours = st.call(s, op, loads=loads)
        errors = {f"NumPy vs {label}": worst(ours, lambda i: call_reference(ref, op, st, i, loads=loads), st.n)
                  for label, ref in refs.items()}
        for precision, c in compiled.items():
            got = st.call(c, op, loads=loads)
            errors[f"C {precision} vs NumPy"] = worst(got, lambda i: ours[i], st.n)
            errors[f"C {precision} vs Pinocchio"] = worst(
                got, lambda i: call_reference(refs["Pinocchio"], op, st, i, loads=loads), st.n)
        rows.append((name, op + (" + loads" if loads else ""), errors))

    # FD(ID(qdd)) round trip, with loads; floating: the base acceleration round-trips too
    trip, pin = roundtrip_errors(s, refs["Pinocchio"], st)
    return rows, (name, trip["forward_dynamics"], trip["forward_dynamics_crba"], pin)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100, help="random states per robot (default 100)")
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS), metavar="ROBOT",
                        help=f"robots to evaluate (default: all of {', '.join(ROBOTS)})")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--compiled", action="store_true",
                        help="also generate and compile each robot (double and float) and compare the C")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    rows, trips = [], []
    with tempfile.TemporaryDirectory(prefix="rbdgen-accuracy-") as cache:
        for k, name in enumerate(args.robots):
            compiled = {}
            if args.compiled:
                robot = ROBOTS[name]
                compiled = {p: rbdgen.generate(robot.path, floating=robot.floating, precision=p).compile(
                    cache=cache, validate=False) for p in ("double", "float")}
            r, t = evaluate(name, args.samples, args.seed + k, compiled)
            rows += r
            trips.append(t)

    columns = list(rows[0][2])
    print(f"Worst normwise relative error over {args.samples} random states per robot\n")
    print("| robot | operation | " + " | ".join(columns) + " |")
    print("|---|---|" + "---:|" * len(columns))
    for name, op, errors in rows:
        print(f"| {name} | {op} | " + " | ".join(f"{errors[c]:.1e}" for c in columns) + " |")
    print("\nForward-dynamics round trip FD(ID(qdd)) with loads, worst relative error in qdd "
          "(floating: base acceleration included)\n")
    print("| robot | NumpySolver ABA | NumpySolver CRBA + Cholesky | Pinocchio aba(rnea) |")
    print("|---|---:|---:|---:|")
    for name, aba, crba, pin in trips:
        print(f"| {name} | {aba:.1e} | {crba:.1e} | {pin:.1e} |")
    print(f"\n({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
