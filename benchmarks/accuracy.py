"""Worst normwise relative errors of `rbdgen.NumpySolver` against Pinocchio and dynibo 0.5.2.

For each robot and operation, random states (random base poses for floating robots,
loads on several links for the operations that take them) are evaluated in one
batch and compared state by state with both references (``tests/reference.py``).
The last table gives the worst forward-dynamics round trip ``FD(ID(qdd))`` next to
Pinocchio's own ``aba(rnea(qdd))`` on the same states.

Errors are ``||ours - ref|| / ||ref||`` (Frobenius for the mass matrix).

    python benchmarks/accuracy.py --samples 200 --robots panda talos
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

import rbdgen  # noqa: E402
from helpers import (  # noqa: E402
    LOAD_LINKS,
    LOAD_OPERATIONS,
    call,
    call_reference,
    random_states,
    rel_error,
    roundtrip_errors,
)
from reference import DyniboReference, PinocchioReference  # noqa: E402
from robots import ROBOTS  # noqa: E402


def evaluate(name: str, samples: int, seed: int):
    robot = ROBOTS[name]
    s = rbdgen.NumpySolver(rbdgen.load_urdf(robot.path, floating=robot.floating))
    refs = {"Pinocchio": PinocchioReference(robot.path, robot.floating),
            "dynibo": DyniboReference(robot.path, robot.floating)}
    st = random_states(s, samples, seed=seed, load_links=LOAD_LINKS[name])
    rows = []
    cases = [(op, False) for op in rbdgen.OPERATIONS] + [(op, True) for op in LOAD_OPERATIONS]
    for op, loads in cases:
        ours = call(s, op, st, loads=loads)
        worst = {}
        for label, ref in refs.items():
            worst[label] = max(rel_error(ours[i], call_reference(ref, op, st, i, loads=loads))
                               for i in range(st.n))
        rows.append((name, op + (" + loads" if loads else ""), worst["Pinocchio"], worst["dynibo"]))

    # FD(ID(qdd)) round trip, with loads; floating: the base acceleration round-trips too
    trip, pin = roundtrip_errors(s, refs["Pinocchio"], st)
    return rows, (name, trip["forward_dynamics"], trip["forward_dynamics_crba"], pin)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100, help="random states per robot (default 100)")
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS), metavar="ROBOT",
                        help=f"robots to evaluate (default: all of {', '.join(ROBOTS)})")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    rows, trips = [], []
    for k, name in enumerate(args.robots):
        r, t = evaluate(name, args.samples, args.seed + k)
        rows += r
        trips.append(t)

    print(f"Worst normwise relative error of NumpySolver over {args.samples} random states per robot\n")
    print("| robot | operation | vs Pinocchio | vs dynibo |")
    print("|---|---|---:|---:|")
    for name, op, pin, dyn in rows:
        print(f"| {name} | {op} | {pin:.1e} | {dyn:.1e} |")
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
