"""Controller operations of the generated C beside Pinocchio C++, every rbdgen result checked first.

Usage: python -m benchmarks.controller [--robots panda solo12 g1 talos]
                                       [--flags "-O3 -march=native -std=c99 -ffp-contract=fast"]
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

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

import numpy as np

from rbdgen.testing.compare import rel_error
from tests.robots import ROBOTS

from .builds import BuildError
from .case import Unavailable
from .kinematics import GeneratedC, PinocchioCpp, Robot, interleaved

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


def bench_robot(name, args, work: Path, log) -> dict:
    robot = ROBOTS[name]
    robot = Robot.load(name, robot.path, robot.floating)
    log(f"{name}: link {robot.link}, generating and compiling ...")
    tools, notes = {"rbdgen": GeneratedC(robot, args.flags, args.cache, work, rows=ROWS)}, []
    if args.pinocchio_cpp:
        try:
            tools["pinocchio"] = PinocchioCpp(robot, args.cxx_flags, args.cache, work, source="pinocchio_controller.cpp")
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
    lines = ["| robot | operation | rbdgen C (µs) | Pinocchio C++ (µs) | ratio | fastest-round ratio | mul | add | div | "
             "error / tolerance |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row, _, label in ROWS:
            ours, pin = r["times"]["rbdgen"][row], r["times"].get("pinocchio", {}).get(row)
            if r["errors"][row] > 1:
                ratio = fastest = "WRONG"
            elif pin:
                ratio = f"{ours / pin:.2f}"
                fastest = f"{r['fastest']['rbdgen'][row] / r['fastest']['pinocchio'][row]:.2f}"
            else:
                ratio = fastest = "n/a"
            n = r["counts"][row]
            lines.append(f"| {r['name']} | {label} | {ours:.3f} | {'n/a' if pin is None else f'{pin:.3f}'} | {ratio} | "
                         f"{fastest} | {n['mul']} | {n['add']} | {n['div']} | {r['errors'][row]:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", nargs="+", default=["panda", "solo12", "g1", "talos"], choices=sorted(ROBOTS))
    p.add_argument("--flags", default="-O3 -march=native -std=c99 -ffp-contract=fast",
                   help="C flags of both peers (C++: the -std= flag replaced by -std=c++17 -DNDEBUG; --quick: -O1)")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds (medians)")
    p.add_argument("--target-ms", type=float, default=10.0, help="each timed loop lasts about this long")
    p.add_argument("--no-pinocchio-cpp", dest="pinocchio_cpp", action="store_false")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "rbdgen-bench-cache")
    p.add_argument("--quick", action="store_true", help="Panda, 2 rounds, 2 ms, -O1, no Pinocchio C++: a harness check")
    args = p.parse_args(argv)
    if args.quick:
        args.robots, args.rounds, args.target_ms, args.pinocchio_cpp = ["panda"], 2, 2.0, False
        args.flags = "-O1 -g0 -std=c99"
    args.flags = shlex.split(args.flags)
    args.cxx_flags = [f for f in args.flags if not f.startswith("-std=")] + ["-std=c++17", "-DNDEBUG"]

    def log(message):
        print(message, file=sys.stderr, flush=True)

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.robots:
            try:
                results.append(bench_robot(name, args, Path(tmp), log))
            except (BuildError, Unavailable) as exc:
                log(f"{name}: {exc}")
                return 1
    print(f"flags: C `{' '.join(args.flags)}`, C++ "
          f"`{' '.join(args.cxx_flags) if args.pinocchio_cpp else 'not built'}`; medians of {args.rounds} "
          f"interleaved rounds, 64 states; target: rbdgen C at most {TARGET}x Pinocchio C++\n")
    print(markdown(results))
    notes = [f"{r['name']}: Λ of {r['link']}" for r in results] + [f"{r['name']}: {n}" for r in results
                                                                      for n in r["notes"]]
    print("\nNotes:\n" + "\n".join(f"- {n}" for n in notes))
    wrong = [(r["name"], row) for r in results for row, e in r["errors"].items() if e > 1]
    if wrong:
        print(f"\nWRONG results (normwise relative error above the tolerance against Pinocchio): {wrong}")
        return 1
    for what in ("times", "fastest"):
        ratios = [r[what]["rbdgen"][row] / r[what]["pinocchio"][row] for r in results if "pinocchio" in r[what]
                  for row, _, _ in ROWS]
        if ratios:
            print(f"\nrbdgen C / Pinocchio C++ ({'medians' if what == 'times' else 'fastest rounds'}): "
                  f"{min(ratios):.2f}x to {max(ratios):.2f}x; {sum(x <= TARGET for x in ratios)} of {len(ratios)} "
                  f"at or under {TARGET}x")
    print("every rbdgen result agrees with Pinocchio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
