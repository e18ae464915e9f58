"""Regressors and parametric builds of the generated C: beside Pinocchio C++, and beside the folded build.

Usage: python -m benchmarks.identification [--robots panda ur5 solo12]
                                           [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"] [--cxx-flags ...]
                                           [--rounds 7] [--target-ms 10] [--no-pinocchio-cpp] [--cache DIR] [--quick]

Per robot, one generated build of the regressors, timed in a C loop over 64 random states (`c_loop.py`),
beside Pinocchio C++ (`pinocchio_identification.cpp`, instantiated from the pin wheel's headers with
the same flags, the C++ standard aside, in a C++ loop over the same states):

| row | rbdgen (generated C) | Pinocchio C++ |
|---|---|---|
| Y | `inverse_dynamics_regressor` | `computeJointTorqueRegressor` |
| Y_base | `inverse_dynamics_base_regressor` (the identifiable columns) | `computeJointTorqueRegressor` |
| energy regressor | `energy_regressor` | `computeKineticEnergyRegressor` + `computePotentialEnergyRegressor` |

and `inverse_dynamics` of a build with every body's inertial parameters as the run-time input ``params``
(``parameters="all"``) beside the folded build's, in the same interleaved rounds.

Before timing, every generated result is checked: the regressors against Pinocchio's (Python
bindings, rbdgen's conventions: `rbdgen.testing.load_reference`; Y_base against Pinocchio's columns of
`rbdgen.identifiable`), the parametric inverse dynamics (the URDF's own values) against the folded one's;
a normwise relative error above 1e-9 is WRONG and the script exits with status 1. Times are medians of
interleaved rounds. ``--quick``: Panda, two rounds, 2 ms loops, -O1, no Pinocchio C++: a harness check.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen import parameters
from rbdgen.testing.compare import rel_error
from tests.robots import ROBOTS

from .kinematics import (STATES, GeneratedC, Robot, add_pinocchio_cpp, bench_robots, conclude, flags_line,
                         interleaved, log, loop_parser, parse_loop_arguments, pinocchio_cells, summary)

#: (row key, generated operation, label) in table order: the regressors, beside Pinocchio C++.
ROWS = (("regressor", "inverse_dynamics_regressor", "Y"),
        ("base_regressor", "inverse_dynamics_base_regressor", "Y_base"),
        ("energy_regressor", "energy_regressor", "energy regressor"))
#: The parametric build's row, beside the folded build.
INVERSE_DYNAMICS = (("inverse_dynamics", "inverse_dynamics", "inverse dynamics"),)
TOLERANCE = 1e-9
#: rbdgen C at most this fraction of Pinocchio C++'s time; the parametric build at most this multiple of the folded.
TARGET = 0.4
PARAMETRIC_TARGET = 1.5
FLAGS = ("-O3", "-march=native", "-std=c99", "-ffp-contract=fast")


def expected(robot: Robot, row: str, i: int, columns) -> np.ndarray:
    """Pinocchio's result of ``row`` at state ``i``, flat column-major (``columns``: the identifiable ones)."""
    ref, st = robot.pinocchio, robot.states
    b, q, qd, qdd = st.ref_base(i), st.q[i], st.qd[i], st.qdd[i]
    if row == "energy_regressor":
        return ref.energy_regressor(b, q, qd).ravel(order="F")
    Y = ref.inverse_dynamics_regressor(b, q, qd, qdd)
    return (Y[:, list(columns)] if row == "base_regressor" else Y).ravel(order="F")


