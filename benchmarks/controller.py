"""Controller operations of the generated C beside Pinocchio C++, every rbdgen result checked first.

Usage: python -m benchmarks.controller [--robots panda solo12 g1 talos]
                                       [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"] [--cxx-flags ...]
                                       [--rounds 7] [--target-ms 10] [--no-pinocchio-cpp] [--cache DIR] [--quick]

Per robot, one generated build of the operations below (the task-space inertia of the
link `kinematics.LINKS` names), timed in a C loop over 64 random states (`c_loop.py`),
beside Pinocchio C++ (`pinocchio_controller.cpp`, instantiated from the pin wheel's
headers with the same flags, the C++ standard aside, in a C++ loop over the same states):

| row | rbdgen (generated C) | Pinocchio C++ |
|---|---|---|
| C(q, q̇) | `coriolis_matrix` | `computeCoriolisMatrix` |
| M⁻¹ | `mass_matrix_inverse` | `computeMinverse` (upper triangle) |
| kinetic energy | `kinetic_energy` | `computeKineticEnergy` |
| potential energy | `potential_energy` | `computePotentialEnergy` |
| Λ, one link | `operational_space_inertia_<link>` | `computeJointJacobians` + `getFrameJacobian` + `computeMinverse` + a 6 x 6 inverse |

Before timing, the generated C's results at every state (the C loop's dump) are compared
with Pinocchio's (Python bindings, converted to rbdgen's conventions by
`rbdgen.testing.load_reference`; with mimic joints reduced by the mimic map): a normwise
relative error above 1e-9 (for Λ, an inverse: 1e-9 or 50 eps cond(Λ), whichever is
larger) is WRONG, gets no ratio, and the script exits with status 1. Times are medians of
interleaved rounds (each round runs every tool once).

Contraction is set explicitly, the same for both (as in benchmarks/derivatives.py): the
default flags name ``-ffp-contract=fast``. Robots with mimic joints (Talos): Pinocchio
runs the URDF without its ``<mimic>`` tags (every joint independent, G = 50), rbdgen the
independent coordinates (G = 38) over the same bodies; a note says so. ``--quick``: Panda,
two rounds, 2 ms loops, -O1, no Pinocchio C++ build: checks the harness, never a speed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from rbdgen.testing.compare import rel_error
from tests.robots import ROBOTS

from .case import Unavailable
from .kinematics import (GeneratedC, PinocchioCpp, Robot, bench_robots, conclude, flags_line, interleaved, log,
                         loop_parser, parse_loop_arguments, pinocchio_cells)

#: (row key, generated operation, label) in table order.
ROWS = (("coriolis_matrix", "coriolis_matrix", "C(q, q̇)"),
        ("mass_matrix_inverse", "mass_matrix_inverse", "M⁻¹"),
        ("kinetic_energy", "kinetic_energy", "kinetic energy"),
        ("potential_energy", "potential_energy", "potential energy"),
        ("operational_space_inertia", "operational_space_inertia", "Λ, one link"))
#: Normwise relative error above which a result is WRONG (Λ: at least 50 eps cond(Λ)).
TOLERANCE = 1e-9
#: Generated C at most this fraction of Pinocchio C++'s time (the project's target for these operations).
TARGET = 0.4
EPS = np.finfo(float).eps
#: Both peers' flags (C++: the -std= flag replaced by -std=c++17 -DNDEBUG): contraction named for both.
FLAGS = ("-O3", "-march=native", "-std=c99", "-ffp-contract=fast")


def expected(robot: Robot, row: str, i: int) -> np.ndarray:
    """Pinocchio's result of ``row`` at state ``i`` in rbdgen's conventions (flat, column-major)."""
    ref, st = robot.pinocchio, robot.states
    b, q, qd = st.ref_base(i), st.q[i], st.qd[i]
    if row == "coriolis_matrix":
        return ref.coriolis_matrix(b, q, qd).ravel(order="F")
    if row == "mass_matrix_inverse":
        return ref.mass_matrix_inverse(b, q).ravel(order="F")
    if row == "kinetic_energy":
        return np.array([ref.kinetic_energy(b, q, qd)])
    if row == "potential_energy":
        return np.array([ref.potential_energy(b, q)])
    return ref.operational_space_inertia(b, q, robot.link).ravel(order="F")


def tolerance(row: str, want: np.ndarray) -> float:
    if row != "operational_space_inertia":
        return TOLERANCE
    return max(TOLERANCE, 50 * EPS * np.linalg.cond(want.reshape(6, 6)))


def errors(robot: Robot, results: dict) -> dict:
    """``{row: worst error / its tolerance}`` over the states: above 1 is WRONG."""
    worst = {}
    for row, per_state in results.items():
        for i, got in enumerate(per_state):
            want = expected(robot, row, i)
            worst[row] = max(worst.get(row, 0.0), rel_error(got, want, floor=1e-2) / tolerance(row, want))
    return worst


def bench_robot(name, args, work: Path) -> dict:
    robot = ROBOTS[name]
    robot = Robot.load(name, robot.path, robot.floating)
    log(f"{name}: link {robot.link}, generating and compiling ...")
    tools, notes = {"rbdgen": GeneratedC(robot, args.flags, args.cache, work, rows=ROWS)}, []
    if args.pinocchio_cpp:
        try:
            tools["pinocchio"] = PinocchioCpp(robot, args.cxx_flags, args.cache, work,
                                              source="pinocchio_controller.cpp")
        except Unavailable as exc:
            notes.append(f"Pinocchio C++: {exc}")
    tools["rbdgen"].run_round(0.01)  # writes the dump
    checked = errors(robot, tools["rbdgen"].results())
    times = interleaved(tools, args.rounds, args.target_ms)
    model = robot.model
    if model.joint_count < len(model.joints):
        off = 6 if model.floating else 0
        notes.append(f"{len(model.joints) - model.joint_count} mimic joints: Pinocchio runs the URDF without its "
                     f"<mimic> tags (G = {len(model.joints) + off}), rbdgen the independent coordinates "
                     f"(G = {model.joint_count + off}), over the same {len(model.joints)} bodies")
    return dict(name=name, link=robot.link, counts=tools["rbdgen"].counts(), errors=checked, notes=notes,
                times={key: {row: float(np.median(t)) for row, t in rows.items()} for key, rows in times.items()},
                fastest={key: {row: float(np.min(t)) for row, t in rows.items()} for key, rows in times.items()})


def markdown(results) -> str:
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | mul | add "
             "| div | error / tolerance |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in ROWS:
            pin, ratio, fastest = pinocchio_cells(r, row, r["errors"][row] > 1)
            n = r["counts"][row]
            lines.append(f"| {r['name']} | {label} | {r['times']['rbdgen'][row]:.3f} | {pin} | {ratio} | {fastest} | "
                         f"{n['mul']} | {n['add']} | {n['div']} | {r['errors'][row]:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = loop_parser(__doc__.splitlines()[0], f"C flags (default: {' '.join(FLAGS)}; --quick: -O1)")
    args = parse_loop_arguments(p, argv, FLAGS)
    results = bench_robots(args.robots, lambda name, work: bench_robot(name, args, work))
    if results is None:
        return 1
    print(flags_line(args, TARGET))
    print(markdown(results))
    notes = [f"{r['name']}: Λ of {r['link']}" for r in results] + [f"{r['name']}: {n}" for r in results
                                                                      for n in r["notes"]]
    wrong = [(r["name"], row) for r in results for row, e in r["errors"].items() if e > 1]
    return conclude(results, notes, wrong, "the tolerance", ROWS, TARGET)


if __name__ == "__main__":
    sys.exit(main())