def bench_robot(name, args, work: Path) -> dict:
    robot = ROBOTS[name]
    robot = Robot.load(name, robot.path, robot.floating)
    log(f"{name}: generating and compiling ...")
    tools = {"rbdgen": GeneratedC(robot, args.flags, args.cache, work, rows=ROWS + INVERSE_DYNAMICS)}
    notes = add_pinocchio_cpp(tools, robot, args, work, source="pinocchio_identification.cpp")
    own = parameters.parameter_vector(robot.model)
    tools["parametric"] = GeneratedC(robot, args.flags, args.cache, work, rows=INVERSE_DYNAMICS, parameters="all",
                                     inputs={"params": np.tile(own, (STATES, 1))})
    columns = rbdgen.identifiable(robot.model).columns
    for tool in (tools["rbdgen"], tools["parametric"]):
        tool.run_round(0.01)  # writes the dump
    results = tools["rbdgen"].results()
    errors = {row: max(rel_error(got, expected(robot, row, i, columns), floor=1e-2)
                       for i, got in enumerate(results[row])) for row, _, _ in ROWS}
    errors["parametric"] = max(rel_error(a, b, floor=1e-2) for a, b in
                               zip(tools["parametric"].results()["inverse_dynamics"], results["inverse_dynamics"]))
    times = interleaved(tools, args.rounds, args.target_ms)
    return dict(name=name, counts={**tools["rbdgen"].counts(),
                                   "parametric": tools["parametric"].counts()["inverse_dynamics"]},
                errors=errors, notes=notes, P=own.size, rank=len(columns),
                **summary(times))


def markdown(results) -> str:
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | target | mul "
             "| add | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in ROWS:
            pin, ratio, fastest = pinocchio_cells(r, row, r["errors"][row] > TOLERANCE)
            n = r["counts"][row]
            columns = f" ({r['rank']} of {r['P']} columns)" if row == "base_regressor" else f" ({r['P']} columns)"
            lines.append(f"| {r['name']} | {label}{columns} | {r['times']['rbdgen'][row]:.3f} | {pin} | {ratio} | "
                         f"{fastest} | {TARGET} | {n['mul']} | {n['add']} | {r['errors'][row]:.1e} |")
    lines += ["", "| robot | inverse dynamics | folded (µs) | parametric, every body (µs) | ratio | fastest-round "
              "ratio | target | mul folded | mul parametric | parametric vs folded error |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        folded, parametric = (r["times"][k]["inverse_dynamics"] for k in ("rbdgen", "parametric"))
        fastest = r["fastest"]["parametric"]["inverse_dynamics"] / r["fastest"]["rbdgen"]["inverse_dynamics"]
        lines.append(f"| {r['name']} | {r['P']} parameters | {folded:.3f} | {parametric:.3f} | {parametric / folded:.2f} "
                     f"| {fastest:.2f} | {PARAMETRIC_TARGET} | {r['counts']['inverse_dynamics']['mul']} | "
                     f"{r['counts']['parametric']['mul']} | {r['errors']['parametric']:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = loop_parser(__doc__.splitlines()[0], f"C flags (default: {' '.join(FLAGS)}; --quick: -O1)")
    p.set_defaults(robots=["panda", "ur5", "solo12"])
    args = parse_loop_arguments(p, argv, FLAGS)
    results = bench_robots(args.robots, lambda name, work: bench_robot(name, args, work))
    if results is None:
        return 1
    print(flags_line(args, TARGET))
    print(markdown(results))
    ratios = [r["times"]["parametric"]["inverse_dynamics"] / r["times"]["rbdgen"]["inverse_dynamics"] for r in results]
    print(f"\nparametric / folded inverse dynamics: {min(ratios):.2f}x to {max(ratios):.2f}x; "
          f"{sum(x <= PARAMETRIC_TARGET for x in ratios)} of {len(ratios)} at or under {PARAMETRIC_TARGET}x")
    notes = [f"{r['name']}: {n}" for r in results for n in r["notes"]]
    wrong = [(r["name"], row) for r in results for row, e in r["errors"].items() if e > TOLERANCE]
    return conclude(results, notes, wrong, f"{TOLERANCE:g}", ROWS, TARGET)


if __name__ == "__main__":
    sys.exit(main())
